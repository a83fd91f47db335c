// Drives the zot stand-in with pi's own RPC client, as any pi client would
// drive pi, and writes what the client received as one JSON object:
//
//   node client.mjs RPC-CLIENT.js STANDIN.mjs TRANSCRIPT... [-- ZOT2GP-ARGS...]
//
// For each transcript it sends the transcript's prompt with promptAndWait
// (which subscribes, sends the prompt and collects the events up to
// agent_settled) and records the prompt's disposition; then it asks for
// the state (which the stand-in refuses) and aborts. The checks are the Go
// test's (internal/devtools/e2e/pi_test.go).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const [rpcClient, standin, ...transcripts] = sep < 0 ? argv : argv.slice(0, sep);
const zot2gpArgs = sep < 0 ? [] : ["--", ...argv.slice(sep + 1)];

const { RpcClient } = await import(pathToFileURL(rpcClient).href);
const client = new RpcClient({
	cliPath: standin,
	args: [...transcripts.flatMap((t) => ["--transcript", t]), ...zot2gpArgs],
});
await client.start();

const prompts = [];
for (const file of transcripts) {
	const user = readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim() !== "")
		.map((l) => JSON.parse(l))
		.find((e) => e.type === "user_message");
	const message = user.content.map((b) => b.text).join("");
	// promptAndWait keeps prompt()'s disposition to itself: look at it.
	let disposition;
	const prompt = client.prompt.bind(client);
	client.prompt = async (...a) => (disposition = await prompt(...a));
	const started = Date.now();
	const events = await client.promptAndWait(message, undefined, 15000);
	client.prompt = prompt;
	prompts.push({ file, message, disposition, ms: Date.now() - started, events });
}

let stateError = null;
try {
	await client.getState();
} catch (e) {
	stateError = e.message;
}
await client.abort();
await client.stop();
process.stdout.write(JSON.stringify({ prompts, stateError, stderr: client.getStderr() }) + "\n");
