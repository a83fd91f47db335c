package redact

import "bytes"

// The built-in rules, in the order docs/redaction.md lists them. A rule's
// number is its index here; rules added from a file come after.
const (
	ruleAnthropicAdmin = iota
	ruleAnthropic
	ruleOpenAI
	ruleOpenRouter
	ruleDeepSeek
	ruleSK
	ruleGoogle
	ruleGoogleOAuth
	ruleAWSKeyID
	ruleAWSSecret
	ruleGitHub
	ruleGitLab
	ruleSlack
	ruleSlackWebhook
	ruleNPM
	ruleHuggingFace
	ruleGroq
	ruleXAI
	ruleStripe
	ruleJWT
	rulePrivateKey
	ruleAuthorization
	ruleURLCredentials
	ruleAssignment
	numBuiltin
)

// Builtin describes a built-in rule for people: its name, as it appears in
// [REDACTED:NAME] and in the counts, and what it matches.
type Builtin struct {
	Name, Matches string
}

// Builtins are the built-in rules, in the order they are tried.
var Builtins = [numBuiltin]Builtin{
	ruleAnthropicAdmin: {"anthropic-admin-api-key", "sk-ant-admin01- and 32 or more of A-Z a-z 0-9 _ -"},
	ruleAnthropic:      {"anthropic-api-key", "sk-ant-, a kind such as api03 or oat01, -, and 32 or more of A-Z a-z 0-9 _ -"},
	ruleOpenAI:         {"openai-api-key", "sk-proj-, sk-svcacct-, sk-admin- or sk-None- and 32 or more of A-Z a-z 0-9 _ -; or the older sk- keys with T3BlbkFJ inside"},
	ruleOpenRouter:     {"openrouter-api-key", "sk-or-v1- and 32 or more hex digits"},
	ruleDeepSeek:       {"deepseek-api-key", "sk- and exactly 32 lowercase hex digits (DashScope's keys have the same form)"},
	ruleSK:             {"sk-api-key", "sk- and 32 or more letters and digits, at least one a digit: the keys of other OpenAI-style providers (Moonshot, ...)"},
	ruleGoogle:         {"google-api-key", "AIza and exactly 35 of A-Z a-z 0-9 _ -"},
	ruleGoogleOAuth:    {"google-oauth-client-secret", "GOCSPX- and 24 or more of A-Z a-z 0-9 _ -"},
	ruleAWSKeyID:       {"aws-access-key-id", "AKIA, ASIA, ABIA, ACCA or A3T plus one, and 16 of A-Z 2-7: 20 characters in all"},
	ruleAWSSecret:      {"aws-secret-access-key", "40 of A-Z a-z 0-9 / + given to a NAME such as aws_secret_access_key or SecretAccessKey"},
	ruleGitHub:         {"github-token", "ghp_, gho_, ghu_, ghs_ or ghr_ and 36 to 255 letters and digits; github_pat_ and 60 or more of A-Z a-z 0-9 _"},
	ruleGitLab:         {"gitlab-token", "glpat-, gldt-, glptt-, glrt-, glcbt-, glimt-, glft-, glffct-, glsoat-, gloas-, glagent- or GR1348941 and 20 or more of A-Z a-z 0-9 _ . -"},
	ruleSlack:          {"slack-token", "xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxe-, xoxr-, xoxe.xoxb-, xoxe.xoxp- or xapp- and 20 or more of A-Z a-z 0-9 -"},
	ruleSlackWebhook:   {"slack-webhook-url", "the path after hooks.slack.com/services/ (or workflows/, triggers/): 20 or more of A-Z a-z 0-9 + / _ -"},
	ruleNPM:            {"npm-token", "npm_ and exactly 36 letters and digits"},
	ruleHuggingFace:    {"huggingface-token", "hf_ and exactly 34 letters"},
	ruleGroq:           {"groq-api-key", "gsk_ and exactly 52 letters and digits"},
	ruleXAI:            {"xai-api-key", "xai- and exactly 80 letters and digits"},
	ruleStripe:         {"stripe-key", "sk_ or rk_, then live_, test_ or prod_, and 20 or more letters and digits"},
	ruleJWT:            {"jwt", "a JSON Web Token: eyJ and 10 or more of A-Z a-z 0-9 _ -, a dot, ey and 10 or more, a dot, and the signature"},
	rulePrivateKey:     {"private-key", "a PEM block from -----BEGIN ... PRIVATE KEY----- to its -----END ... PRIVATE KEY----- line (or, cut short, to the last line of base64)"},
	ruleAuthorization:  {"authorization-header", "the credential of Authorization: or Proxy-Authorization: (after Bearer, Basic, token, ... when there is one), as a header, NAME=value or a JSON member"},
	ruleURLCredentials: {"url-credentials", "the password of scheme://user:password@host"},
	ruleAssignment:     {"secret-assignment", "the value of NAME=value, NAME: value, --NAME value or a JSON member, where NAME says secret, token, password or key (see the rule's text)"},
}

