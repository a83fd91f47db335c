package jsonl

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A corrupt or cut compressed input is reported once, with the
// decompressor's name said once: "gzip: ..." or "zstd: ...".
func TestCodecErrors(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(strings.Repeat(`{"kind":"a"}`+"\n", 100)))
	w.Close()
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll([]byte(strings.Repeat(`{"kind":"a"}`+"\n", 100)), nil)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"header.gz", []byte("\x1f\x8bnot gzip at all"), "gzip: invalid header"},
		{"cut.gz", gz.Bytes()[:gz.Len()-12], "gzip: unexpected EOF"},
		{"frame.zst", []byte("\x28\xb5\x2f\xfdxxxxxxxx"), "zstd: "},
		{"cut.zst", zs[:len(zs)/2], "zstd: "},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, tc.data, 0o644)
		var stderr bytes.Buffer
		in := &Input{Tool: "t", Names: []string{path}, Stderr: &stderr}
		in.Each(func(Record) error { return nil })
		msg := stderr.String()
		if !strings.HasPrefix(msg, "t: "+path+": "+tc.want) || strings.Count(msg, "gzip:")+strings.Count(msg, "zstd:") != 1 {
			t.Errorf("%s: %q, want one %q", tc.name, msg, tc.want)
		}
		if !in.Trouble() {
			t.Errorf("%s: no trouble reported", tc.name)
		}
	}
}
