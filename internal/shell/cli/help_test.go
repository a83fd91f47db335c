package cli

import (
	"bytes"
	"strings"
	"testing"
)

type helpOpts struct {
	Arg   []string `name:"arg" placeholder:"NAME VALUE" help:"Bind."`
	Start string   `placeholder:"N" help:"Start."`
	Max   int      `short:"m" default:"-1" help:"Max."`
	Args  []string `arg:"" optional:"" name:"EXPR [FILE]" help:"The expression, then files."`
}

// Item 10: the help says what the parser accepts.
func TestHelpSaysWhatIsAccepted(t *testing.T) {
	var out bytes.Buffer
	tool := Tool{Name: "t", Usage: "[flags] EXPR [FILE ...]", Summary: "S."}
	Parse(tool, []string{"--help"}, Stdio{Out: &out, Err: &out}, &helpOpts{})
	help := out.String()
	for _, want := range []string{
		"Usage: t [flags] EXPR [FILE ...]\n",
		"  EXPR [FILE ...]  ",
		"--arg NAME VALUE ",
		"Show this help and exit.",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	for _, bad := range []string{"--arg=", ",...", "<EXPR [FILE]>", "context-sensitive"} {
		if strings.Contains(help, bad) {
			t.Errorf("help has %q:\n%s", bad, help)
		}
	}
}

// Item 10: a value that starts with a dash and a digit is the flag's value,
// for the tool to judge, not a short flag.
func TestNegativeLookingValues(t *testing.T) {
	for _, args := range [][]string{{"--start", "-1"}, {"-m", "-5"}, {"--start", "-1h", "f"}} {
		var o helpOpts
		var out bytes.Buffer
		if err := Parse(Tool{Name: "t"}, args, Stdio{Out: &out, Err: &out}, &o); err != nil {
			t.Errorf("%q: %v", args, err)
		}
		if o.Start != "" && o.Start != args[1] || o.Start == "" && o.Max != -5 {
			t.Errorf("%q: start %q, max %d", args, o.Start, o.Max)
		}
	}
	// After "--" everything is an argument.
	var o helpOpts
	if err := Parse(Tool{Name: "t"}, []string{"--", "--start", "-1"}, Stdio{}, &o); err != nil || len(o.Args) != 2 {
		t.Errorf("after --: %v, %q", err, o.Args)
	}
}
