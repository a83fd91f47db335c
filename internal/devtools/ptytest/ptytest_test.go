//go:build linux

package ptytest

import (
	"io"
	"testing"

	"golang.org/x/sys/unix"
)

// What a tool writes on the terminal end is read from the other, and the
// terminal has the size it was given.
func TestOpen(t *testing.T) {
	master, tty := Open(t)
	Resize(t, tty, 132, 40)
	ws, err := unix.IoctlGetWinsize(int(tty.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col != 132 || ws.Row != 40 {
		t.Errorf("size %+v (%v), want 132x40", ws, err)
	}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(master); got <- b }()
	io.WriteString(tty, "hello\n")
	tty.Close()
	if b := string(<-got); b != "hello\r\n" {
		t.Errorf("read %q from the terminal, want %q", b, "hello\r\n")
	}
}
