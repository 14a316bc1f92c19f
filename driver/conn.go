package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
)

// Conn is one connection: a planner session (current namespace, open
// transaction) on the connector's shared catalog. database/sql never uses a
// Conn from two goroutines at once.
type Conn struct {
	connector    *Connector
	h            *handle
	sess         *planner.Session
	closed       bool
	ownConnector *Connector // set when opened by Driver.Open: closed with the conn
	// lastInsertID is what the last run's INSERTs assigned (see result).
	lastInsertID int64
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.Pinger             = (*Conn)(nil)
	_ driver.SessionResetter    = (*Conn)(nil)
	_ driver.Validator          = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
)

func newConn(c *Connector, h *handle) *Conn {
	return &Conn{connector: c, h: h, sess: planner.NewSession(h.cat, planner.Options{Namespace: catalog.Ident(c.cfg.Namespace), Store: h.store, LockLease: c.cfg.LockLease, LoadDataDir: c.cfg.LoadDataDir,
		ImportSources: c.cfg.ImportSources, StorageOptions: c.cfg.StorageOptions})}
}

func (c *Conn) usable() error {
	if c.closed || c.connector.isClosed() {
		return driver.ErrBadConn
	}
	return nil
}

// Close closes the connection; an open transaction is discarded.
func (c *Conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	// Ends the session: its advisory locks (GET_LOCK) are released.
	c.sess.Close()
	if c.ownConnector != nil {
		return c.ownConnector.Close()
	}
	return nil
}

// IsValid reports whether the connection may be reused by the pool.
func (c *Conn) IsValid() bool { return c.usable() == nil }

// ResetSession discards an open transaction and restores the initial
// namespace before the pool hands the connection out again.
func (c *Conn) ResetSession(ctx context.Context) error {
	if err := c.usable(); err != nil {
		return err
	}
	c.sess.Reset()
	return nil
}

// Ping reads the catalog's root namespace listing.
func (c *Conn) Ping(ctx context.Context) error {
	if err := c.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := c.sess.Catalog().ListNamespaces(ctx, catalog.Ident{}, catalog.ListOptions{Limit: catalog.Limit(1)}); err != nil {
		return errNoPos(err)
	}
	return nil
}

// CheckNamedValue accepts every argument sqlparse.Bind can render as a
// literal: nil, bools, integers, floats (not NaN or infinite), strings,
// []byte, time.Time, sqlparse.Decimal, vectors ([]float32, []float64),
// multivectors ([][]float32, [][]float64), driver.Valuer and pointers to
// those.
func (c *Conn) CheckNamedValue(nv *driver.NamedValue) error {
	if _, ok := nv.Value.(sql.Out); ok {
		return invalidf("OUT parameters are not supported")
	}
	if _, err := sqlparse.FormatLiteral(nv.Value); err != nil {
		name := nv.Name
		if name == "" {
			name = fmt.Sprintf("$%d", nv.Ordinal)
		}
		return invalidf("argument %s: %v", name, err)
	}
	return nil
}

// Begin starts a transaction (legacy interface).
func (c *Conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a transaction. The SQL isolation levels (READ UNCOMMITTED,
// READ COMMITTED, REPEATABLE READ, SERIALIZABLE) and the default are
// accepted, as MySQL accepts them, and all give what lancecat does: every
// statement reads the latest committed version of the catalog and of each
// table it opens (a snapshot per statement, never uncommitted data), the
// transaction's catalog changes commit atomically at COMMIT and conflict
// with concurrent changes by Lance's rules. Levels MySQL has no name for
// (sql.LevelSnapshot, LevelLinearizable, LevelWriteCommitted) are refused.
// ReadOnly gives a transaction that refuses changes.
func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault, sql.LevelReadUncommitted, sql.LevelReadCommitted, sql.LevelRepeatableRead, sql.LevelSerializable:
	default:
		return nil, errNoPos(&catalog.Error{Code: catalog.CodeUnsupported,
			Message: "not supported: isolation level " + sql.IsolationLevel(opts.Isolation).String() + " (lancecat accepts the SQL levels READ UNCOMMITTED to SERIALIZABLE: each statement reads the latest committed versions, catalog changes commit atomically)"})
	}
	if err := c.sess.Begin(opts.ReadOnly); err != nil {
		return nil, errNoPos(err)
	}
	return &tx{c: c}, nil
}

type tx struct{ c *Conn }

