package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// The test corpus: a fake secret of every built-in rule in the place an
// agent log has it, and near misses that must pass unchanged. Every secret
// is generated here (a fixed seed: the same bytes on every run); none was
// ever real. testdata/*.jsonl are made from these (go test -update), and
// the tools' golden scripts hold copies (TestScriptCorpora).

// gen returns prefix and n characters of alphabet, from a generator seeded
// with seed; "FAKE" goes first where the alphabet has its letters, so that
// a reader sees what it is.
func gen(seed uint64, prefix, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 12))
	var b strings.Builder
	b.WriteString(prefix)
	if strings.Contains(alphabet, "F") && strings.Contains(alphabet, "K") && n > 8 {
		b.WriteString("FAKE")
		n -= 4
	}
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

const (
	abcAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	abcWord  = abcAlnum + "_-"
	abcHex   = "0123456789abcdef"
	abcB64   = abcAlnum + "+/"
)

// A fake is one secret of rule in its context (a format with one %s).
type fake struct {
	rule, context, secret string
}

var fakes = []fake{
	{"anthropic-admin-api-key", "using %s for the organisation's usage report", gen(1, "sk-ant-admin01-", abcWord, 93) + "AA"},
	{"anthropic-api-key", "export ANTHROPIC_API_KEY=%s", gen(2, "sk-ant-api03-", abcWord, 93) + "AA"},
	{"anthropic-api-key", "claude setup-token printed %s\n", gen(3, "sk-ant-oat01-", abcWord, 93) + "AA"},
	{"openai-api-key", "OPENAI_API_KEY=\"%s\"", gen(4, "sk-proj-", abcWord, 156)},
	{"openai-api-key", "openai.api_key = '%s'", gen(5, "sk-", abcAlnum, 20) + "T3BlbkFJ" + gen(6, "", abcAlnum, 20)},
	{"openrouter-api-key", "curl https://openrouter.ai/api/v1/chat/completions -H 'Authorization: Bearer %s'", gen(7, "sk-or-v1-", abcHex, 64)},
	{"deepseek-api-key", "deepseek:\n  api_key: %s\n", gen(8, "sk-", abcHex, 32)},
	{"sk-api-key", "MOONSHOT_API_KEY=%s", gen(9, "sk-", abcAlnum, 48)},
	{"google-api-key", "GET https://generativelanguage.googleapis.com/v1beta/models?key=%s", gen(10, "AIza", abcWord, 35)},
	{"google-oauth-client-secret", `{"installed":{"client_id":"1234-abc.apps.googleusercontent.com","client_secret":"%s"}}`, gen(11, "GOCSPX-", abcWord, 28)},
	{"aws-access-key-id", "aws_access_key_id = %s", "AKIAFAKE4EXAMPLE7KEY"},
	{"aws-access-key-id", "role session keys: %s", gen(12, "ASIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)},
	{"aws-secret-access-key", "[default]\naws_secret_access_key = %s\nregion = eu-west-1\n", gen(13, "", abcB64, 40)},
	{"aws-secret-access-key", `{"Credentials":{"SecretAccessKey":"%s","Expiration":"2026-11-01T10:00:00Z"}}`, gen(14, "", abcB64, 40)},
	{"github-token", "git clone https://%s@github.com/acme/colibri.git", gen(15, "ghp_", abcAlnum, 36)},
	{"github-token", "gh auth status: Token: %s", gen(16, "gho_", abcAlnum, 36)},
	{"github-token", "GITHUB_TOKEN=%s", gen(17, "github_pat_", abcAlnum+"_", 82)},
	{"gitlab-token", "git remote add origin https://oauth2:%s@gitlab.com/acme/colibri.git", gen(18, "glpat-", abcWord, 20)},
	{"gitlab-token", "CI deploy token %s", gen(19, "gldt-", abcWord, 20)},
	{"slack-token", "SLACK_BOT_TOKEN=%s", gen(20, "xoxb-", "0123456789", 12) + "-" + gen(21, "", "0123456789", 13) + "-" + gen(22, "", abcAlnum, 24)},
	{"slack-token", "socket mode with %s", gen(23, "xapp-1-A", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10) + "-" + gen(24, "", "0123456789", 13) + "-" + gen(25, "", abcHex, 64)},
	{"slack-webhook-url", "posting to https://hooks.slack.com/services/%s", gen(26, "T", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8) + "/" + gen(27, "B", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10) + "/" + gen(28, "", abcAlnum, 24)},
	{"npm-token", "//registry.npmjs.org/:_authToken=%s\n", gen(29, "npm_", abcAlnum, 36)},
	{"huggingface-token", "HF_TOKEN=%s huggingface-cli download", gen(30, "hf_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)},
	{"groq-api-key", "client = Groq(api_key=\"%s\")", gen(31, "gsk_", abcAlnum, 52)},
	{"xai-api-key", "XAI_API_KEY: %s", gen(32, "xai-", abcAlnum, 80)},
	{"stripe-key", "stripe.api_key = \"%s\"", gen(33, "sk_test_", abcAlnum, 24)},
	{"jwt", "Cookie: session=%s; Path=/", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + gen(34, "eyJzdWIiOiJGQUtFIiwiaWF0IjoxNzAwMDAwMDAwfQ", "", 0) + "." + gen(35, "", abcWord, 43)},
	{"jwt", "Authorization: Bearer %s", "eyJhbGciOiJSUzI1NiJ9." + "eyJpc3MiOiJmYWtlIiwiZXhwIjoxfQ." + gen(36, "", abcWord, 86)},
	{"private-key", "$ cat ~/.ssh/id_ed25519\n%s\n$ ", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + gen(37, "b3BlbnNzaC1rZXktdjEAAAAA", abcB64, 46) + "\n" + gen(38, "", abcB64, 70) + "\n" + gen(39, "", abcB64, 40) + "==\n-----END OPENSSH PRIVATE KEY-----"},
	{"private-key", "head -3 server.key:\n%s\n", "-----BEGIN RSA PRIVATE KEY-----\n" + gen(40, "MIIEpAIBAAKCAQEA", abcB64, 48) + "\n" + gen(41, "", abcB64, 64)},
	{"authorization-header", "curl -H \"Authorization: Basic %s\" https://api.internal/v1/me", gen(42, "", abcB64, 28) + "=="},
	{"authorization-header", "> GET /v1/me HTTP/1.1\n> Authorization: token %s\n", gen(43, "", abcHex, 40)},
	{"url-credentials", "DATABASE_URL=postgres://app:%s@db.internal:5432/app", gen(44, "", abcAlnum, 16)},
	{"url-credentials", "pip install --index-url https://deploy:%s@pypi.acme.dev/simple pkg", gen(45, "", abcAlnum, 20)},
	{"secret-assignment", "DB_PASSWORD=%s", "hunter2-" + gen(46, "", abcAlnum, 8)},
	{"secret-assignment", "spring.datasource.password: %s", gen(47, "", abcAlnum, 12) + "7"},
	{"secret-assignment", "mysql --user=root --password %s -e 'select 1'", gen(48, "", abcAlnum, 14)},
	{"secret-assignment", `{"webhook":{"signing_secret":"%s"}}`, gen(49, "whsec_", abcAlnum, 32)},
	{"secret-assignment", "client_secret := \"%s\"", gen(50, "", abcAlnum, 24)},
}

// memberFakes are secrets that only their JSON member's key gives away:
// key, value, rule.
var memberFakes = []struct{ key, value, rule string }{
	{"password", "Tr0ub4dor-" + gen(51, "", abcAlnum, 6), "secret-assignment"},
	{"api_key", gen(52, "", abcHex, 32), "secret-assignment"},
	{"Authorization", "Bearer " + gen(53, "", abcWord, 40), "authorization-header"},
	{"SecretAccessKey", gen(54, "", abcB64, 40), "aws-secret-access-key"},
	{"sessionToken", gen(55, "", abcB64, 120), "secret-assignment"},
}

// nearMisses must pass byte for byte.
var nearMisses = []string{
	"commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Sam <sam@example.com>",
	"a1b2c3d fix(server): reject empty Authorization header",
	"request 123e4567-e89b-12d3-a456-426614174000 took 12 ms",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  go.sum",
	"sha512-" + gen(60, "", abcB64, 86) + "==",
	"data:image/png;base64," + gen(61, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", abcB64, 400) + "==",
	"tokenizer: cl100k_base, max_tokens=4096, tokens: 13762",
	"the token limit was reached; passwords must be 12 characters; rotate the API key",
	"--- PASS: TestParseHeader/empty (0.00s)\n--- FAIL: TestToken (0.01s)",
	"scikit-learn (sk-learn) and task-0123456789abcdef0123456789abcdef done",
	"git clone ssh://git@github.com/acme/colibri.git",
	"open http://localhost:8080/search?key=created_at&sort_key=ts",
	"Authorization: header missing",
	"eos_token: </s>, pad_token: <pad>, next_page_token=CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0",
	"PASSWORD=${DB_PASSWORD} API_KEY=<your key here> password: ******** token: null",
	"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + gen(62, "", abcB64, 50) + "\n-----END PUBLIC KEY-----",
	"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU" + gen(63, "", abcB64, 44) + "\n-----END CERTIFICATE-----",
	"arn:aws:iam::123456789012:user/alice at 12:30:45 in C:\\Users\\sam",
	"keyboard=us monkey=banana1234 public_key=ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKE",
	"AIzaSy is how Google keys start; ghp_ starts GitHub's; xoxb- starts Slack's",
	"npm_config_cache=/tmp/npm eyJhbGciOi is a JWT header's start",
	"session cookie: theme=dark; lang=en",
	"uses sk-ant- keys; see https://console.anthropic.com/settings/keys",
}

// memberNearMisses are JSON members that must pass.
var memberNearMisses = []struct{ key, value string }{
	{"token", "Hello"},
	{"token", " world"},
	{"password", "required"},
	{"key", "created_at"},
	{"tokens", "many"},
	{"api_key", "${OPENAI_API_KEY}"},
	{"Authorization", "Bearer"},
}

// envelope is one event of the corpus, with text in a tool's output.
func envelope(seq int, text string) string {
	out := jsontext.AppendString(nil, text)
	return fmt.Sprintf(`{"seq":%d,"ts":1793494992.5,"run_id":"r_1","agent_id":"parent","kind":"tool_result","payload":{"tool":"shell","ok":true,"output":%s}}`, seq, out)
}

// memberEnvelope is one event whose payload has the member key: value.
func memberEnvelope(seq int, key, value string) string {
	k := jsontext.AppendString(nil, key)
	v := jsontext.AppendString(nil, value)
	return fmt.Sprintf(`{"seq":%d,"ts":1793494993,"run_id":"r_1","agent_id":"parent","kind":"tool_call","payload":{"tool":"http","args":{%s:%s,"n":1}}}`, seq, k, v)
}

// zotEvent is a zot RPC event with text in a tool's result.
func zotEvent(id int, text string) string {
	out := jsontext.AppendString(nil, text)
	return fmt.Sprintf(`{"type":"tool_result","id":"c%d","content":[{"type":"text","text":%s}],"is_error":false}`, id, out)
}

// corpora are the files of testdata: the secrets and the near misses as
// envelope events and as zot events.
func corpora() map[string]string {
	var secrets, zot, near, nearZot strings.Builder
	seq := 1
	for i, f := range fakes {
		text := fmt.Sprintf(f.context, f.secret)
		fmt.Fprintln(&secrets, envelope(seq, text))
		fmt.Fprintln(&zot, zotEvent(i+1, text))
		seq++
	}
	for _, m := range memberFakes {
		fmt.Fprintln(&secrets, memberEnvelope(seq, m.key, m.value))
		seq++
	}
	// Escapes: a secret spelt with \u and \/ is found all the same.
	fmt.Fprintf(&secrets, `{"seq":%d,"ts":1793494994,"run_id":"r_1","agent_id":"parent","kind":"tool_result","payload":{"output":"key \u0041KIAFAKE4EXAMPLE7KEY, url https:\/\/u:p4ssw0rd-99@h.example\/x"}}`+"\n", seq)
	seq = 1
	for i, t := range nearMisses {
		fmt.Fprintln(&near, envelope(seq, t))
		fmt.Fprintln(&nearZot, zotEvent(i+1, t))
		seq++
	}
	for _, m := range memberNearMisses {
		fmt.Fprintln(&near, memberEnvelope(seq, m.key, m.value))
		seq++
	}
	return map[string]string{
		"secrets.jsonl":      secrets.String(),
		"secrets.zot.jsonl":  zot.String(),
		"nearmiss.jsonl":     near.String(),
		"nearmiss.zot.jsonl": nearZot.String(),
	}
}
