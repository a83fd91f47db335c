package evimport_test

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evtools/evtools/internal/devtools/scripttest"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/klauspost/compress/zstd"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"zcat": zcat, "mkopencode": mkopencode})
}

// zcat FILE... writes the zstd files' content: an archive's segments, as
// they are on disk.
func zcat(args []string, stdio cli.Stdio) int {
	for _, name := range args {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stdio.Err, err)
			return 1
		}
		z, err := zstd.NewReader(f)
		if err == nil {
			_, err = io.Copy(stdio.Out, z)
			z.Close()
		}
		f.Close()
		if err != nil {
			fmt.Fprintln(stdio.Err, name+":", err)
			return 1
		}
	}
	return 0
}

// The golden scripts of testdata: fixtures written for the project in
// each agent's format (invented sessions, never copies of real ones).
func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