// Commit applies the transaction's catalog changes atomically.
func (t *tx) Commit() (err error) {
	if err := t.c.usable(); err != nil {
		return err
	}
	defer recoverAsError(&err, t.c.connector.logger(), sqlparse.Pos{}, "COMMIT")
	return errNoPos(t.c.sess.Commit(context.Background()))
}

// Rollback discards them.
func (t *tx) Rollback() error {
	if t.c.closed {
		return nil
	}
	return errNoPos(t.c.sess.Rollback())
}

// run binds args into query and runs its statements in order, stopping at
// the first error. It returns the result sets produced and the total of
// affected rows.
func (c *Conn) run(ctx context.Context, query string, args []driver.NamedValue) (_ []*planner.Result, _ []sqlparse.Statement, _ int64, err error) {
	defer recoverAsError(&err, c.connector.logger(), sqlparse.Pos{}, query)
	if err := c.usable(); err != nil {
		return nil, nil, 0, err
	}
	text, err := sqlparse.Bind(query, args)
	if err != nil {
		return nil, nil, 0, newError(err, sqlparse.Pos{}, "")
	}
	var sets []*planner.Result
	var stmts []sqlparse.Statement
	var affected int64
	c.lastInsertID = 0
	fail := func(err error) ([]*planner.Result, []sqlparse.Statement, int64, error) {
		for _, s := range sets {
			s.Close()
		}
		return nil, nil, 0, err
	}
	for st, perr := range sqlparse.Statements(text) {
		if perr != nil {
			c.sess.RecordError(perr, true) // a statement that never ran: SHOW ERRORS lists it
			return fail(newError(perr, sqlparse.Pos{}, ""))
		}
		if err := ctx.Err(); err != nil {
			return fail(newError(err, st.Position(), st.Text()))
		}
		res, err := c.exec(ctx, st)
		if err != nil {
			return fail(newError(err, st.Position(), st.Text()))
		}
		if res.HasRows() {
			sets = append(sets, res)
			stmts = append(stmts, st)
		}
		affected += res.RowsAffected
		if res.LastInsertID != 0 {
			c.lastInsertID = res.LastInsertID
		}
	}
	return sets, stmts, affected, nil
}

// exec runs one statement; a panic below it (a bug, or input no check
// foresaw) becomes an Internal error naming the statement instead of taking
// down the program that hosts the driver.
func (c *Conn) exec(ctx context.Context, st sqlparse.Statement) (res *planner.Result, err error) {
	defer recoverAsError(&err, c.connector.logger(), st.Position(), st.Text())
	return c.sess.Exec(ctx, st)
}

// WarningCount is how many notes, warnings and errors the statement run
// last on the connection raised so far (its rows read so far included),
// reached through sql.Conn.Raw; SHOW WARNINGS lists them (see the package
// documentation, Warnings).
func (c *Conn) WarningCount() int { return c.sess.StatementWarningCount() }

// result is an Exec's outcome: the rows affected by its statements and the
// first AUTO_INCREMENT value the last INSERT that assigned any assigned (0:
// none), as MySQL reports them.
type result struct{ affected, lastInsertID int64 }

func (r result) LastInsertId() (int64, error) { return r.lastInsertID, nil }
func (r result) RowsAffected() (int64, error) { return r.affected, nil }

// ExecContext runs a statement or a script.
func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	sets, _, n, err := c.run(ctx, query, args)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		s.Close() // Exec discards rows: do not read them
	}
	return result{n, c.lastInsertID}, nil
}

// QueryContext runs a statement or a script and returns the result sets of
// its statements that produced one.
func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	sets, stmts, _, err := c.run(ctx, query, args)
	if err != nil {
		return nil, err
	}
	rows := newRows(sets, stmts, c.connector.logger())
	rows.failed = func(err error) { c.sess.RecordError(err, false) }
	return rows, nil
}

// Prepare prepares a statement (legacy interface).
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext returns a statement that binds its arguments and runs the
// text on each execution (statements are parsed after binding, so that
// values are checked by the parser like any literal).
func (c *Conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	return &stmt{c: c, query: query}, nil
}

type stmt struct {
	c      *Conn
	query  string
	closed bool
}

var (
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

func (s *stmt) Close() error  { s.closed = true; return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) check() error {
	if s.closed {
		return invalidf("statement is closed")
	}
	return nil
}

func namedValues(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), namedValues(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), namedValues(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.c.ExecContext(ctx, s.query, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.c.QueryContext(ctx, s.query, args)
}
