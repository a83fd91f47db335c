// A stand-in for `sh -c 'zot --rpc | zot2gp --format pi'`, the agent
// process a pi RPC client runs. pi's RpcClient starts it as
//
//   node zot-standin.mjs --mode rpc [--transcript FILE]... [-- ZOT2GP-ARGS...]
//
// It reads pi's commands on stdin, one JSON object a line, and answers as
// zot would, on the stdin of one long-lived `zot2gp --format pi` whose
// stdout is this process's own: what the client reads is zot2gp's output,
// as it writes it. A prompt is answered with a recorded zot transcript
// (the one whose user message is the prompt's text, else the next one not
// yet played), its response carrying the prompt's id; abort succeeds; any
// other command fails, as zot's response with success:false. zot2gp's
// input stays open until the client goes, so an event the client is to
// see before that must have been flushed by zot2gp.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

const args = process.argv.slice(2);
const transcripts = [];
let zot2gpArgs = ["--format", "pi"];
for (let i = 0; i < args.length; i++) {
	if (args[i] === "--transcript") transcripts.push(args[++i]);
	else if (args[i] === "--") {
		zot2gpArgs = args.slice(i + 1);
		break;
	}
}
const played = new Set();
const runs = transcripts.map((file) => {
	const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
	const user = lines.map((l) => JSON.parse(l)).find((e) => e.type === "user_message");
	const text = user ? user.content.map((b) => b.text).join("") : "";
	return { file, lines, text };
});

const zot2gp = spawn("zot2gp", zot2gpArgs, { stdio: ["pipe", "inherit", "inherit"] });
zot2gp.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// write sends zot's lines one at a time, each in a write of its own (with
// a turn of the event loop between), as zot writes them.
let queue = Promise.resolve();
function write(lines) {
	queue = queue.then(async () => {
		for (const line of lines) {
			if (!zot2gp.stdin.write(line + "\n")) {
				await new Promise((resolve) => zot2gp.stdin.once("drain", resolve));
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
	});
}

function answer(command) {
	const id = command.id;
	if (command.type === "prompt") {
		let run = runs.find((r) => !played.has(r) && r.text === command.message);
		run ??= runs.find((r) => !played.has(r));
		if (!run) {
			write([JSON.stringify({ command: "prompt", error: "the zot stand-in has no transcript left", id, success: false, type: "response" })]);
			return;
		}
		played.add(run);
		write(
			run.lines.map((line) => {
				const e = JSON.parse(line);
				if (e.type !== "response") return line;
				return JSON.stringify({ ...e, id });
			}),
		);
		return;
	}
	if (command.type === "abort") {
		write([JSON.stringify({ command: "abort", id, success: true, type: "response" })]);
		return;
	}
	write([JSON.stringify({ command: command.type, error: "not supported by the zot stand-in", id, success: false, type: "response" })]);
}

// pi's framing: records end at LF only.
const decoder = new StringDecoder("utf8");
let buffer = "";
process.stdin.on("data", (chunk) => {
	buffer += decoder.write(chunk);
	for (let i; (i = buffer.indexOf("\n")) >= 0; ) {
		const line = buffer.slice(0, i).replace(/\r$/, "");
		buffer = buffer.slice(i + 1);
		if (line.trim() !== "") answer(JSON.parse(line));
	}
});
const finish = () => queue.then(() => zot2gp.stdin.end());
process.stdin.on("end", finish);
process.on("SIGTERM", finish);
