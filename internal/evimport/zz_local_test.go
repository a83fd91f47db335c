package evimport

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/cli"
)

func BenchmarkLocalDir(b *testing.B) {
	dir := os.Getenv("EVIMPORT_DIR")
	if dir == "" {
		b.Skip()
	}
	b.SetBytes(105 << 20)
	for b.Loop() {
		var stderr strings.Builder
		Main([]string{dir}, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr})
	}
}
