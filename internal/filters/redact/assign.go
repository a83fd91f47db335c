package redact

import "bytes"

// The rules that read a NAME before the value: NAME=value, NAME: value,
// --NAME value, and a JSON member whose key is the NAME. What NAME says
// decides the rule (nameKind); the value must then look like a secret.

type nameKind uint8

const (
	notSecret  nameKind = iota
	secretName          // says secret, token, password or key
	awsName             // aws_secret_access_key, SecretAccessKey, ...
	authName            // Authorization, Proxy-Authorization
)

// maxName is the longest NAME read; a longer run of name characters
// (base64, a hash) is no name.
const maxName = 64

// The words that make a NAME say secret when they end it, and the ones
// that, before "key", "token" or "pass", make it say so or not. Switches,
// not maps: classify runs at every '=' and ':' of the text.

func secretLast(w string) bool {
	switch w {
	case "secret", "secrets", "password", "passwd", "pwd", "passphrase", "apikey",
		"credential", "credentials", "privatekey", "secretkey", "accesskey",
		"authtoken", "accesstoken", "refreshtoken", "apitoken":
		return true
	}
	return false
}

func keyQualifier(w string) bool {
	switch w {
	case "api", "secret", "private", "access", "auth", "client", "encryption", "enc",
		"signing", "master", "app", "session", "license", "account", "admin", "service",
		"webhook", "deploy", "consumer", "subscription", "storage", "shared", "hmac", "jwt":
		return true
	}
	return false
}

// tokenNotSecret: a token that is no credential: a pagination cursor, or
// one of a language model's (eos_token; max_tokens is plural, never read).
func tokenNotSecret(w string) bool {
	switch w {
	case "next", "page", "continuation", "cursor", "sync", "eos", "bos", "pad", "unk",
		"sep", "cls", "mask", "start", "end", "stop", "special", "max", "num", "total",
		"input", "output", "prompt", "completion", "cached", "reasoning", "last":
		return true
	}
	return false
}

func passNotSecret(w string) bool {
	switch w {
	case "first", "second", "third", "last", "next", "final", "single", "multi", "one",
		"two", "by", "test", "tests", "all", "dry":
		return true
	}
	return false
}

// classify says what a NAME is. It splits NAME into words at anything
// but letters and digits and where the case goes from lower to upper
// (apiKey, APIKey: api, key), and reads the last two.
func classify(name []byte) nameKind {
	n := len(name)
	if n < 3 || n > maxName {
		return notSecret
	}
	// A quick look at the last two letters: most names end otherwise
	// (key, token, secret, password, passwd, pass, secrets, passphrase,
	// credential, credentials, authorization).
	switch uint16(name[n-2]|0x20)<<8 | uint16(name[n-1]|0x20) {
	case 'e'<<8 | 'y', 'e'<<8 | 'n', 'e'<<8 | 't', 'r'<<8 | 'd', 'w'<<8 | 'd',
		's'<<8 | 's', 't'<<8 | 's', 's'<<8 | 'e', 'a'<<8 | 'l', 'l'<<8 | 's', 'o'<<8 | 'n':
	default:
		return notSecret
	}
	ls, le := wordBefore(name, n)
	if ls < 0 {
		return notSecret
	}
	var lb, pb [maxName]byte
	l := lower(lb[:0], name[ls:le])
	var p []byte
	if ps, pe := wordBefore(name, ls); ps >= 0 {
		p = lower(pb[:0], name[ps:pe])
	}
	switch {
	case string(l) == "authorization":
		return authName
	case string(l) == "key" || string(l) == "secretaccesskey" || string(l) == "secret":
		var jb [maxName]byte
		j := jb[:0]
		for _, c := range name {
			if alnum[c] {
				j = append(j, c|0x20)
			}
		}
		if bytes.HasSuffix(j, []byte("secretaccesskey")) || string(j) == "awssecretkey" || string(j) == "awssecret" {
			return awsName
		}
	}
	switch {
	case secretLast(string(l)):
		return secretName
	case string(l) == "token":
		if !tokenNotSecret(string(p)) {
			return secretName
		}
	case string(l) == "key":
		if keyQualifier(string(p)) {
			return secretName
		}
	case string(l) == "pass":
		// PASS alone is a test's verdict (--- PASS: TestX); DB_PASS is one.
		if len(p) > 0 && !passNotSecret(string(p)) {
			return secretName
		}
	}
	return notSecret
}

