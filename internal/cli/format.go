package cli

import (
	"fmt"
	"strings"

	"github.com/evtools/evtools/internal/term"
)

// ParseFormat checks a --format value against the choices and resolves
// "" and "auto": pretty on a terminal, jsonl (or def) elsewhere.
func ParseFormat(value string, w any, def string, choices ...string) (string, error) {
	if value == "" || value == "auto" {
		if term.IsTerminal(w) {
			return "pretty", nil
		}
		return def, nil
	}
	for _, c := range choices {
		if value == c {
			return value, nil
		}
	}
	return "", Usage(fmt.Errorf("--format %q: one of auto, %s", value, strings.Join(choices, ", ")))
}
