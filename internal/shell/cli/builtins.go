package cli

import (
	"io"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/shell/cli/complete"
	"github.com/evtools/evtools/internal/shell/cli/man"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
)

// builtins are the flags every tool has besides its own, declared once
// here rather than in each tool's options. --version is listed last in
// --help; --completion and --man print what `make install` puts beside
// the binaries, so they are hidden from --help and from the man page;
// evtools(7) and docs/install.md document them.
type builtins struct {
	Version    kong.VersionFlag `name:"version" help:"Print the version and exit."`
	Completion string           `name:"completion" hidden:"" placeholder:"SHELL" help:"Print the completion script for SHELL (bash, zsh or fish) and exit."`
	Man        bool             `name:"man" hidden:"" help:"Print the man page (roff) and exit."`
}

// run prints what a builtin flag asks for: the run is then over (a
// Status). Without one it returns nil and the tool runs.
func (b *builtins) run(t Tool, app *kong.Application, w io.Writer) error {
	var text string
	switch {
	case b.Man:
		// a flag without help would be a bare line on the page (and in
		// --help): no page until it has some
		if err := tooldoc.Undocumented(app); err != nil {
			return err
		}
		text = man.Page(t, app, Version)
	case b.Completion != "":
		s, err := complete.Script(b.Completion, t, app)
		if err != nil {
			return Usage(err)
		}
		text = s
	default:
		return nil
	}
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	return Status(ExitOK)
}
