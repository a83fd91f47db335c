package evimport_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
)

// mkopencode [-wal] DB SQLFILE... makes an opencode store for a golden
// script: DB with opencode 1.18's tables (when it is new), then each
// file's statements run in a transaction, with the driver evimport reads
// it with. -wal leaves the rows of the last file in DB-wal, as a store
// opencode is writing has them: the files are copied while the writer
// is open, since closing it checkpoints them into DB.
func mkopencode(args []string, stdio cli.Stdio) int {
	wal := len(args) > 0 && args[0] == "-wal"
	if wal {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(stdio.Err, "usage: mkopencode [-wal] DB SQLFILE...")
		return 2
	}
	if err := writeStore(args[0], args[1:], wal); err != nil {
		fmt.Fprintln(stdio.Err, "mkopencode:", err)
		return 1
	}
	return 0
}

func writeStore(path string, files []string, wal bool) error {
	_, err := os.Stat(path)
	fresh := os.IsNotExist(err)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if fresh {
		if _, err := db.Exec(corpus.OpencodeSchema); err != nil {
			return err
		}
		if wal {
			// the tables in DB itself, the rows only in the -wal
			if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				return err
			}
		}
	}
	for _, name := range files {
		stmts, err := os.ReadFile(name)
		if err == nil {
			_, err = db.Exec("BEGIN; " + string(stmts) + "; COMMIT")
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	if !wal {
		return nil
	}
	// the files as the writer has them, written back in place once it
	// is closed (the database keeps its inode, as opencode's does)
	saved := map[string][]byte{}
	for _, ext := range []string{"", "-wal", "-shm"} {
		if saved[ext], err = os.ReadFile(path + ext); err != nil {
			return err
		}
	}
	if err := db.Close(); err != nil {
		return err
	}
	for ext, data := range saved {
		if err := os.WriteFile(path+ext, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