// Byte classes of token bodies.
type class [256]bool

func classOf(s string) (c class) {
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i+1] == '-' { // a range: a-z
			for b := s[i]; b <= s[i+2]; b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[s[i]] = true
	}
	return c
}

var (
	alnum     = classOf("A-Za-z0-9")
	word      = classOf("A-Za-z0-9_-")   // base64url
	wordDot   = classOf("A-Za-z0-9_.-")  // GitLab's newer tokens
	alnumDash = classOf("A-Za-z0-9-")    // Slack
	alnumUnd  = classOf("A-Za-z0-9_")    // GitHub's fine-grained tokens
	hexLower  = classOf("0-9a-f")        // DeepSeek, OpenRouter
	letters   = classOf("A-Za-z")        // Hugging Face
	base32    = classOf("A-Z2-7")        // AWS key ids
	webhook   = classOf("A-Za-z0-9+/_-") // Slack's webhook paths
	base64    = classOf("A-Za-z0-9+/=")  // PEM bodies, AWS secrets (with =)
	awsSecret = classOf("A-Za-z0-9+/")   // AWS secret access keys
	nameChars = classOf("A-Za-z0-9_.-")  // NAME in NAME=value
	digits    = classOf("0-9")
)

// span is the run of c's bytes in s from i: its end.
func span(s []byte, i int, c *class) int {
	for i < len(s) && c[s[i]] {
		i++
	}
	return i
}

func contains(c *class, s []byte) bool {
	for _, b := range s {
		if c[b] {
			return true
		}
	}
	return false
}

// hasPrefixAt reports whether s[i:] starts with p.
func hasPrefixAt(s []byte, i int, p string) bool {
	return len(s)-i >= len(p) && string(s[i:i+len(p)]) == p
}

// token reports a token of rule at s[i:]: prefix p, then a body of c's
// bytes of length min to max (0: no limit) that the next byte does not
// continue. It returns the token's end, or -1.
func token(s []byte, i int, p string, c *class, min, max int) int {
	if !hasPrefixAt(s, i, p) {
		return -1
	}
	b := i + len(p)
	e := span(s, b, c)
	if n := e - b; n < min || max > 0 && n > max {
		return -1
	}
	return e
}

// tokenAt reports the built-in token that starts at s[i] (the start of a
// word: find and at see to it, so that sk- in "task-..." is no key), as its
// rule and end; ok is false when there is none. The first byte says
// which rules to try, so that most bytes cost one table look-up.
func (r *Redactor) tokenAt(s []byte, i int) (rule, end int, ok bool) {
	var rules []tokenRule
	switch s[i] {
	case 's':
		rules = skRules(s, i)
	case 'g':
		rules = gRules(s, i)
	default:
		rules = tokenRules[s[i]]
	}
	for _, t := range rules {
		if e := t.match(s, i); e >= 0 && !r.off[t.rule] {
			return t.rule, e, true
		}
	}
	return 0, 0, false
}

