package clients

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// statementLog records every statement a client sends through a *sql.DB
// opened by openLoggedCatalog, with its arguments and its error, so that a
// failing test names the statement (t.Log prints it with the failure).
type statementLog struct {
	t  *testing.T
	mu sync.Mutex
	n  int
	// sent are the statements so far, for tests that check what a client sent.
	sent []string
}

func (l *statementLog) record(query string, args []driver.NamedValue, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.sent = append(l.sent, query)
	var vals []string
	for _, a := range args {
		vals = append(vals, fmt.Sprintf("%#v", a.Value))
	}
	msg := fmt.Sprintf("sql #%d: %s", l.n, strings.Join(strings.Fields(query), " "))
	if len(vals) > 0 {
		msg += " -- args " + strings.Join(vals, ", ")
	}
	if err != nil {
		msg += " -- ERROR: " + err.Error()
	}
	l.t.Log(msg)
}

// statements returns the statements sent so far.
func (l *statementLog) statements() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.sent...)
}

// openLoggedCatalog opens a fresh on-disk catalog whose *sql.DB logs every
// statement (dsnSuffix: URI options such as "?lock_lease=2s").
func openLoggedCatalog(t *testing.T, dsnSuffix string) (*sql.DB, string, *statementLog) {
	t.Helper()
	root := t.TempDir()
	plain, err := sql.Open("lancecat", root+dsnSuffix)
	if err != nil {
		t.Fatal(err)
	}
	dc, ok := plain.Driver().(driver.DriverContext)
	if !ok {
		t.Fatal("the lancecat driver has no OpenConnector")
	}
	inner, err := dc.OpenConnector(root + dsnSuffix)
	plain.Close()
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{t: t}
	db := sql.OpenDB(&logConnector{inner: inner, log: log})
	t.Cleanup(func() { db.Close() })
	return db, root, log
}

type logConnector struct {
	inner driver.Connector
	log   *statementLog
}

func (c *logConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &logConn{Conn: conn, log: c.log}, nil
}

func (c *logConnector) Driver() driver.Driver { return c.inner.Driver() }

// logConn forwards to the lancecat connection, logging statements. It
// implements the optional interfaces lancecat's connection has.
type logConn struct {
	driver.Conn
	log *statementLog
}

func (c *logConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	c.log.record(query, args, err)
	return res, err
}

func (c *logConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	c.log.record(query, args, err)
	return rows, err
}

func (c *logConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		c.log.record("PREPARE "+query, nil, err)
		return nil, err
	}
	return &logStmt{Stmt: st, query: query, log: c.log}, nil
}

func (c *logConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	c.log.record(fmt.Sprintf("BEGIN (database/sql BeginTx, isolation %v, read only %t)", sql.IsolationLevel(opts.Isolation), opts.ReadOnly), nil, err)
	if err != nil {
		return nil, err
	}
	return &logTx{Tx: tx, log: c.log}, nil
}

func (c *logConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *logConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

func (c *logConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

func (c *logConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

type logTx struct {
	driver.Tx
	log *statementLog
}

func (t *logTx) Commit() error {
	err := t.Tx.Commit()
	t.log.record("COMMIT", nil, err)
	return err
}

func (t *logTx) Rollback() error {
	err := t.Tx.Rollback()
	t.log.record("ROLLBACK", nil, err)
	return err
}

type logStmt struct {
	driver.Stmt
	query string
	log   *statementLog
}

func (s *logStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	s.log.record(s.query, args, err)
	return res, err
}

func (s *logStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	s.log.record(s.query, args, err)
	return rows, err
}
