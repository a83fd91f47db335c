//go:build !unix

package jsonl

import "io/fs"

// FileID is 0, 0 where the system gives no device and inode through
// os.Stat: a file replaced under its name is then told by its size and
// its first and last bytes read (FollowState.Mark).
func FileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