// tokenRule is a built-in rule that a token gives away by itself, and
// the function that finds one at s[i]: its end, or -1.
type tokenRule struct {
	rule  int
	match func(s []byte, i int) int
}

// tokenRules are the token rules by the first byte of their tokens, each
// list in the order its rules are tried: a key that fits two rules is the
// first's. The rules of 's' and 'g' are skRules' and gRules'.
var tokenRules = [256][]tokenRule{
	'r': {{ruleStripe, stripe}},
	'A': {
		{ruleGoogle, func(s []byte, i int) int { return token(s, i, "AIza", &word, 35, 35) }},
		{ruleAWSKeyID, awsKeyID},
	},
	'G': {
		{ruleGoogleOAuth, func(s []byte, i int) int { return token(s, i, "GOCSPX-", &word, 24, 0) }},
		{ruleGitLab, func(s []byte, i int) int { return token(s, i, "GR1348941", &wordDot, 20, 0) }},
	},
	'x': {
		{ruleSlack, slack},
		{ruleXAI, func(s []byte, i int) int { return token(s, i, "xai-", &alnum, 80, 80) }},
	},
	'n': {{ruleNPM, func(s []byte, i int) int { return token(s, i, "npm_", &alnum, 36, 36) }}},
	'h': {{ruleHuggingFace, func(s []byte, i int) int { return token(s, i, "hf_", &letters, 34, 34) }}},
	'e': {{ruleJWT, jwt}},
}

// skRules picks the rules of a token at s[i] that starts with 's' by its
// third byte: Stripe's keys are sk_, the others sk-, and none is shorter
// than 12 bytes, so that the many words starting with sk cost little.
func skRules(s []byte, i int) []tokenRule {
	if !hasPrefixAt(s, i, "sk") || len(s)-i < 12 {
		return nil
	}
	switch s[i+2] {
	case '_':
		return stripeRules
	case '-':
		return skDashRules
	}
	return nil
}

// gRules picks the rules of a token at s[i] that starts with 'g' by its
// second byte; none is shorter than 8 bytes.
func gRules(s []byte, i int) []tokenRule {
	if len(s)-i < 8 {
		return nil
	}
	switch s[i+1] {
	case 'h', 'i':
		return gitHubRules
	case 'l':
		return gitLabRules
	case 's':
		return groqRules
	}
	return nil
}

var (
	gitHubRules = []tokenRule{{ruleGitHub, gitHub}}
	gitLabRules = []tokenRule{{ruleGitLab, gitLab}}
	groqRules   = []tokenRule{{ruleGroq, func(s []byte, i int) int { return token(s, i, "gsk_", &alnum, 52, 52) }}}
	stripeRules = []tokenRule{{ruleStripe, stripe}}
	skDashRules = []tokenRule{
		{ruleAnthropicAdmin, func(s []byte, i int) int { return token(s, i, "sk-ant-admin01-", &word, 32, 0) }},
		{ruleAnthropic, anthropic},
		{ruleOpenAI, openAI},
		{ruleOpenRouter, func(s []byte, i int) int { return token(s, i, "sk-or-v1-", &hexLower, 32, 0) }},
		{ruleDeepSeek, deepSeek},
		{ruleSK, otherSK},
	}
)

// deepSeek: sk- and exactly 32 lowercase hex digits.
func deepSeek(s []byte, i int) int {
	if e := token(s, i, "sk-", &alnum, 32, 32); e >= 0 && !contains(&notHexLower, s[i+3:e]) {
		return e
	}
	return -1
}

// otherSK: sk- and 32 or more letters and digits, at least one a digit,
// that no other byte of a word follows.
func otherSK(s []byte, i int) int {
	if e := token(s, i, "sk-", &alnum, 32, 0); e >= 0 && (e == len(s) || !word[s[e]]) && contains(&digits, s[i+3:e]) {
		return e
	}
	return -1
}

