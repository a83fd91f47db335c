package corpus

import (
	"slices"
	"strconv"
	"strings"
)

// The pools below are what agents in a small Go/TypeScript/Python monorepo
// see and say. They mix tabs, quotes, backslashes, ANSI colour codes (which
// become \u001b escapes) and non-ASCII text, so that every escape a parser
// has to handle shows up in the corpus.

var prompts = []string{
	"run uname -a and tell me the kernel version in one sentence",
	"check the current directory",
	"why does TestParseHeader fail? fix it",
	"add a --json flag to the status command and document it",
	"find where we read the config file and make the path overridable with COLIBRI_CONFIG",
	"summarise the last five commits",
	"the build is red on main, can you look?",
	"rename fetchUser to loadUser everywhere and keep the tests green",
	"write a README section about the cache (\"what it stores, when it expires\")",
	"is there any TODO left in internal/server?",
	"bump the minimum Go version to 1.26 and fix what breaks",
	"explain what handler.go does, briefly",
	"count the lines of Go code per package",
	"make the healthz endpoint return the build version",
	"prüfe bitte, ob die Umlaute im Export korrekt sind",
	"レポートの文字化けを直して",
	"add a test for the empty-body case in ParseRequest",
	"what does `make release` do?",
}

var goPaths = []string{
	"internal/server/handler.go",
	"internal/server/handler_test.go",
	"internal/server/router.go",
	"internal/config/config.go",
	"internal/config/config_test.go",
	"internal/cache/lru.go",
	"internal/cache/lru_test.go",
	"pkg/auth/token.go",
	"pkg/auth/token_test.go",
	"pkg/export/csv.go",
	"cmd/colibri/main.go",
	"cmd/colibri/status.go",
}

var otherPaths = []string{
	"README.md",
	"docs/architecture.md",
	"docs/cache.md",
	"Makefile",
	"go.mod",
	"scripts/release.sh",
	"web/src/api/client.ts",
	"web/src/components/StatusBadge.tsx",
	"tools/lint.py",
	".github/workflows/ci.yml",
	"testdata/export/umlaute.csv",
}

var bashCommands = []string{
	"uname -a",
	"ls -la",
	"git status --short",
	"git log --oneline -n 5",
	"go test ./...",
	"go test -run TestParseHeader -v ./internal/server/",
	"go vet ./...",
	"go build ./... && echo ok",
	"rg -n \"TODO|FIXME\" internal/",
	"grep -rn 'func main' --include=*.go .",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l | sort -n | tail -5",
	"cat go.mod",
	"make build",
	"df -h .",
	"sed -n '1,40p' internal/server/handler.go",
	"npm test -- --watch=false",
	"python3 tools/lint.py --check",
	"curl -s localhost:8080/healthz",
	"docker ps --format '{{.Names}}\\t{{.Status}}'",
	"echo \"$PATH\" | tr ':' '\\n'",
	"head -c 200 testdata/export/umlaute.csv",
}

var grepPatterns = []string{
	"TODO", "func .*Handler", "COLIBRI_CONFIG", "fetchUser", "os\\.Getenv\\(\"[A-Z_]+\"\\)",
	"ParseRequest", "\\bctx\\b", "panic\\(", "Größe",
}

// codeLines are lines of source as read from files; tabs are real tabs.
var codeLines = []string{
	"package server",
	"",
	"import (",
	"\t\"context\"",
	"\t\"encoding/json\"",
	"\t\"errors\"",
	"\t\"net/http\"",
	")",
	"// Handler serves the status API; it is safe for concurrent use.",
	"type Handler struct {",
	"\tcfg   *config.Config",
	"\tcache *cache.LRU[string, []byte]",
	"}",
	"func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {",
	"\tctx, cancel := context.WithTimeout(r.Context(), h.cfg.Timeout)",
	"\tdefer cancel()",
	"\tif r.Header.Get(\"Authorization\") == \"\" {",
	"\t\thttp.Error(w, `{\"error\":\"missing token\"}`, http.StatusUnauthorized)",
	"\t\treturn",
	"\t}",
	"\tbody, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // Größe: höchstens 1 MiB",
	"\tif err != nil {",
	"\t\treturn fmt.Errorf(\"read body: %w\", err)",
	"\t}",
	"\t// TODO(sam): stream instead of buffering — see #214",
	"\tpath := os.Getenv(\"COLIBRI_CONFIG\")",
	"\tre := regexp.MustCompile(`^Bearer\\s+([A-Za-z0-9._-]+)$`)",
	"\tfmt.Fprintf(w, \"%s\\t%d\\n\", name, count)",
	"func TestParseHeader(t *testing.T) {",
	"\tgot, err := ParseHeader(\"Bearer abc.def\")",
	"\tif got != want {",
	"\t\tt.Errorf(\"ParseHeader() = %q, want %q\", got, want)",
	"export async function loadUser(id: string): Promise<User> {",
	"  const res = await fetch(`/api/users/${id}`, { headers: { 'Accept': 'application/json' } });",
	"def check(path: str) -> list[str]:",
	"    return [l for l in open(path, encoding=\"utf-8\") if \"\\t\" in l]",
	"name;größe;straße;ort",
	"Müller;12;Hauptstraße 5;Zürich",
	"Åsa;7;Ørstedsvej 3;København",
}

