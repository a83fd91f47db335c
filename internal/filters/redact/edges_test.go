package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// redactText redacts text as one string value and returns the text after.
func redactText(t *testing.T, text string) string {
	t.Helper()
	r := New()
	line := []byte(`{"t":` + string(jsontext.AppendString(nil, text)) + `}`)
	out, changed := r.Line(nil, line)
	if !changed {
		return text
	}
	var got []byte
	got, ok := unquote(out[len(`{"t":`) : len(out)-1])
	if !ok {
		t.Fatalf("not a string: %s", out)
	}
	return string(got)
}

func unquote(b []byte) ([]byte, bool) {
	var s string
	if err := jsonUnmarshal(b, &s); err != nil {
		return nil, false
	}
	return []byte(s), true
}

// body is n characters of the alphabet, a digit among them where it has
// one.
func body(alphabet string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
	}
	return b.String()
}

// The lengths of every token rule, at their bounds, at the start and the
// end of a string, after a letter (no token) and after an escape.
func TestTokenBounds(t *testing.T) {
	for _, tc := range []struct {
		rule, prefix, alphabet, suffix string
		min, max                       int
	}{
		{"anthropic-admin-api-key", "sk-ant-admin01-", abcWord, "", 32, 0},
		{"anthropic-api-key", "sk-ant-api03-", abcWord, "", 32, 0},
		{"anthropic-api-key", "sk-ant-oatxyzab01-", abcWord, "", 32, 0},
		{"openai-api-key", "sk-proj-", abcWord, "", 32, 0},
		{"openai-api-key", "sk-svcacct-", abcWord, "", 32, 0},
		{"openai-api-key", "sk-admin-", abcWord, "", 32, 0},
		{"openai-api-key", "sk-None-", abcWord, "", 32, 0},
		{"openrouter-api-key", "sk-or-v1-", abcHex, "", 32, 0},
		{"deepseek-api-key", "sk-", abcHex, "", 32, 32},
		{"google-api-key", "AIza", abcWord, "", 35, 35},
		{"google-oauth-client-secret", "GOCSPX-", abcWord, "", 24, 0},
		{"aws-access-key-id", "AKIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "", 16, 16},
		{"aws-access-key-id", "ABIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "", 16, 16},
		{"aws-access-key-id", "ACCA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "", 16, 16},
		{"aws-access-key-id", "A3TX", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "", 16, 16},
		{"github-token", "ghp_", abcAlnum, "", 36, 255},
		{"github-token", "ghu_", abcAlnum, "", 36, 255},
		{"github-token", "ghs_", abcAlnum, "", 36, 255},
		{"github-token", "ghr_", abcAlnum, "", 36, 255},
		{"github-token", "github_pat_", abcAlnum + "_", "", 60, 0},
		{"gitlab-token", "glpat-", abcWord + ".", "", 20, 0},
		{"gitlab-token", "glagent-", abcWord, "", 20, 0},
		{"gitlab-token", "GR1348941", abcWord, "", 20, 0},
		{"slack-token", "xoxb-", abcAlnum + "-", "", 20, 0},
		{"slack-token", "xoxe.xoxp-", abcAlnum + "-", "", 20, 0},
		{"slack-token", "xapp-", abcAlnum + "-", "", 20, 0},
		{"npm-token", "npm_", abcAlnum, "", 36, 36},
		{"huggingface-token", "hf_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "", 34, 34},
		{"groq-api-key", "gsk_", abcAlnum, "", 52, 52},
		{"xai-api-key", "xai-", abcAlnum, "", 80, 80},
		{"stripe-key", "sk_live_", abcAlnum, "", 20, 0},
		{"stripe-key", "rk_prod_", abcAlnum, "", 20, 0},
		{"stripe-key", "sk_test_", abcAlnum, "", 20, 0},
	} {
		redacted := "[REDACTED:" + tc.rule + "]"
		ok := func(n int) string { return tc.prefix + body(tc.alphabet, n) + tc.suffix }
		check := func(text, want string) {
			t.Helper()
			if got := redactText(t, text); got != want {
				t.Errorf("%s: %q\ngot  %q\nwant %q", tc.rule, text, got, want)
			}
		}
		tok := ok(tc.min)
		check(tok, redacted)
		check("x "+tok, "x "+redacted)
		check(tok+" x", redacted+" x")
		check("a\n"+tok+"\tb", "a\n"+redacted+"\tb")
		if !strings.Contains(tc.prefix, ".") { // after a dot is a word's start
			check("x"+tok, "x"+tok) // inside a word
		}
		check("(\\n"+tok+")", "(\\n"+redacted+")")
		short := ok(tc.min - 1)
		if tc.rule == "openai-api-key" || strings.HasPrefix(tc.rule, "anthropic") || tc.rule == "openrouter-api-key" {
			// shorter keys of these forms may still be sk- keys of
			// another rule: only this rule must not take them
			if got := redactText(t, short); strings.Contains(got, redacted) {
				t.Errorf("%s: one short: %q", tc.rule, got)
			}
		} else {
			check(short, short)
		}
		if tc.max > 0 {
			check(ok(tc.max), redacted)
			long := ok(tc.max + 1)
			if got := redactText(t, long); strings.Contains(got, redacted) {
				t.Errorf("%s: one too long: %q", tc.rule, got)
			}
		} else {
			check(ok(tc.min+40), redacted)
		}
	}
}

// The forms with more than a prefix and a length.
func TestTokenForms(t *testing.T) {
	for text, want := range map[string]string{
		// Anthropic's kinds: 2 to 8 lowercase letters and two digits.
		"sk-ant-a01-" + body(abcWord, 40):         "sk-ant-a01-" + body(abcWord, 40),
		"sk-ant-abcdefghi01-" + body(abcWord, 40): "sk-ant-abcdefghi01-" + body(abcWord, 40),
		"sk-ant-api3-" + body(abcWord, 40):        "sk-ant-api3-" + body(abcWord, 40),
		"sk-ant-api03" + body(abcWord, 40):        "sk-ant-api03" + body(abcWord, 40),
		"sk-ant-api03-" + body(abcWord, 31):       "sk-ant-api03-" + body(abcWord, 31),
		"sk-ant-api0":                             "sk-ant-api0",
		// OpenAI's older keys: T3BlbkFJ inside 40 or more.
		"sk-" + body(abcAlnum, 20) + "T3BlbkFJ" + body(abcAlnum, 20): "[REDACTED:openai-api-key]",
		"sk-" + body(abcAlnum, 20) + "T3BlbkFJ" + body(abcAlnum, 11): "[REDACTED:sk-api-key]",
		"sk-" + body(abcAlnum, 20) + "T3BlbkFJ" + body(abcAlnum, 3):  "sk-" + body(abcAlnum, 20) + "T3BlbkFJ" + body(abcAlnum, 3),
		"sk-" + body(abcAlnum, 44):                                   "[REDACTED:sk-api-key]",
		// DeepSeek: lowercase hex only; other sk- keys need a digit, and
		// end the word.
		"sk-" + strings.Repeat("A", 32):         "sk-" + strings.Repeat("A", 32),
		"sk-" + strings.Repeat("gh", 16):        "sk-" + strings.Repeat("gh", 16),
		"sk-" + strings.Repeat("a1", 20) + "-x": "sk-" + strings.Repeat("a1", 20) + "-x",
		"sk-" + strings.Repeat("a1", 20) + "_x": "sk-" + strings.Repeat("a1", 20) + "_x",
		"sk-" + strings.Repeat("a1", 20) + ".":  "[REDACTED:sk-api-key].",
		"sk-" + strings.Repeat("aB", 16):        "sk-" + strings.Repeat("aB", 16),
		"sk" + strings.Repeat("a1", 20):         "sk" + strings.Repeat("a1", 20),
		"sk_" + strings.Repeat("a1", 20):        "sk_" + strings.Repeat("a1", 20),
		"sk_live" + strings.Repeat("a1", 20):    "sk_live" + strings.Repeat("a1", 20),
		"rk-live_" + strings.Repeat("a1", 20):   "rk-live_" + strings.Repeat("a1", 20),
		"sk_live_" + strings.Repeat("a1", 9):    "sk_live_" + strings.Repeat("a1", 9),
		// AWS key ids: base32 after the prefix, 20 in all.
		"AKIA" + strings.Repeat("A", 15) + "1": "AKIA" + strings.Repeat("A", 15) + "1",
		"AKIA" + strings.Repeat("A", 15) + "a": "AKIA" + strings.Repeat("A", 15) + "a",
		"A3Tx" + strings.Repeat("A", 16):       "A3Tx" + strings.Repeat("A", 16),
		"A3T9" + strings.Repeat("A", 16):       "[REDACTED:aws-access-key-id]",
		"A3" + strings.Repeat("A", 18):         "A3" + strings.Repeat("A", 18),
		"AKIB" + strings.Repeat("A", 16):       "AKIB" + strings.Repeat("A", 16),
		"AKIA" + strings.Repeat("A", 16) + "=": "[REDACTED:aws-access-key-id]=",
		"AIza" + body(abcWord, 35) + "x":       "AIza" + body(abcWord, 35) + "x",
		// GitHub: the prefixes there are.
		"ghx_" + body(abcAlnum, 36):       "ghx_" + body(abcAlnum, 36),
		"gho-" + body(abcAlnum, 36):       "gho-" + body(abcAlnum, 36),
		"gh" + body(abcAlnum, 36):         "gh" + body(abcAlnum, 36),
		"github_pat" + body(abcAlnum, 80): "github_pat" + body(abcAlnum, 80),
		"gxp_" + body(abcAlnum, 36):       "gxp_" + body(abcAlnum, 36),
		// GitLab: a sentence's dot is not the token's.
		"use glpat-" + body(abcAlnum, 20) + ".":       "use [REDACTED:gitlab-token].",
		"use glpat-" + body(abcAlnum, 20) + "...":     "use [REDACTED:gitlab-token]...",
		"use glpat-" + body(abcAlnum, 22) + ".01.ab.": "use [REDACTED:gitlab-token].",
		"glx-" + body(abcAlnum, 30):                   "glx-" + body(abcAlnum, 30),
		// Slack: the kinds there are.
		"xoxz-" + body(abcAlnum, 30):      "xoxz-" + body(abcAlnum, 30),
		"xoxb_" + body(abcAlnum, 30):      "xoxb_" + body(abcAlnum, 30),
		"xoxe.xoxz-" + body(abcAlnum, 30): "xoxe.xoxz-" + body(abcAlnum, 30),
		"xoxe.xoxb" + body(abcAlnum, 30):  "xoxe.xoxb" + body(abcAlnum, 30),
		"xox":                             "xox",
		"xoxb":                            "xoxb",
		"xoxb-" + body(abcAlnum, 19):      "xoxb-" + body(abcAlnum, 19),
		"xapp-" + body(abcAlnum, 19):      "xapp-" + body(abcAlnum, 19),
		// Slack's webhooks: the path only, 20 or more.
		"https://hooks.slack.com/workflows/" + body(abcAlnum, 20): "https://hooks.slack.com/workflows/[REDACTED:slack-webhook-url]",
		"https://hooks.slack.com/triggers/" + body(abcAlnum, 20):  "https://hooks.slack.com/triggers/[REDACTED:slack-webhook-url]",
		"https://hooks.slack.com/services/" + body(abcAlnum, 19):  "https://hooks.slack.com/services/" + body(abcAlnum, 19),
		"https://hooks.slack.com/other/" + body(abcAlnum, 30):     "https://hooks.slack.com/other/" + body(abcAlnum, 30),
		"hooks.slack.co/services/" + body(abcAlnum, 30):           "hooks.slack.co/services/" + body(abcAlnum, 30),
		// JWTs: two parts of 10 or more, the dots, padding.
		"eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 10) + ".sig":  "[REDACTED:jwt]",
		"eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 10) + ".":     "[REDACTED:jwt]",
		"eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 10) + ".s==x": "[REDACTED:jwt]x",
		"eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 10):           "eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 10),
		"eyJ" + body(abcWord, 9) + ".ey" + body(abcWord, 10) + ".s":     "eyJ" + body(abcWord, 9) + ".ey" + body(abcWord, 10) + ".s",
		"eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 9) + ".s":     "eyJ" + body(abcWord, 10) + ".ey" + body(abcWord, 9) + ".s",
		"eyJ" + body(abcWord, 10) + ".ex" + body(abcWord, 10) + ".s":    "eyJ" + body(abcWord, 10) + ".ex" + body(abcWord, 10) + ".s",
		"eyJ" + body(abcWord, 10) + ",ey" + body(abcWord, 10) + ".s":    "eyJ" + body(abcWord, 10) + ",ey" + body(abcWord, 10) + ".s",
		"eyA" + body(abcWord, 10) + ".ey" + body(abcWord, 10) + ".s":    "eyA" + body(abcWord, 10) + ".ey" + body(abcWord, 10) + ".s",
		"eyJ" + body(abcWord, 10) + ".e":                                "eyJ" + body(abcWord, 10) + ".e",
		"npm_" + body(abcAlnum, 36) + "_":                               "[REDACTED:npm-token]_",
		"npm_" + body(abcAlnum, 36) + "a":                               "npm_" + body(abcAlnum, 36) + "a",
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
}

func TestPEMForms(t *testing.T) {
	b64 := body(abcB64, 64)
	for text, want := range map[string]string{
		"-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\nx":                                    "[REDACTED:private-key]\nx",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + b64 + "\n-----END PGP PRIVATE KEY BLOCK-----":                   "[REDACTED:private-key]",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----\r\n" + b64 + "\r\n":                                                  "[REDACTED:private-key]\r\n",
		"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0F\n\n" + b64 + "\nok then": "[REDACTED:private-key]\nok then",
		"-----BEGIN RSA PRIVATE KEY-----\\n" + b64 + "\\n" + b64 + "\\nthe end":                                     "[REDACTED:private-key]\\nthe end",
		"-----BEGIN RSA PRIVATE KEY-----\n" + b64 + "\n-----END " + strings.Repeat("A", 101) + "-----":              "[REDACTED:private-key]\n-----END " + strings.Repeat("A", 101) + "-----",
		"-----BEGIN RSA PRIVATE KEY-----\n" + b64 + "\n-----END " + strings.Repeat("A", 95) + "-----":               "[REDACTED:private-key]",
		"key: '-----BEGIN RSA PRIVATE KEY-----\n" + b64 + "\n" + body(abcB64, 20) + "'":                             "key: '[REDACTED:private-key]'",
		"-----BEGIN RSA PUBLIC KEY-----\n" + b64:                                                                    "-----BEGIN RSA PUBLIC KEY-----\n" + b64,
		"-----BEGIN RSA PRIVATE KEY----\n" + b64:                                                                    "-----BEGIN RSA PRIVATE KEY----\n" + b64,
		"-----BEGIN " + strings.Repeat("A", 101) + " PRIVATE KEY-----\n" + b64:                                      "-----BEGIN " + strings.Repeat("A", 101) + " PRIVATE KEY-----\n" + b64,
		"-----BEGIN private key-----\n" + b64:                                                                       "-----BEGIN private key-----\n" + b64,
		"-----BEGINRSA PRIVATE KEY-----\n" + b64:                                                                    "-----BEGINRSA PRIVATE KEY-----\n" + b64,
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
}

// NAME=value, NAME: value and --NAME value at their edges.
func TestAssignmentForms(t *testing.T) {
	const v = "s3cr3t-value"
	const r = "[REDACTED:secret-assignment]"
	for text, want := range map[string]string{
		"password=" + v:                                   "password=" + r,
		"password =    " + v:                              "password =    " + r,
		"password     = " + v:                             "password     = " + v, // five spaces: no NAME
		"password=     " + v:                              "password=     " + v,  // five spaces: no value
		"password\t=\t" + v:                               "password\t=\t" + r,
		`"password" = "` + v + `"`:                        `"password" = "` + r + `"`,
		`'password'='` + v + `'`:                          `'password'='` + r + `'`,
		`\"password\":\"` + v + `\"`:                      `\"password\":\"` + r + `\"`,
		"password=\"" + v:                                 "password=\"" + v, // no closing quote
		"password=\"" + v + "\nx\"":                       "password=\"" + v + "\nx\"",
		"password=\"two words here\"":                     "password=\"" + r + "\"",
		"password: \"two words here\"":                    "password: \"two words here\"",
		"password == " + v:                                "password == " + v,
		"password != " + v:                                "password != " + v,
		"password <= " + v:                                "password <= " + v,
		"password >= " + v:                                "password >= " + v,
		"x=password=" + v:                                 "x=password=" + r,
		"password := \"" + v + "\"":                       "password := \"" + r + "\"",
		"password: abcdefg1":                              "password: " + r,
		"password: abcdef1":                               "password: abcdef1",
		"password: abcdefghijklmnop":                      "password: " + r,
		"password: abcdefghijklmno":                       "password: abcdefghijklmno",
		"password=abcdef":                                 "password=" + r,
		"password=abcde":                                  "password=abcde",
		"password=" + v + ",next":                         "password=" + r + ",next",
		"?password=" + v + "&x=1":                         "?password=" + r + "&x=1",
		"password=" + v + ";":                             "password=" + r + ";",
		"password=" + v + ")":                             "password=" + r + ")",
		"password=" + v + "}":                             "password=" + r + "}",
		"password=" + v + "]":                             "password=" + r + "]",
		"password=" + v + "<":                             "password=" + r + "<",
		"password=" + v + ">":                             "password=" + r + ">",
		"password=" + v + "`":                             "password=" + r + "`",
		"password=" + v + "\\n":                           "password=" + r + "\\n",
		"password=" + v + "\r":                            "password=" + r + "\r",
		"password=":                                       "password=",
		"password= ":                                      "password= ",
		strings.Repeat("a", 60) + "_password=" + v:        strings.Repeat("a", 60) + "_password=" + v,
		strings.Repeat("a", 55) + "_password=" + v:        strings.Repeat("a", 55) + "_password=" + r,
		"--password " + v:                                 "--password " + r,
		"--password  " + v:                                "--password  " + r,
		"--password --verbose":                            "--password --verbose",
		"--password":                                      "--password",
		"--password=" + v:                                 "--password=" + r,
		"x--password " + v:                                "x--password " + v,
		"--" + strings.Repeat("a", 60) + "_password " + v: "--" + strings.Repeat("a", 60) + "_password " + v,
		"--pass-word " + v:                                "--pass-word " + v,
		"--db-pass " + v:                                  "--db-pass " + r,
		"--api_key " + v:                                  "--api_key " + r,
		"--api-key\t" + v:                                 "--api-key\t" + v,
		"-- password " + v:                                "-- password " + v,
		"aws_secret_access_key=" + body(abcB64, 40):       "aws_secret_access_key=[REDACTED:aws-secret-access-key]",
		"aws_secret_access_key=" + body(abcB64, 39):       "aws_secret_access_key=" + r,
		"aws_secret_access_key=" + body(abcB64, 41):       "aws_secret_access_key=" + r,
		"AWS_SECRET=" + body(abcB64, 40):                  "AWS_SECRET=[REDACTED:aws-secret-access-key]",
		"awsSecretKey=" + body(abcB64, 40):                "awsSecretKey=[REDACTED:aws-secret-access-key]",
		"secret=" + body(abcB64, 40):                      "secret=" + r,
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
}

func TestAuthorizationForms(t *testing.T) {
	const r = "[REDACTED:authorization-header]"
	for text, want := range map[string]string{
		"Authorization: Bearer abcdefgh":                                          "Authorization: Bearer " + r,
		"Authorization: Bearer abcdefg":                                           "Authorization: Bearer abcdefg",
		"Authorization: Bearer  \tabcdefgh":                                       "Authorization: Bearer  \t" + r,
		"Authorization: bearer ********":                                          "Authorization: bearer ********",
		"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/x, Signature=abc": "Authorization: AWS4-HMAC-SHA256 " + r + ", Signature=abc",
		"Authorization: Unknown abcdefgh1":                                        "Authorization: Unknown abcdefgh1",
		"Authorization: Unknown1 abcdefgh1":                                       "Authorization: " + r + " abcdefgh1",
		"Authorization: abcdefgh1":                                                "Authorization: " + r,
		"Authorization: abcdefgh":                                                 "Authorization: abcdefgh",
		"Authorization: Bearer":                                                   "Authorization: Bearer",
		"authorization=Basic dXNlcjpwYXNz":                                        "authorization=Basic " + r,
		"Proxy-Authorization: Basic dXNlcjpwYXNz":                                 "Proxy-Authorization: Basic " + r,
		"Authorization: ABCDEFGHIJKLMNOPQRSTUVWXY abcdefgh1":                      "Authorization: " + r + " abcdefgh1",
		"Authorization: ABCDEFGHIJKLMNOPQRSTUVWX abcdefgh1":                       "Authorization: " + r + " abcdefgh1",
		"Authorization: Bearer abcdefgh\"":                                        "Authorization: Bearer " + r + "\"",
		"\"Authorization\": \"Bearer abcdefgh\"":                                  "\"Authorization\": \"Bearer " + r + "\"",
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
}

func TestURLForms(t *testing.T) {
	const r = "[REDACTED:url-credentials]"
	for text, want := range map[string]string{
		"https://u:pw@h/x":     "https://u:" + r + "@h/x",
		"https://u:p@w@h/x":    "https://u:" + r + "@h/x",
		"https://u:pw@h?x=@y":  "https://u:" + r + "@h?x=@y",
		"https://u:pw@h#@y":    "https://u:" + r + "@h#@y",
		"https://u:pw@h @y":    "https://u:" + r + "@h @y",
		"https://u:pw@h\t@y":   "https://u:" + r + "@h\t@y",
		"https://u:pw@h\n@y":   "https://u:" + r + "@h\n@y",
		"https://u:pw@h\r@y":   "https://u:" + r + "@h\r@y",
		"'https://u:pw@h'@y":   "'https://u:" + r + "@h'@y",
		"\"https://u:pw@h\"@y": "\"https://u:" + r + "@h\"@y",
		"<https://u:pw@h>@y":   "<https://u:" + r + "@h>@y",
		"`https://u:pw@h`@y":   "`https://u:" + r + "@h`@y",
		"https://u:pw@h\\@y":   "https://u:" + r + "@h\\@y",
		"https://u@h/x":        "https://u@h/x",
		"https://u:@h/x":       "https://u:@h/x",
		"https://u:$PW@h/x":    "https://u:$PW@h/x",
		"://u:pw@h/x":          "://u:pw@h/x",
		" ://u:pw@h/x":         " ://u:pw@h/x",
		"https:/u:pw@h/x":      "https:/u:pw@h/x",
		"https://" + strings.Repeat("u", 520) + ":pw@h": "https://" + strings.Repeat("u", 520) + ":pw@h",
		"https://" + strings.Repeat("u", 500) + ":pw@h": "https://" + strings.Repeat("u", 500) + ":" + r + "@h",
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for _, v := range []string{"$TOKEN1", "<token1>", "{{tok1}}", "%(tok)s1", "*******1", "[REDACTED:x]", "./secret.pem", "../secret.pem", "~/secret.pem", "xxxxxxxx", "XXXXxxxx", "undefined", "REDACTED", "Nil", "NONE", "False"} {
		if placeholder([]byte(v)) != true {
			t.Errorf("%q is a placeholder", v)
		}
	}
	for _, v := range []string{"s3cr3t-1", "xxxxxxxy", "nullable", "truest", ".hidden1", "/etc/x1", "undefined1"} {
		if placeholder([]byte(v)) {
			t.Errorf("%q is no placeholder", v)
		}
	}
	if !placeholder(nil) {
		t.Error("an empty value is a placeholder")
	}
}

// Every buffer that held more than a megabyte is let go.
func TestBuffersLetGo(t *testing.T) {
	huge := `{"t":"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 \u0041` + strings.Repeat("x", 2<<20) + `"}` + "\n"
	var ws writes
	w := NewWriter(&ws, New())
	w.Write([]byte(huge[:100]))
	w.Write([]byte(huge[100:]))
	if pending := w.join.Rest(); pending != nil || w.out != nil || w.r.buf != nil || w.r.tmp != nil {
		t.Errorf("kept: pending %d, out %d, buf %d, tmp %d", cap(pending), cap(w.out), cap(w.r.buf), cap(w.r.tmp))
	}
	if got := ws.all(); !bytes.HasPrefix(got, []byte(`{"t":"[REDACTED:github-token] A`)) || len(got) != 2<<20+len(`{"t":"[REDACTED:github-token] A"}`)+1 {
		t.Errorf("output %.60q (%d bytes)", got, len(got))
	}
	// A small line keeps them.
	w.Write([]byte(`{"t":"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 \u0041"}` + "\n"))
	if w.r.buf == nil || w.r.tmp == nil || w.out == nil {
		t.Error("small buffers let go")
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// More edges that mutation testing found untested.
func TestMoreEdges(t *testing.T) {
	b64 := body(abcB64, 64)
	begin := "-----BEGIN RSA PRIVATE KEY-----\n" + b64 + "\n"
	for text, want := range map[string]string{
		// a key cut short: its last line is taken when it ends the
		// string, or when it is 16 or more and a quote ends it
		begin + body(abcAlnum, 16):               "[REDACTED:private-key]",
		begin + body(abcAlnum, 15):               "[REDACTED:private-key]",
		"'" + begin + body(abcAlnum, 15) + "'":   "'[REDACTED:private-key]\n" + body(abcAlnum, 15) + "'",
		"'" + begin + body(abcAlnum, 16) + "'":   "'[REDACTED:private-key]'",
		"\"" + begin + body(abcAlnum, 16) + "\"": "\"[REDACTED:private-key]\"",
		begin + body(abcAlnum, 16) + ",":         "[REDACTED:private-key]\n" + body(abcAlnum, 16) + ",",
		// the label: up to 101 characters, with _ - and digits
		"-----BEGIN " + strings.Repeat("A", 89) + " PRIVATE KEY-----\n" + b64: "[REDACTED:private-key]",
		"-----BEGIN " + strings.Repeat("A", 90) + " PRIVATE KEY-----\n" + b64: "-----BEGIN " + strings.Repeat("A", 90) + " PRIVATE KEY-----\n" + b64,
		"-----BEGIN X-Y_9 PRIVATE KEY-----\n" + b64:                           "[REDACTED:private-key]",
		"-----BEGIN X-----Y PRIVATE KEY-----\n" + b64:                         "-----BEGIN X-----Y PRIVATE KEY-----\n" + b64,
		// Anthropic's kinds of two letters; a key cut at its kind
		"sk-ant-ab01-" + body(abcWord, 40):  "[REDACTED:anthropic-api-key]",
		"sk-ant-api01":                      "sk-ant-api01",
		"sk-ant-api0x-" + body(abcWord, 40): "sk-ant-api0x-" + body(abcWord, 40),
		"sk-ant-apix1-" + body(abcWord, 40): "sk-ant-apix1-" + body(abcWord, 40),
		// Slack's refresh form cut short
		"xoxe.xoxb":  "xoxe.xoxb",
		"xoxe.xoxb-": "xoxe.xoxb-",
		"xoxe.":      "xoxe.",
		// an escaped quote before a value
		`password=\'s3cret-value\'`: `password=\'[REDACTED:secret-assignment]\'`,
		`password=\"s3cret-value\"`: `password=\"[REDACTED:secret-assignment]\"`,
		`password=\`:                `password=\`,
		`password=\x3cret-value`:    `password=\x3cret-value`,
		// = at the start and the end of a string
		"=password":  "=password",
		"a password": "a password",
	} {
		if got := redactText(t, text); got != want {
			t.Errorf("%q\ngot  %q\nwant %q", text, got, want)
		}
	}
	// Space of every kind between a key, its colon and its value; a value
	// in an array is no member's.
	for _, ws := range []string{" ", "\t", "\r", "\n"} {
		line := `{"password"` + ws + `:` + ws + `"s3cret-pw-1"}`
		want := `{"password"` + ws + `:` + ws + `"[REDACTED:secret-assignment]"}`
		if out, _, _ := redactOne(t, line); out != want {
			t.Errorf("%q: %s", ws, out)
		}
	}
	for _, line := range []string{`{"password":["s3cret-pw-1"]}`, `{"password":{"x":"s3cret-pw-1"}}`, `{"password":1,"x":"s3cret-pw-1"}`, `["password","s3cret-pw-1"]`} {
		if out, changed, _ := redactOne(t, line); changed {
			t.Errorf("%s: %s", line, out)
		}
	}
}

// The first built-in rule's name is taken too; the end given to Output
// says its error; camel case splits before an A.
func TestFirstAndLast(t *testing.T) {
	if err := New().Load("r", []byte(Builtins[0].Name+"\tx")); err == nil {
		t.Errorf("%s taken as a new rule", Builtins[0].Name)
	}
	failed := errors.New("the pretty view failed")
	f := Flags{Redact: true}
	_, end, err := f.Output("evfilter", io.Discard, func() error { return failed }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := end(); err != failed {
		t.Errorf("end: %v", err)
	}
	for name, want := range map[string]nameKind{"dataApiKey": secretName, "dataAbcKey": notSecret, "XAPIKEY": notSecret} {
		if got := classify([]byte(name)); got != want {
			t.Errorf("classify(%q) = %d, want %d", name, got, want)
		}
	}
}