var notHexLower = func() (c class) {
	for b := range c {
		c[b] = !hexLower[b]
	}
	return c
}()

func stripe(s []byte, i int) int {
	for _, p := range [...]string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"} {
		if e := token(s, i, p, &alnum, 20, 0); e >= 0 {
			return e
		}
	}
	return -1
}

// anthropic: sk-ant-KIND00- and the key, KIND being a few lowercase
// letters (api, oat, sid, ...) and two digits.
func anthropic(s []byte, i int) int {
	if !hasPrefixAt(s, i, "sk-ant-") {
		return -1
	}
	j := i + 7
	k := j
	for k < len(s) && s[k] >= 'a' && s[k] <= 'z' {
		k++
	}
	if k-j < 2 || k-j > 8 || len(s)-k < 3 || !digits[s[k]] || !digits[s[k+1]] || s[k+2] != '-' {
		return -1
	}
	b := k + 3
	if e := span(s, b, &word); e-b >= 32 {
		return e
	}
	return -1
}

func openAI(s []byte, i int) int {
	for _, p := range [...]string{"sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"} {
		if e := token(s, i, p, &word, 32, 0); e >= 0 {
			return e
		}
	}
	// The older keys: sk-, 20 characters, T3BlbkFJ ("OpenAI" in base64), 20.
	e := span(s, i+3, &alnum)
	if e-i-3 >= 40 && bytes.Contains(s[i+3:e], []byte("T3BlbkFJ")) {
		return e
	}
	return -1
}

// awsKeyID: a four-character prefix and 16 base32 characters, 20 in all,
// not part of a longer run of letters and digits.
func awsKeyID(s []byte, i int) int {
	if len(s)-i < 20 {
		return -1
	}
	switch string(s[i : i+4]) {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		if string(s[i:i+3]) != "A3T" || !alnum[s[i+3]] || s[i+3] >= 'a' {
			return -1
		}
	}
	if span(s, i+4, &base32) < i+20 || i+20 < len(s) && alnum[s[i+20]] {
		return -1
	}
	return i + 20
}

func gitHub(s []byte, i int) int {
	if e := token(s, i, "github_pat_", &alnumUnd, 60, 0); e >= 0 {
		return e
	}
	if len(s)-i < 4 || s[i+3] != '_' {
		return -1
	}
	switch s[i+2] {
	case 'p', 'o', 'u', 's', 'r':
		return token(s, i, string(s[i:i+4]), &alnum, 36, 255)
	}
	return -1
}