var outputLines = []string{
	"ok  \tgithub.com/acme/colibri/internal/cache\t0.214s",
	"ok  \tgithub.com/acme/colibri/internal/config\t(cached)",
	"ok  \tgithub.com/acme/colibri/pkg/auth\t0.031s",
	"?   \tgithub.com/acme/colibri/cmd/colibri\t[no test files]",
	"--- FAIL: TestParseHeader (0.00s)",
	"    handler_test.go:42: ParseHeader() = \"bearer\", want \"Bearer\"",
	"FAIL\tgithub.com/acme/colibri/internal/server\t0.118s",
	"=== RUN   TestParseHeader/empty",
	"--- PASS: TestParseHeader/empty (0.00s)",
	"drwxr-xr-x  6 sam  staff   192 Jun 21 22:36 internal",
	"-rw-r--r--  1 sam  staff  1842 Jun 21 22:31 go.mod",
	"-rw-r--r--  1 sam  staff   913 Jun 20 09:12 Makefile",
	" M internal/server/handler.go",
	"?? notes/todo.md",
	"a1b2c3d fix(server): reject empty Authorization header",
	"9f8e7d6 docs: explain cache eviction",
	"4c5d6e7 refactor: rename fetchUser → loadUser",
	"internal/server/handler.go:57:\t// TODO(sam): stream instead of buffering — see #214",
	"internal/config/config.go:23:\tpath := os.Getenv(\"COLIBRI_CONFIG\")",
	"Filesystem      Size  Used Avail Capacity  Mounted on",
	"zroot/home      412G  188G  224G    46%    /home",
	"\x1b[32m✓\x1b[0m 48 tests passed (1.9 s)",
	"\x1b[31m✗\x1b[0m StatusBadge renders the version \x1b[2m(12 ms)\x1b[0m",
	"warning: unused variable `cfg` in tools/lint.py:14",
	"go: downloading github.com/google/go-cmp v0.7.0",
	"{\"status\":\"ok\",\"version\":\"0.9.3\",\"uptime_s\":8123}",
	"colibri-api\tUp 3 hours (healthy)",
	"/usr/local/go/bin",
	"C:\\Users\\sam\\AppData\\Local\\colibri\\cache",
	"Größe der Ausgabe: 1,2 MiB — fertig",
	"エクスポートが完了しました (3 件)",
	"build ok 🚀",
}

var sentences = []string{
	"The failing test expects the scheme to keep its capital letter, but `ParseHeader` lower-cases the whole header.",
	"I changed it to compare the scheme case-insensitively and to return the token unchanged.",
	"All packages build and `go test ./...` passes now.",
	"The config path is read once in `internal/config/config.go`; I made it overridable with `COLIBRI_CONFIG`.",
	"There are two TODOs left in `internal/server`, both about streaming the request body.",
	"The last five commits fix the empty Authorization header, document cache eviction and rename `fetchUser` to `loadUser`.",
	"This system is running FreeBSD 15.0-RELEASE-p10 on amd64.",
	"The healthz endpoint now returns `{\"status\":\"ok\",\"version\":\"…\"}` with the version stamped at build time.",
	"I could not run the web tests: `npm` is not installed on this machine.",
	"Die Umlaute werden korrekt als UTF-8 exportiert; nur die BOM fehlt für Excel.",
	"文字化けの原因は Shift_JIS での読み込みでした。UTF-8 に変更しました。",
	"Here is the breakdown per package:\n\n| package | lines |\n|---|---|\n| internal/server | 1 204 |\n| pkg/auth | 388 |",
	"Next steps:\n- add a fuzz test for `ParseRequest`\n- stream the body instead of buffering it",
	"`make release` tags the commit, builds the binaries for three platforms and uploads them with checksums.",
	"The handler rejects requests without a token with 401 and limits bodies to 1 MiB.",
	"Nothing else references the old name, so the rename is complete.",
}

// sentenceText joins n sentences; the separator sometimes is a paragraph
// break, as model replies have.
func sentenceText(r *rng, n int) string {
	var sb strings.Builder
	prev := ""
	for i := 0; i < n; i++ {
		s := pick(r, sentences)
		if s == prev { // a model does not say the same sentence twice in a row
			s = sentences[(r.intn(len(sentences)-1)+1+slices.Index(sentences, s))%len(sentences)]
		}
		prev = s
		if i > 0 {
			if r.oneIn(4) {
				sb.WriteString("\n\n")
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// lines appends n lines drawn from pool, each ending in \n.
func lines(r *rng, sb *strings.Builder, pool []string, n int) {
	for i := 0; i < n; i++ {
		sb.WriteString(pick(r, pool))
		sb.WriteByte('\n')
	}
}

// grepLines appends n matches of a search over the tree, as grep -n
// shows them: path:line:text.
func grepLines(r *rng, sb *strings.Builder, n int) {
	for i := 0; i < n; i++ {
		sb.WriteString(pick(r, goPaths))
		sb.WriteByte(':')
		sb.WriteString(strconv.Itoa(r.between(1, 400)))
		sb.WriteByte(':')
		sb.WriteString(pick(r, codeLines))
		sb.WriteByte('\n')
	}
}

// numbered appends n consecutive source lines in `cat -n` style, as a read
// tool shows a file.
func numbered(r *rng, sb *strings.Builder, from, n int) {
	var num [8]byte
	for i := 0; i < n; i++ {
		line := from + i
		s := itoaPad(num[:], line)
		sb.WriteString(s)
		sb.WriteByte('\t')
		sb.WriteString(pick(r, codeLines))
		sb.WriteByte('\n')
	}
}

// itoaPad formats n right-aligned in six columns.
func itoaPad(buf []byte, n int) string {
	i := len(buf)
	for n > 0 || i == len(buf) {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	for len(buf)-i < 6 && i > 0 {
		i--
		buf[i] = ' '
	}
	return string(buf[i:])
}