// wordBefore returns the last word of name[:end]: a run of letters and
// digits, cut where the case goes up (apiKey, APIKey), or -1.
func wordBefore(name []byte, end int) (int, int) {
	for end > 0 && !alnum[name[end-1]] {
		end--
	}
	if end == 0 {
		return -1, -1
	}
	k := end - 1
	for k > 0 && alnum[name[k-1]] {
		c, b := name[k], name[k-1]
		if isUpper(c) && (!isUpper(b) || k+1 < end && isLower(name[k+1])) {
			break
		}
		k--
	}
	return k, end
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

func lower(dst, s []byte) []byte {
	for _, c := range s {
		if isUpper(c) {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// valueStop ends an unquoted value.
var valueStop = func() (c class) {
	for _, b := range []byte(" \t\r\n\"'`\\,;&)]}<>") {
		c[b] = true
	}
	return c
}()

// placeholder reports a value that stands for a secret without being one:
// a variable ($TOKEN, ${TOKEN}, %(token)s, {{ token }}, <token>), a mask
// (****, xxxx), a redaction already made, a path, or a word such as null.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '*', '[':
		return true
	}
	if hasPrefixAt(v, 0, "./") || hasPrefixAt(v, 0, "../") || hasPrefixAt(v, 0, "~/") {
		return true
	}
	same := true
	for _, b := range v[1:] {
		if b|0x20 != v[0]|0x20 {
			same = false
			break
		}
	}
	if same {
		return true
	}
	if len(v) <= 9 {
		var low [9]byte
		for i, b := range v {
			low[i] = b | 0x20
		}
		switch string(low[:len(v)]) {
		case "null", "none", "true", "false", "nil", "undefined", "redacted":
			return true
		}
	}
	return false
}

// looseValue: a value given with = or as an option's argument, or
// quoted: 6 or more bytes, no placeholder.
func looseValue(v []byte) bool { return len(v) >= 6 && !placeholder(v) }

// strictValue: a value after a colon, or of a JSON member, where prose and
// streamed text put words too ("Token: expired", {"token":"Hello"}): no
// white space, and 8 or more bytes with a digit, or 16 or more.
func strictValue(v []byte) bool {
	if len(v) < 8 || placeholder(v) {
		return false
	}
	for _, b := range v {
		if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			return false
		}
	}
	return len(v) >= 16 || contains(&digits, v)
}

// authSchemes are the words that may come before the credential of an
// Authorization header (lowercase).
var authSchemes = map[string]bool{
	"bearer": true, "basic": true, "token": true, "digest": true, "bot": true,
	"apikey": true, "api-key": true, "key": true, "ssws": true, "negotiate": true,
	"ntlm": true, "oauth": true, "jwt": true, "dpop": true, "aws4-hmac-sha256": true,
	"hmac": true, "hawk": true, "splunk": true, "genietoken": true, "sharedaccesssignature": true,
}

// authValue finds the credential of an Authorization value that starts at
// v[i]: after a scheme word when there is one. It returns its start and
// end, which are equal when there is none.
func authValue(v []byte, i, limit int) (int, int) {
	w := i
	for w < limit && (alnumDash[v[w]]) {
		w++
	}
	if w > i && w-i <= 24 && w < limit && (v[w] == ' ' || v[w] == '\t') {
		var low [24]byte
		for k := i; k < w; k++ {
			low[k-i] = v[k] | 0x20
			if v[k] == '-' || v[k] >= '0' && v[k] <= '9' {
				low[k-i] = v[k]
			}
		}
		if authSchemes[string(low[:w-i])] {
			c := w
			for c < limit && (v[c] == ' ' || v[c] == '\t') {
				c++
			}
			e := c
			for e < limit && !valueStop[v[e]] {
				e++
			}
			if e-c >= 8 && !placeholder(v[c:e]) {
				return c, e
			}
			return 0, 0
		}
	}
	e := i
	for e < limit && !valueStop[v[e]] {
		e++
	}
	if strictValue(v[i:e]) {
		return i, e
	}
	return 0, 0
}

// assignment reports a secret given to a NAME at s[i], which is '=' or
// ':': the NAME is read backwards from there, the value forwards.
func (r *Redactor) assignment(s []byte, i int) (rule, start, end int, ok bool) {
	colon := s[i] == ':'
	// Comparisons are no assignment: ==, !=, <=, >=.
	if !colon && (i+1 < len(s) && s[i+1] == '=' || i > 0 && (s[i-1] == '=' || s[i-1] == '!' || s[i-1] == '<' || s[i-1] == '>')) {
		return 0, 0, 0, false
	}
	j := i
	for k := 0; k < 4 && j > 0 && (s[j-1] == ' ' || s[j-1] == '\t'); k++ {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	ne := j
	for j > 0 && nameChars[s[j-1]] {
		j--
		if ne-j > maxName {
			return 0, 0, 0, false
		}
	}
	kind := classify(s[j:ne])
	if kind == notSecret {
		return 0, 0, 0, false
	}
	k := i + 1
	if colon && k < len(s) && s[k] == '=' { // Go's :=
		k++
		colon = false
	}
	return r.value(s, k, kind, colon)
}

// option reports a secret given to a long option at s[i] ("--NAME value").
func (r *Redactor) option(s []byte, i int) (rule, start, end int, ok bool) {
	if i > 0 && (nameChars[s[i-1]]) {
		return 0, 0, 0, false
	}
	ns := i + 2
	ne := ns
	for ne < len(s) && ne-ns <= maxName && (alnumUnd[s[ne]] || s[ne] == '-') {
		ne++
	}
	if ne == ns || ne >= len(s) || s[ne] != ' ' {
		return 0, 0, 0, false
	}
	kind := classify(s[ns:ne])
	if kind == notSecret {
		return 0, 0, 0, false
	}
	if ne+1 < len(s) && s[ne+1] == '-' {
		return 0, 0, 0, false // the next option
	}
	return r.value(s, ne, kind, false)
}

// value reads the value of a NAME of kind from s[k] (spaces, then a value
// quoted or not) and says whether it is a secret.
func (r *Redactor) value(s []byte, k int, kind nameKind, strict bool) (rule, start, end int, ok bool) {
	vs, ve, limit, ok := valueAt(s, k)
	if !ok {
		return 0, 0, 0, false
	}
	switch kind {
	case authName:
		if c, e := authValue(s, vs, limit); e > c {
			return ruleAuthorization, c, e, !r.off[ruleAuthorization]
		}
		return 0, 0, 0, false
	case awsName:
		if ve-vs == 40 && span(s, vs, &awsSecret) == ve && !r.off[ruleAWSSecret] {
			return ruleAWSSecret, vs, ve, true
		}
	}
	v := s[vs:ve]
	if r.off[ruleAssignment] || strict && !strictValue(v) || !strict && !looseValue(v) {
		return 0, 0, 0, false
	}
	return ruleAssignment, vs, ve, true
}

// valueAt finds the value that starts at s[k] after up to four spaces: a
// quoted one up to its quote on the same line (at most 4096 bytes, an
// escaped quote as \"value\" too), where limit is its end, or else one up
// to a byte that ends a value, where limit is len(s). ok is false when there
// is none, or its quote is not closed.
func valueAt(s []byte, k int) (vs, ve, limit int, ok bool) {
	for n := 0; n < 4 && k < len(s) && (s[k] == ' ' || s[k] == '\t'); n++ {
		k++
	}
	if k < len(s) && s[k] == '\\' && k+1 < len(s) && (s[k+1] == '"' || s[k+1] == '\'') {
		k++
	}
	vs, ve, limit = k, k, len(s)
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		q := s[k]
		vs = k + 1
		ve = vs
		for ve < len(s) && s[ve] != q && s[ve] != '\n' && ve-vs < 4096 {
			ve++
		}
		if ve >= len(s) || s[ve] != q {
			return 0, 0, 0, false
		}
		if s[ve-1] == '\\' { // an escaped quote: \"value\"
			ve--
		}
		limit = ve
	} else {
		for ve < len(s) && !valueStop[s[ve]] {
			ve++
		}
	}
	return vs, ve, limit, vs < len(s)
}

// member reports a secret that is the whole value v of a JSON member whose
// key is key (decoded).
func (r *Redactor) member(key, v []byte) (rule, start, end int, ok bool) {
	switch classify(key) {
	case authName:
		if c, e := authValue(v, 0, len(v)); e > c && !r.off[ruleAuthorization] {
			return ruleAuthorization, c, e, true
		}
	case awsName:
		if len(v) == 40 && span(v, 0, &awsSecret) == 40 && !r.off[ruleAWSSecret] {
			return ruleAWSSecret, 0, 40, true
		}
		fallthrough
	case secretName:
		if strictValue(v) && !r.off[ruleAssignment] {
			return ruleAssignment, 0, len(v), true
		}
	}
	return 0, 0, 0, false
}

// urlCredentials reports the password of scheme://user:password@host at
// s[i] (the ':' of "://"): its start and end, equal when there is none.
func urlCredentials(s []byte, i int) (int, int) {
	if i == 0 || !alnum[s[i-1]] {
		return 0, 0
	}
	a := i + 3
	switch {
	case hasPrefixAt(s, i, "://"):
	case hasPrefixAt(s, i, `:\/\/`):
		// JSON within the string, its slashes escaped as PHP writes
		// them: mysql:\/\/root:pw@host\/db
		a = i + 5
	default:
		return 0, 0
	}
	ae := a
	at := -1
	for ae < len(s) && ae-a < 512 {
		c := s[ae]
		if c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
			c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == '`' {
			break
		}
		if c == '@' {
			at = ae
		}
		ae++
	}
	if at < 0 {
		return 0, 0
	}
	colon := -1
	for k := a; k < at; k++ {
		if s[k] == ':' {
			colon = k
			break
		}
	}
	if colon < 0 || placeholder(s[colon+1:at]) || hasPrefixAt(s, a, "[REDACTED:") {
		return 0, 0
	}
	return colon + 1, at
}
