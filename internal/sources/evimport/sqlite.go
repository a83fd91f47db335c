package evimport

import (
	"errors"
	"net/url"
	"path/filepath"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteConn is a read-only connection to a database through SQLite's
// own API (modernc.org/sqlite/lib, the SQLite in pure Go the driver is
// made of), not database/sql: a row's text is read where SQLite holds
// it and copied once, into the session's lines, where database/sql
// copies it twice (the driver's string, then the caller's bytes), locks
// and allocates for every row. One goroutine uses a connection at a
// time (its TLS is SQLite's thread).
type sqliteConn struct {
	tls   *libc.TLS
	db    uintptr
	stmts map[string]uintptr // prepared once, reset for each query
}

// openSQLite opens the database at path read-only: a reader of a
// database in WAL mode takes no lock that stalls its writer, and reads
// the rows still in the -wal file. A busy timeout rides over the moment
// a writer holds the WAL index while it recovers it.
func openSQLite(path string) (*sqliteConn, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c := &sqliteConn{tls: libc.NewTLS(), stmts: map[string]uintptr{}}
	name, err := libc.CString("file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?mode=ro")
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	// SQLite writes the handle into memory of its own heap (Go's rules
	// forbid its pointer arithmetic on Go memory: -race checks them)
	pdb := c.tls.Alloc(8)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb, sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_URI, 0)
	c.db = *(*uintptr)(unsafe.Add(nil, pdb))
	c.tls.Free(8)
	if rc == sqlite3.SQLITE_OK {
		sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, 5000)
		err = c.exec("PRAGMA query_only = 1")
	} else {
		err = c.err(rc)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// err is SQLite's message for rc.
func (c *sqliteConn) err(rc int32) error {
	if c.db != 0 {
		if msg := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); msg != "" {
			return errors.New(msg)
		}
	}
	return errors.New(libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc)))
}

// query runs sql with the text arguments args: its rows are read with
// step, text and int, until step says there are no more.
func (c *sqliteConn) query(sql string, args ...string) (uintptr, error) {
	stmt := c.stmts[sql]
	if stmt == 0 {
		z, err := libc.CString(sql)
		if err != nil {
			return 0, err
		}
		pstmt := c.tls.Alloc(8) // as the handle in openSQLite
		rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, z, -1, pstmt, 0)
		stmt = *(*uintptr)(unsafe.Add(nil, pstmt))
		c.tls.Free(8)
		libc.Xfree(c.tls, z)
		if rc != sqlite3.SQLITE_OK {
			return 0, c.err(rc)
		}
		c.stmts[sql] = stmt
	}
	sqlite3.Xsqlite3_reset(c.tls, stmt)
	for i, a := range args {
		z, err := libc.CString(a)
		if err != nil {
			return 0, err
		}
		// SQLITE_TRANSIENT: SQLite copies the text before it returns
		rc := sqlite3.Xsqlite3_bind_text(c.tls, stmt, int32(i+1), z, int32(len(a)), sqlite3.SQLITE_TRANSIENT)
		libc.Xfree(c.tls, z)
		if rc != sqlite3.SQLITE_OK {
			return 0, c.err(rc)
		}
	}
	return stmt, nil
}

// step moves stmt to its next row: false at the end or on an error.
func (c *sqliteConn) step(stmt uintptr) (bool, error) {
	switch rc := sqlite3.Xsqlite3_step(c.tls, stmt); rc {
	case sqlite3.SQLITE_ROW:
		return true, nil
	case sqlite3.SQLITE_DONE:
		return false, nil
	default:
		return false, c.err(rc)
	}
}

// text is column i of stmt's row, where SQLite holds it: valid until
// stmt steps again or is reset.
func (c *sqliteConn) text(stmt uintptr, i int32) []byte {
	p := sqlite3.Xsqlite3_column_text(c.tls, stmt, i) // before its length: the text is made first
	n := sqlite3.Xsqlite3_column_bytes(c.tls, stmt, i)
	if p == 0 || n <= 0 {
		return nil
	}
	// p is SQLite's memory (libc's heap, not Go's): no Go pointer
	// rules apply to it
	return unsafe.Slice((*byte)(unsafe.Add(nil, p)), n)
}

// int is column i of stmt's row as an integer.
func (c *sqliteConn) int(stmt uintptr, i int32) int64 {
	return sqlite3.Xsqlite3_column_int64(c.tls, stmt, i)
}

// exec runs sql, which returns no row.
func (c *sqliteConn) exec(sql string) error {
	stmt, err := c.query(sql)
	if err == nil {
		_, err = c.step(stmt)
		sqlite3.Xsqlite3_reset(c.tls, stmt)
	}
	return err
}

// release resets every statement: one left on a row holds a read
// transaction open, its snapshot (stale for the next read) and the WAL
// a checkpoint cannot get past.
func (c *sqliteConn) release() {
	for _, stmt := range c.stmts {
		sqlite3.Xsqlite3_reset(c.tls, stmt)
	}
}

// close finalizes the statements and closes the connection.
func (c *sqliteConn) close() {
	for _, stmt := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, stmt)
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
	}
	c.tls.Close()
}
