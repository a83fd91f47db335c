package grep

import (
	"strings"

	"github.com/evtools/evtools/internal/core/term"
)

// Resume returns the shell commands that reopen a session in the agent
// that wrote it (source, as evimport names it), run in the session's
// project when the agent keeps its sessions per folder; nil when the
// agent, or how it takes a session, is not known. What each agent accepts
// is in docs/evfilter.md, with where it was checked.
func Resume(source, project, session string) []string {
	if session == "" {
		return nil
	}
	id := quote(session)
	var cmd string
	perFolder := true
	switch source {
	case "claude":
		// Claude Code finds a session among its project's
		// (~/.claude/projects/<project>/).
		cmd = "claude --resume " + id
	case "codex":
		// Codex finds a session by its id wherever it is run.
		cmd, perFolder = "codex resume "+id, false
	case "gemini":
		// Gemini CLI's sessions are per project; --resume takes
		// "latest", an index, or the session's UUID.
		cmd = "gemini --resume " + id
	case "pi":
		// pi's --session takes a session file or a (partial) id.
		cmd = "pi --session " + id
	case "copilot":
		cmd, perFolder = "copilot --resume "+id, false
	default:
		return nil
	}
	// Gemini's project is the name of its folder of sessions, no path:
	// there is nowhere to cd to.
	if perFolder && strings.HasPrefix(project, "/") {
		return []string{"cd " + quote(project), cmd}
	}
	return []string{cmd}
}

// quote makes s one word for a POSIX shell, and safe to show: quoted
// only when it has to be, its control characters escaped.
func quote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:@%+=,~", c)) {
			plain = false
			break
		}
	}
	if plain && s[0] != '~' {
		return s
	}
	return term.Escape("'" + strings.ReplaceAll(s, "'", `'\''`) + "'")
}
