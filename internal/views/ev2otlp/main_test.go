package ev2otlp_test

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evtools/evtools/internal/devtools/scripttest"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/ev2otlp"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"otlpcheck": otlpcheck})
}

// The golden scripts of testdata: the command line, bad input, the
// vocabularies it reads. Each checks what the tool wrote with otlpcheck.
func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }

// otlpcheck FILE checks every line of FILE with the Collector's decoder
// and the letter of OTLP/JSON, and prints the number of spans.
func otlpcheck(args []string, stdio cli.Stdio) int {
	var data []byte
	var err error
	if len(args) == 1 {
		data, err = os.ReadFile(args[0])
	} else {
		data, err = io.ReadAll(stdio.In)
	}
	if err == nil {
		var n int
		if n, err = ev2otlp.CheckLines(data); err == nil {
			fmt.Fprintf(stdio.Out, "%d spans\n", n)
			return 0
		}
	}
	fmt.Fprintln(stdio.Err, "otlpcheck:", err)
	return 1
}
