// Package filters ships evfilter's named filters: the jq definitions in
// this folder, embedded in the binary. Each top-level def starts a line and
// the comment lines right above it are its description.
package filters

import "embed"

// FS holds the *.jq files of the library.
//
//go:embed *.jq
var FS embed.FS
