package cursor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// A --defer run hands its pending cursor over to the --commit that
// follows it in the same shell, and to no other: in
// `evcursor --state S --defer log | report && evcursor --commit S`, a
// later run that failed before it could withdraw an earlier pending cursor
// (the lock was busy, it was killed at start-up) must not let the commit
// skip the events of a run whose report was never made. The handover is a
// small file beside the state file, FILE.handover, written by the --defer
// run after it saved its pending cursor at a clean end. It names the
// pending cursor and the run's caller: the process that started it (the
// shell), or the systemd unit invocation ($INVOCATION_ID). A --commit
// commits only a pending cursor whose handover names it and names its own
// caller (or itself: a shell may exec its last command). Every --state run
// removes the handover first thing, before it takes the lock, so that
// even a run refused at once (lock busy) withdraws it.
//
// The state file itself keeps its format: an older evcursor reads it.

// Handover ties a pending cursor to the run that saved it.
type Handover struct {
	Pending    string `json:"pending_sha256"`
	Seq        string `json:"pending_seq"`
	Invocation string `json:"invocation_id,omitempty"`
	Caller     Proc   `json:"caller"`
}

// Proc names a process across time: its pid and its start time (clock
// ticks after boot, from /proc; empty where there is no /proc), so that a
// pid reused by a later process does not pass for it.
type Proc struct {
	PID   int    `json:"pid"`
	Start string `json:"start,omitempty"`
}

// HandoverPath is the handover file of the state file at path.
func HandoverPath(path string) string { return path + ".handover" }

// RemoveHandover withdraws the handover of the state file at path. It
// needs no lock: removing a file is atomic, and a handover removed too
// many times only means the events are passed again.
func RemoveHandover(path string) { os.Remove(HandoverPath(path)) }

// WriteHandover hands the pending cursor c over to the commit that this
// process's caller runs next; c nil says the run passed nothing, so that
// a --commit finding no state file knows that is expected (and not a typo
// in its name). Call it with the lock held.
func WriteHandover(path string, c *Cursor) error {
	hash, seq := handoverOf(c)
	return WriteHandoverOf(path, hash, seq)
}

// handoverOf is what names the pending cursor c in a handover: its hash
// and seq, both "" for none.
func handoverOf(c *Cursor) (hash, seq string) {
	if c != nil {
		return c.Hash, string(c.Seq)
	}
	return "", ""
}

// WriteHandoverOf is WriteHandover for a pending state of another shape
// (evimport's pending file): hash and seq name it, both "" for none.
func WriteHandoverOf(path, hash, seq string) error {
	h := Handover{Invocation: os.Getenv("INVOCATION_ID"), Caller: proc(os.Getppid()), Pending: hash, Seq: seq}
	data, err := json.MarshalIndent(&h, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(HandoverPath(path), append(data, '\n'))
}

// ErrNotHandedOver says a pending cursor was not handed over to this
// --commit.
var ErrNotHandedOver = errors.New("not handed over to this --commit")

// CheckHandover reports whether this process may commit the pending cursor
// c of the state file at path (c nil: whether the run before it passed
// nothing): nil, or an error saying why not.
func CheckHandover(path string, c *Cursor) error {
	hash, seq := handoverOf(c)
	return CheckHandoverOf(path, hash, seq)
}

// CheckHandoverOf is CheckHandover for a pending state named by hash and
// seq, as WriteHandoverOf wrote them.
func CheckHandoverOf(path, hash, seq string) error {
	data, err := os.ReadFile(HandoverPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: no --defer run completed since the last run started", ErrNotHandedOver)
	}
	if err != nil {
		return err
	}
	var h Handover
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&h); err != nil || h.Pending != hash || h.Seq != seq {
		return fmt.Errorf("%w: the handover does not name the pending cursor", ErrNotHandedOver)
	}
	inv := os.Getenv("INVOCATION_ID")
	if h.Invocation != "" && inv != "" {
		if h.Invocation == inv {
			return nil // the same run of a systemd unit
		}
		return fmt.Errorf("%w: it was saved by another systemd unit invocation", ErrNotHandedOver)
	}
	if h.Caller.PID > 0 && (h.Caller == proc(os.Getpid()) || h.Caller == proc(os.Getppid())) {
		return nil
	}
	return fmt.Errorf("%w: the --defer run that saved it was started by another process (pid %d)", ErrNotHandedOver, h.Caller.PID)
}

// procRoot is where Linux's proc file system is. macOS and Windows have
// none, and FreeBSD's (when mounted) has no stat files: there a process is
// named by its pid alone (docs/platforms.md).
var procRoot = "/proc"

// proc names the process pid, with its start time where /proc tells it.
func proc(pid int) Proc {
	p := Proc{PID: pid}
	data, err := os.ReadFile(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return p
	}
	// pid (comm) state ppid ... starttime is field 22; comm may hold
	// spaces and parentheses, so count from the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return p
	}
	f := bytes.Fields(data[i+1:])
	if len(f) > 19 {
		p.Start = string(f[19])
	}
	return p
}
