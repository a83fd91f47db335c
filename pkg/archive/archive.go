// Package archive reads and writes an evtools archive: every event
// evimport ever wrote, kept in plain files after the agents delete their
// logs (evimport --archive), and read by every tool that is given the
// folder.
//
// An archive is a folder of hosts, one folder a machine:
//
//	ARCHIVE/
//	  laptop-3f9a0c12/          HOST-ID: the machine's name and an id made at its first sync
//	    evtools-archive.json    the manifest: what is in it (Manifest)
//	    2026-12-05.g7.jsonl.zst a segment: the events of a day, zstd JSON Lines
//	    state.g7.json           evimport's import state, named by the manifest
//	    lock                    held while a sync writes
//
// A sync writes new files under names no manifest lists yet, then
// replaces the manifest (temporary file, fsync, rename): that rename is
// the sync's one moment of truth, so a sync killed at any time leaves
// the archive as it was before it, or as after it. Files no manifest
// lists are a killed sync's leftovers or what a compaction replaced:
// readers never look at them, the next sync removes them. Segments are
// never changed once written, so a segment's name and size identify
// its content (Segment.Key), which is what caches of what was read from
// them are keyed by.
//
// Archives are safe to copy: those of several machines copied into one
// folder are hosts side by side, and the same host found twice (one
// archive copied in twice, a copy of a copy) is read once, from its
// newest manifest (Find).
package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestName is the manifest's file name in a host's folder: a folder
// that holds one is a host of an archive.
const ManifestName = "evtools-archive.json"

// Version is the manifest format written; a higher one is refused.
const Version = 1

// Manifest is what a host's folder holds, as its last sync left it.
type Manifest struct {
	Version int `json:"version"`
	// Host is the machine's name, as the events' host member says it.
	Host string `json:"host"`
	// ID tells the machine apart from another of the same name, and a
	// copy of it from another machine: made at random at its first sync.
	ID string `json:"id"`
	// Generation counts the syncs that changed the host: of two copies
	// of one host, the one of the higher generation is the newer.
	Generation int64 `json:"generation"`
	// Segments are the event files, in the order of their days.
	Segments []Segment `json:"segments"`
	// State names evimport's import state file, beside the segments.
	State string `json:"state,omitempty"`
}

// Segment is one file of events: those of one day (the day of each
// run's first event, UTC), in the order a sync wrote them.
type Segment struct {
	Name   string `json:"name"`
	Day    string `json:"day"` // YYYY-MM-DD
	Events int64  `json:"events"`
	Bytes  int64  `json:"bytes"`
}

// Host is one host's folder found by Find, with its manifest.
type Host struct {
	Dir      string
	Manifest Manifest
}

// Key identifies a segment's content wherever the archive was copied:
// the host's id, the segment's name (a generation's own) and its size.
func (h *Host) Key(s Segment) string {
	return fmt.Sprintf("%s/%s/%d", h.Manifest.ID, s.Name, s.Bytes)
}

// Path is where segment s is.
func (h *Host) Path(s Segment) string { return filepath.Join(h.Dir, s.Name) }

// Load reads the manifest of the host folder dir.
func Load(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Parse reads a manifest's content.
func Parse(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not an evtools archive manifest: %v", err)
	}
	if m.Version < 1 || m.Version > Version {
		return nil, fmt.Errorf("archive format version %d is not supported (this evtools reads %d)", m.Version, Version)
	}
	if m.ID == "" {
		return nil, errors.New("not an evtools archive manifest: no id")
	}
	for _, s := range m.Segments {
		if s.Name == "" || s.Name != filepath.Base(s.Name) || strings.HasPrefix(s.Name, ".") {
			return nil, fmt.Errorf("not an evtools archive manifest: segment name %q", s.Name)
		}
	}
	return &m, nil
}

// IsHost reports whether dir is a host's folder (holds a manifest).
func IsHost(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ManifestName))
	return err == nil && fi.Mode().IsRegular()
}

// Find returns the hosts under root (root itself may be one), each once:
// of the folders holding the same host (by ID), the one of the highest
// generation, the first in walk order among equals. A host's folder is
// not walked further. bad is told of a manifest that cannot be read,
// which is skipped.
func Find(root string, bad func(path string, err error)) ([]*Host, error) {
	var hosts []*Host
	at := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			bad(p, err)
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir // a sync's temporary folder, a cache
		}
		if !IsHost(p) {
			return nil
		}
		m, err := Load(p)
		if err != nil {
			bad(filepath.Join(p, ManifestName), err)
			return fs.SkipDir
		}
		h := &Host{Dir: p, Manifest: *m}
		if i, ok := at[m.ID]; ok {
			if m.Generation > hosts[i].Manifest.Generation {
				hosts[i] = h
			}
			return fs.SkipDir
		}
		at[m.ID] = len(hosts)
		hosts = append(hosts, h)
		return fs.SkipDir
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(hosts, func(a, b *Host) int { return strings.Compare(a.Manifest.ID, b.Manifest.ID) })
	return hosts, nil
}
