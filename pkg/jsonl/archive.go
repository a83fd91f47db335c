package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/evtools/evtools/pkg/archive"
)

// Entry is one input that the names given to an Input stand for: a file,
// or stdin, as named, or a segment of an archive folder named (see
// pkg/archive): every tool reads an archive as the files it is made of.
type Entry struct {
	// Name is what is opened and what messages name: the name as
	// given ("-" is stdin), or the path of an archive's segment.
	Name string
	// Host is the host of an archive's segment, nil for a name given;
	// Segment is the segment then.
	Host    *archive.Host
	Segment archive.Segment
	// Err, when not nil, is why the name stands for no input (a folder
	// that holds no archive): it is reported where the input would
	// have been read, as a file that cannot be opened is.
	Err error
}

// Key identifies a segment's content (archive.Host.Key); "" for an
// entry that is no segment.
func (e *Entry) Key() string {
	if e.Host == nil {
		return ""
	}
	return e.Host.Key(e.Segment)
}

// errNoArchive is why a folder named as an input gives none: it is
// neither an archive nor holds one.
var errNoArchive = errors.New("name files, or a folder evimport --archive wrote")

// Expand returns the entries that names stand for, in order: a name as
// it is, but for a folder, the segments of every host archive.Find finds
// under it, host after host (each once: the newest copy), each host's in
// the order of its manifest. A folder without a host is an entry whose
// Err says so. bad is told of what cannot be read on the way (a
// manifest, a subfolder), with its path: it is skipped, and the rest read.
//
// A name is looked at (stat) only to see whether it is a folder: what
// else it is, and whether it can be read, is found when it is opened, in
// order, as for any file.
func Expand(names []string, bad func(error)) []Entry {
	entries := make([]Entry, 0, len(names))
	for _, name := range names {
		if name == "-" {
			entries = append(entries, Entry{Name: name})
			continue
		}
		fi, err := os.Stat(name)
		if err != nil || !fi.IsDir() {
			entries = append(entries, Entry{Name: name})
			continue
		}
		entries = appendArchive(entries, name, bad)
	}
	return entries
}

// appendArchive appends the segments of the archive in folder dir.
func appendArchive(entries []Entry, dir string, bad func(error)) []Entry {
	root := dir
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A folder named through a symbolic link: the walk follows
		// the link only when the name ends with a separator.
		root = dir + string(filepath.Separator)
	}
	reported := false
	hosts, err := archive.Find(root, func(path string, err error) {
		reported = true
		bad(manifestError(path, err))
	})
	if err != nil {
		return append(entries, Entry{Name: dir, Err: FileError(dir, err)})
	}
	if len(hosts) == 0 {
		if !reported { // else what is wrong is said already
			entries = append(entries, Entry{Name: dir, Err: fmt.Errorf("no evtools archive under %s: %w", dir, errNoArchive)})
		}
		return entries
	}
	for _, h := range hosts {
		for _, s := range h.Manifest.Segments {
			entries = append(entries, Entry{Name: h.Path(s), Host: h, Segment: s})
		}
	}
	return entries
}

// manifestError words what is wrong with the manifest or folder at path:
// a file's error as FileError words it, a manifest's content by what
// archive.Parse says.
func manifestError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return FileError(path, err)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// Entries returns the entries in.Names stand for (Expand), expanded
// once: what cannot be read of an archive is reported then, and counts
// as an input that could not be read (Failed).
func (in *Input) Entries() []Entry {
	if !in.expanded || !slices.Equal(in.expandedFrom, in.Names) {
		names := in.Names
		if len(names) == 0 {
			names = []string{"-"}
		}
		in.entries = Expand(names, func(err error) {
			in.Errorf("%v", err)
			in.failed++
		})
		in.expanded, in.expandedFrom = true, slices.Clone(in.Names)
	}
	return in.entries
}

// SetEntries makes the next reading of in (Each, readBlocks, Parts, Blocks)
// read entries, which Entries gave, instead: a tool that reads some
// inputs otherwise (evsum's cache of an archive's segments) reads the rest
// through the same Input, its bad-line reports and counts.
func (in *Input) SetEntries(entries []Entry) {
	in.entries, in.expanded, in.expandedFrom = entries, true, slices.Clone(in.Names)
}