var gitLabPrefixes = [...]string{"glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "glft-", "glffct-", "glsoat-", "gloas-", "glagent-"}

func gitLab(s []byte, i int) int {
	for _, p := range gitLabPrefixes {
		if e := token(s, i, p, &wordDot, 20, 0); e >= 0 {
			// A token does not end with the dot of a sentence.
			for e > i+len(p)+20 && s[e-1] == '.' {
				e--
			}
			return e
		}
	}
	return -1
}

func slack(s []byte, i int) int {
	if hasPrefixAt(s, i, "xapp-") {
		return token(s, i, "xapp-", &alnumDash, 20, 0)
	}
	if !hasPrefixAt(s, i, "xox") || len(s)-i < 5 {
		return -1
	}
	j := i + 3
	if hasPrefixAt(s, j, "e.xox") && len(s)-j > 6 && (s[j+5] == 'b' || s[j+5] == 'p') {
		j += 5
	}
	switch s[j] {
	case 'a', 'b', 'e', 'o', 'p', 'r', 's':
	default:
		return -1
	}
	if j+1 >= len(s) || s[j+1] != '-' {
		return -1
	}
	b := j + 2
	if e := span(s, b, &alnumDash); e-b >= 20 {
		return e
	}
	return -1
}

// slackWebhook: hooks.slack.com/services/ and the path, which is the
// secret; the host stays readable. It returns the path's start and end,
// equal when there is none.
func slackWebhook(s []byte, i int) (int, int) {
	const host = "hooks.slack.com/"
	if !hasPrefixAt(s, i, host) {
		return 0, 0
	}
	j := i + len(host)
	for _, kind := range [...]string{"services/", "workflows/", "triggers/"} {
		if hasPrefixAt(s, j, kind) {
			b := j + len(kind)
			if e := span(s, b, &webhook); e-b >= 20 {
				return b, e
			}
		}
	}
	return 0, 0
}

// jwt: three base64url parts, the first two JSON objects (eyJ, ey).
func jwt(s []byte, i int) int {
	if !hasPrefixAt(s, i, "eyJ") {
		return -1
	}
	e := span(s, i, &word)
	if e-i < 13 || e+3 >= len(s) || s[e] != '.' || s[e+1] != 'e' || s[e+2] != 'y' {
		return -1
	}
	p := e + 1
	e = span(s, p, &word)
	if e-p < 12 || e >= len(s) || s[e] != '.' {
		return -1
	}
	e = span(s, e+1, &word)
	for e < len(s) && s[e] == '=' { // padding, which some write
		e++
	}
	return e
}

// privateKey: a PEM private key block that starts at s[i] ("-----BEGIN").
// noEnd is where a search for an END line found none, or -1: a text with
// many BEGIN lines and no END is not searched to its end for each.
func privateKey(s []byte, i int, noEnd *int) int {
	const begin = "-----BEGIN "
	if !hasPrefixAt(s, i, begin) {
		return -1
	}
	// The label: up to 100 bytes of A-Z 0-9 space _ -, ending with
	// PRIVATE KEY or PRIVATE KEY BLOCK, then -----.
	j := i + len(begin)
	k := j
	for k < len(s) && k-j <= 100 && (s[k] >= 'A' && s[k] <= 'Z' || digits[s[k]] || s[k] == ' ' || s[k] == '_' || s[k] == '-' && !hasPrefixAt(s, k, "-----")) {
		k++
	}
	label := s[j:k]
	if !hasPrefixAt(s, k, "-----") || !(bytes.HasSuffix(label, []byte("PRIVATE KEY")) || bytes.HasSuffix(label, []byte("PRIVATE KEY BLOCK"))) {
		return -1
	}
	body := k + 5
	if *noEnd < 0 || body < *noEnd {
		end := bytes.Index(s[body:], []byte("-----END "))
		if end < 0 {
			*noEnd = body
		} else {
			e := body + end + len("-----END ")
			if f := bytes.Index(s[e:], []byte("-----")); f >= 0 && f <= 100 {
				return e + f + 5
			}
		}
	}
	// Cut short (head -5 id_rsa): the lines of base64 and headers that
	// follow, up to the first that is neither.
	return pemTail(s, body)
}

// pemTail returns the end of the base64 lines (and Proc-Type:, DEK-Info:
// and Comment: headers) from s[i], a line end written as a newline or as
// the two characters \n.
func pemTail(s []byte, i int) int {
	end := i
	for i < len(s) {
		// one line end
		switch {
		case s[i] == '\r' || s[i] == '\n':
			i++
			continue
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r'):
			i += 2
			continue
		}
		if hasPrefixAt(s, i, "Proc-Type:") || hasPrefixAt(s, i, "DEK-Info:") || hasPrefixAt(s, i, "Comment:") {
			for i < len(s) && s[i] != '\n' && s[i] != '\r' && s[i] != '\\' {
				i++
			}
			end = i
			continue
		}
		e := span(s, i, &base64)
		if e == i || e < len(s) && !(s[e] == '\n' || s[e] == '\r' || s[e] == '\\') {
			if e-i >= 16 && (s[e] == '"' || s[e] == '\'') {
				end = e // the last line, closed by a quote
			}
			break
		}
		i, end = e, e
	}
	return end
}
