package evimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	statefile "github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/pkg/archive"
	"github.com/evtools/evtools/pkg/jsonl"
)

// --state FILE keeps the state of an incremental import (sync.go) in a
// file of its own, saved under internal/filters/cursor's lock by temporary file,
// fsync and rename once the events are flushed to stdout; with --defer
// it goes to FILE.pending, which --commit moves in when the run just
// before it handed it over (cursor's handover), as evcursor's --defer
// and --commit do. --archive keeps it in the archive, committed with
// the events in one rename (pkg/archive).

// pendingPath is where a --defer run saves its state for --commit.
func pendingPath(path string) string { return path + ".pending" }

// syncRun is an incremental import under way: its state's file and lock,
// or the archive's sync.
type syncRun struct {
	given, path string // --state FILE as given, and resolved
	unlock      func()
	old         []byte
	arch        *archive.Sync
}

// startSync takes the state (or the archive's) and its lock, and sets
// o.inc from it.
func (o *options) startSync(stdio cli.Stdio) (*syncRun, error) {
	settle, err := time.ParseDuration(o.Settle)
	if err != nil || settle < 0 {
		return nil, cli.Usage(fmt.Errorf("--settle %s: not a duration (10m, 1h, 0)", term.Escape(o.Settle)))
	}
	r := &syncRun{}
	if o.Archive != "" {
		r.arch, err = archive.Open(o.Archive, o.Host)
		if errors.Is(err, archive.ErrBusy) {
			return nil, cli.Errorf(cli.ExitBusy, "%s: a sync of this host is under way (its lock is held): nothing written", term.Escape(o.Archive))
		}
		if err != nil {
			return nil, fmt.Errorf("--archive %s: %w", term.Escape(o.Archive), err)
		}
		r.old, err = r.arch.State()
		if err != nil {
			r.close()
			return nil, fmt.Errorf("--archive %s: %w", term.Escape(o.Archive), err)
		}
	} else {
		r.given = o.State
		if r.path, err = cli.ResolveState(r.given, "nothing written"); err != nil {
			return nil, err
		}
		// First thing, before the lock (which may be busy): withdraw the
		// handover of an earlier --defer run, so that the --commit after
		// this run cannot commit a state this run did not vouch for.
		statefile.RemoveHandover(r.path)
		if r.unlock, err = cli.LockState(name, r.given, r.path, "nothing written", pendingPath(r.path)); err != nil {
			return nil, err
		}
		// So is the pending state of an earlier --defer run withdrawn:
		// this run starts from the state committed, and whatever it
		// writes is what the commit after it moves in.
		if err := os.Remove(pendingPath(r.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.close()
			return nil, fmt.Errorf("%s: withdrawing the pending state: %w", r.given, err)
		}
		if r.old, err = os.ReadFile(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.close()
			return nil, jsonl.FileError(r.given, err)
		}
	}
	st, err := parseSyncState(r.old)
	if err != nil {
		r.close()
		if r.arch != nil {
			return nil, fmt.Errorf("%s: %v", term.Escape(filepath.Join(r.arch.Dir, r.arch.Manifest().State)), err)
		}
		return nil, fmt.Errorf("%s: %v", term.Escape(r.given), err)
	}
	if st.Settled == 0 && len(st.Files) > 0 {
		// saved by a version that did not say when its files were
		// settled: the state file's time says when it was saved
		saved := r.path
		if r.arch != nil {
			saved = filepath.Join(r.arch.Dir, r.arch.Manifest().State)
		}
		if fi, err := os.Stat(saved); err == nil {
			st.Settled = fi.ModTime().UnixNano() - int64(settle)
		}
	}
	o.inc = newIncremental(st, settle)
	return r, nil
}

func (r *syncRun) close() {
	if r.unlock != nil {
		r.unlock()
		r.unlock = nil
	}
	if r.arch != nil {
		r.arch.Close()
	}
}

// finish saves the state once what the run wrote is flushed: from then
// on, a run killed before the state is saved has its events written
// again by the next run (without --defer), or not committed (with it).
// The archive's events and state are committed in one.
func (r *syncRun) finish(o *options, stdio cli.Stdio) error {
	defer r.close()
	st, gone, only, err := o.inc.done()
	if err != nil {
		return err
	}
	for _, key := range o.inc.rewritten {
		source, id, _ := strings.Cut(key, "\x00")
		fmt.Fprintf(stdio.Err, "%s: %s session %s: runs written before have changed since (a log rewritten?): kept as first written\n", name, source, term.Escape(id))
	}
	if gone == 0 && !o.inc.changed() && (r.arch == nil || !r.arch.Fresh()) {
		// nothing read, nothing gone: the state is as it was, and so is
		// the archive (and --defer hands over that nothing is pending)
		if o.Defer {
			return statefile.WriteHandoverOf(r.path, "", "")
		}
		return nil
	}
	data := st.marshal()
	if r.arch != nil {
		if err := stop.Commit(); err != nil {
			return err
		}
		if err := r.arch.Commit(data); err != nil {
			return fmt.Errorf("--archive %s: %w: nothing of this sync kept", term.Escape(r.arch.Dir), err)
		}
		if gone > 0 {
			fmt.Fprintf(stdio.Err, "%s: %s gone since the last sync; the archive keeps what they held (%s kept only in the archive)\n",
				name, textfmt.Plural(int64(gone), "session file"), textfmt.Plural(int64(only), "session"))
		}
		if term.IsTerminal(stdio.Err) {
			fmt.Fprintf(stdio.Err, "%s: %s archived in %s\n", name, textfmt.Plural(r.arch.Events(), "new event"), term.Escape(r.arch.Dir))
		}
		return nil
	}
	if err := stop.Commit(); err != nil {
		return err
	}
	if !o.Defer {
		if bytes.Equal(data, r.old) {
			return nil // nothing new: the file is not touched
		}
		if err := statefile.WriteFileAtomic(r.path, data); err != nil {
			return fmt.Errorf("%s: saving the state: %w", r.given, err)
		}
		return nil
	}
	hash := ""
	if !bytes.Equal(data, r.old) {
		if err := statefile.WriteFileAtomic(pendingPath(r.path), data); err != nil {
			return fmt.Errorf("%s: saving the pending state: %w", r.given, err)
		}
		hash = sha(data)
	}
	if err := statefile.WriteHandoverOf(r.path, hash, ""); err != nil {
		return fmt.Errorf("%s: handing the pending state over to --commit: %w", r.given, err)
	}
	return nil
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// commitState is --commit FILE: the pending state a --defer run just
// before it handed over is made current.
func commitState(given string, stdio cli.Stdio) error {
	path, err := cli.ResolveState(given, "nothing committed")
	if err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	_, pendingErr := os.Stat(pendingPath(path))
	if errors.Is(pendingErr, fs.ErrNotExist) && errors.Is(statErr, fs.ErrNotExist) {
		return cli.NothingToCommit(name, given, path, "state", statefile.CheckHandoverOf(path, "", "") == nil, stdio)
	}
	unlock, err := cli.LockState(name, given, path, "nothing committed", pendingPath(path))
	if err != nil {
		return err
	}
	defer unlock()
	pending, err := os.ReadFile(pendingPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		statefile.RemoveHandover(path) // nothing pending: nothing to lose
		return nil
	}
	if err != nil {
		return jsonl.FileError(pendingPath(given), err)
	}
	// Only the run just before this commit, in the same shell, can have
	// handed its pending state over: one from an earlier run (whose
	// consumer failed) stays uncommitted, and its events are written again.
	if err := statefile.CheckHandoverOf(path, sha(pending), ""); err != nil {
		return fmt.Errorf("%s: pending state not committed: %v; the next run writes its events again", term.Escape(given), err)
	}
	if err := stop.Commit(); err != nil {
		return err
	}
	if err := statefile.MoveFile(pendingPath(path), path); err != nil {
		return fmt.Errorf("%s: committing the pending state: %w", given, err)
	}
	statefile.RemoveHandover(path)
	return nil
}
