package cli

import (
	"errors"
	"fmt"

	"github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/pkg/jsonl"
)

// LockState takes the lock of the state file at path (given: as the user
// named it) for a run of tool, without waiting, and clears the temporary
// files a killed run left of path and of the files beside it (also).
// When another run holds it, the error (exit status ExitBusy) says so
// and what this run did not do (notDone); a lock file that cannot be
// opened is worded as every file is; a state file replaced by a link
// between the caller's resolving and the lock is refused.
func LockState(tool, given, path, notDone string, also ...string) (unlock func(), err error) {
	unlock, err = cursor.Lock(path)
	if errors.Is(err, cursor.ErrBusy) {
		return nil, Errorf(ExitBusy, "%s: in use by another %s run (%s.lock is held): %s", given, tool, path, notDone)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot lock: %w", given, jsonl.FileError(path+".lock", err))
	}
	if again, err := cursor.ResolveState(path); err != nil || again != path {
		unlock()
		if err == nil {
			err = errors.New("replaced by a symbolic link while starting")
		}
		return nil, fmt.Errorf("%s: %v: %s", given, err, notDone)
	}
	for _, p := range append([]string{path, cursor.HandoverPath(path)}, also...) {
		cursor.RemoveStaleTemps(p)
	}
	return unlock, nil
}

// ResolveState follows the symbolic links of the state file given to the
// real file (locked, read and replaced in their place), refusing anything
// but a regular file before any lock file is made; notDone is what the
// run then does not do.
func ResolveState(given, notDone string) (string, error) {
	path, err := cursor.ResolveState(given)
	if errors.Is(err, cursor.ErrNotRegular) {
		return "", fmt.Errorf("%s: %v: %s", given, err, notDone)
	}
	if err != nil {
		return "", jsonl.FileError(given, err)
	}
	return path, nil
}
