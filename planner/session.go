package planner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

// Options configures a Session.
type Options struct {
	// Namespace is the current namespace a new (or reset) session starts
	// in; nil is the root namespace.
	Namespace catalog.Ident
	// Store is the object store at the catalog root (the one the catalog
	// was opened on). SELECT over table data and INSERT read and append
	// the table datasets through it; without it they fail with a clear
	// error.
	Store storage.Store
	// MaxRows is the sort budget: the rows an ORDER BY without LIMIT (or
	// whose LIMIT+OFFSET exceeds it) keeps in memory (0: DefaultMaxRows).
	// Beyond it, sorted runs of MaxRows rows spill to temporary files in
	// SpillDir (default os.TempDir()) and are merged as the result is read;
	// with NoSpill such a query fails with CodeInvalidInput, naming the
	// limit. Scans without ORDER BY stream and are not bounded by it.
	MaxRows int
	// SortMemory bounds, in estimated bytes, the rows such a sort buffers
	// before spilling a run (0: DefaultSortMemory). It does not apply with
	// NoSpill. It also bounds the keys (PRIMARY KEY, UNIQUE) one LOAD DATA
	// or IMPORT INTO checks in memory, shared by the table's keys; past it
	// they spill sorted runs to SpillDir, or with NoSpill the load fails
	// (loadkeys.go).
	SortMemory int64
	SpillDir   string
	NoSpill    bool
	// Indexes answers scalar-index lookups for predicates the planner can
	// push to an index (nil: ScalarIndexes, the tables' own Lance scalar
	// indices). See IndexLookup.
	Indexes IndexLookup
	// NoIndexes turns index lookups off: every query scans its table.
	NoIndexes bool
	// MaxValueBytes bounds each value a statement's evaluation builds
	// (CONCAT's result and other strings, lists and vectors that functions
	// assemble), in bytes; a larger one fails the statement with
	// CodeInvalidInput wrapping ErrValueTooLarge, checked before the value
	// is built (0: DefaultMaxValueBytes; MySQL's max_allowed_packet).
	MaxValueBytes int64
	// JoinMemory bounds, in estimated bytes, the rows the joins of one
	// query hold in memory (their build sides; 0: DefaultJoinMemory).
	// Past it the query fails with exec.ErrBudgetExceeded (no spill yet).
	JoinMemory int64
	// LockLease is how long an advisory lock (GET_LOCK) lasts without its
	// session renewing it (0: DefaultLockLease); see locks.go.
	LockLease time.Duration
	// LoadDataDir is the directory LOAD DATA [LOCAL] INFILE may read files
	// from (MySQL's secure_file_priv); "" refuses LOAD DATA (load.go).
	LoadDataDir string
	// ImportSources are the object-store URI prefixes (s3://bucket/prefix,
	// gs://..., az://...) IMPORT INTO may read from; nil refuses every
	// URI (importstore.go). StorageOptions are the storage.Options keys
	// (credentials, endpoints) those stores are opened with.
	ImportSources  []string
	StorageOptions map[string]string
}

// DefaultMaxValueBytes is the default of Options.MaxValueBytes: 64 MiB,
// MySQL 8's default max_allowed_packet.
const DefaultMaxValueBytes = 64 << 20

// Session is the state of one connection: the current namespace (USE) and
// the open transaction. A Session is not safe for concurrent use (database/sql
// never uses one connection from two goroutines at once); many sessions may
// share one *catalog.Catalog.
type Session struct {
	cat       *catalog.Catalog
	opts      Options
	defaultNS catalog.Ident
	ns        catalog.Ident
	tx        *txState
	vars      map[string]string // session variables set by SET (variables.go)
	// subq holds the results of the subqueries of the statement being
	// planned (subquery.go); rowEnvs built meanwhile take it.
	subq subqueryValues
	// keyFilters are the join key filters (plan.KeyFilterPlan) the scan
	// planned in this forked session applies: set by sourceTable.Scan,
	// taken by the data plan of the table they name (planDataSelect).
	keyFilters []tableKeyFilter
	// preplanned holds the planned joins (join.go) standing as derived
	// tables of the query above them, by their placeholder FROM item.
	preplanned map[*sqlparse.TableSource]queryPlan
	// pinned, when set, keeps the datasets opened by name (displayName) so
	// that the runs of a correlated subquery read one version each and
	// open it once (subquery.go).
	pinned map[string]*dataset.Dataset
	// fts holds the row sources of full-text queries being planned (fts.go).
	fts map[*sqlparse.Select]queryPlan
	// recursive holds the recursive CTEs of the statement by the
	// placeholder query their references stand for; working, the working
	// table of each one being planned by its placeholder (recursive.go).
	recursive map[string]*recursiveDef
	working   map[string]*workTable
	// renamed holds the CTEs whose column list renames a set operation or
	// a SELECT *, by their placeholder's key (cte.go).
	renamed map[string]*renamedCTE
	// shared holds the CTEs the statement names more than once, computed
	// once, by their placeholder's key (sharedcte.go); a new statement
	// starts a new map (forks keep the one of their statement).
	shared map[string]*sharedCTE
	// stmt is the function library's context of the statement being run
	// (one NOW() per statement), made on first use (funcs.go).
	stmt *expr.Statement
	// advisory holds the session's GET_LOCK locks (locks.go).
	advisory *advisoryLocks
	// execCtx is the context of the statement being executed (GET_LOCK
	// waits under it).
	execCtx context.Context
	// diag is the diagnostics area SHOW WARNINGS reads; stmtTables, that
	// the running statement names a table (warnings.go).
	diag       diagArea
	stmtTables bool
}

// txState is an open transaction: the catalog changes collected so far, to
// be applied by one atomic `__manifest` commit.
type txState struct {
	batch    *catalog.Batch
	readOnly bool
	// indexes are CREATE TABLE's index clauses, built after the commit.
	indexes []pendingIndexes
	// inserts are INSERT ... VALUES into tables the transaction creates,
	// applied after the commit (deferInsert).
	inserts []pendingInsert
	// uniqueKeys are the values the deferred INSERTs put in each UNIQUE
	// column of a table the transaction creates: by table object id, then
	// column name.
	uniqueKeys map[string]map[string]map[string]bool
}

// pendingInsert is an INSERT deferred to COMMIT, with the namespace its
// table name is resolved in.
type pendingInsert struct {
	st *sqlparse.Insert
	id catalog.Ident
	ns catalog.Ident
}

// pendingIndexes are the declared indices of a table created in a
// transaction.
type pendingIndexes struct {
	id   catalog.Ident
	defs []declaredIndex
}

// NewSession starts a session on cat.
func NewSession(cat *catalog.Catalog, opts Options) *Session {
	ns := append(catalog.Ident{}, opts.Namespace...)
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultMaxRows
	}
	if opts.SortMemory <= 0 {
		opts.SortMemory = DefaultSortMemory
	}
	switch {
	case opts.NoIndexes:
		opts.Indexes = nil
	case opts.Indexes == nil:
		opts.Indexes = ScalarIndexes{}
	}
	return &Session{cat: cat, opts: opts, defaultNS: ns, ns: append(catalog.Ident{}, ns...),
		recursive: map[string]*recursiveDef{}, working: map[string]*workTable{},
		renamed: map[string]*renamedCTE{}, shared: map[string]*sharedCTE{}}
}

// Catalog returns the session's catalog.
func (s *Session) Catalog() *catalog.Catalog { return s.cat }

// Namespace returns the current namespace (nil or empty: the root).
func (s *Session) Namespace() catalog.Ident { return append(catalog.Ident{}, s.ns...) }

// InTransaction reports whether a transaction is open.
func (s *Session) InTransaction() bool { return s.tx != nil }

// Reset discards an open transaction and returns to the initial namespace,
// for a connection handed out again by a pool.
func (s *Session) Reset() {
	if s.tx != nil {
		s.tx.batch.Discard()
		s.tx = nil
	}
	s.ns = append(catalog.Ident{}, s.defaultNS...)
	s.vars = nil
	s.stmt, s.stmtTables, s.diag = nil, false, diagArea{} // as COM_RESET_CONNECTION
}

// Begin opens a transaction. Catalog changes made until Commit are applied
// by Commit as one atomic catalog commit; reads inside the transaction see
// the committed catalog (not the transaction's own pending changes).
func (s *Session) Begin(readOnly bool) error {
	if s.tx != nil {
		return errorf(catalog.CodeInvalidInput, "a transaction is already open (nested transactions are not supported)")
	}
	s.tx = &txState{batch: s.cat.NewBatch(), readOnly: readOnly}
	return nil
}

// Commit applies the open transaction's changes in one catalog commit, all
// or nothing. Committing without an open transaction is a no-op, as in
// MySQL.
func (s *Session) Commit(ctx context.Context) error {
	if s.tx == nil {
		return nil
	}
	t := s.tx
	s.tx = nil
	for _, p := range t.inserts {
		if exists, _ := t.batch.PendingTable(p.id); !exists {
			t.batch.Discard()
			return errorf(catalog.CodeInvalidInput, "the transaction inserts into table %s and then drops or renames it; nothing was committed", displayName(p.id))
		}
	}
	if t.batch.Len() == 0 {
		return nil
	}
	created := t.batch.CreatedTables()
	others := t.batch.Len() - len(created)
	if err := t.batch.Commit(ctx); err != nil {
		return err
	}
	// The tables exist now: build the indices their CREATE TABLE declared
	// (a Lance index is a commit of the table's dataset, not of `__manifest`).
	for _, p := range t.indexes {
		if exists, _ := s.tableExists(ctx, p.id); !exists {
			continue
		}
		if err := s.buildDeclaredIndexes(ctx, p.id, p.defs); err != nil {
			return s.undoCreated(ctx, created, others, fmt.Errorf("the indices of table %s were not built: %w", displayName(p.id), err))
		}
	}
	// Then the rows inserted into the tables it created, in statement order.
	ns := s.ns
	defer func() { s.ns = ns }()
	for _, p := range t.inserts {
		s.ns = p.ns
		if _, err := s.insert(ctx, p.st); err != nil {
			return s.undoCreated(ctx, created, others, fmt.Errorf("its INSERT into table %s failed: %w", displayName(p.id), err))
		}
	}
	return nil
}

// undoCreated makes a COMMIT whose work after the catalog commit failed
// leave none of the transaction's tables visible: it drops the tables the
// transaction created again (with the rows and indices already written
// into them). The transaction's other catalog changes (schemas, drops,
// renames) were committed by the one `__manifest` commit and stay; the
// error says so. cause stays matchable with errors.Is/As.
func (s *Session) undoCreated(ctx context.Context, created []catalog.Ident, others int, cause error) error {
	var failed []string
	for _, id := range created {
		if err := s.cat.DropTableIfExists(context.WithoutCancel(ctx), id); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", displayName(id), err))
		}
	}
	kept := "nothing of it remains"
	if others > 0 {
		kept = fmt.Sprintf("its %d other catalog change(s) (schemas, drops, renames, properties) stay committed", others)
	}
	if len(failed) > 0 {
		return fmt.Errorf("COMMIT failed: %w; dropping the tables it created failed for %s", cause, strings.Join(failed, ", "))
	}
	return fmt.Errorf("COMMIT failed: %w; the tables the transaction created were dropped again and %s", cause, kept)
}

// deferInsert defers an INSERT ... VALUES into a table the open transaction
// creates (it does not exist before COMMIT) to the end of COMMIT, after the
// catalog commit and the table's indices: goose creates its version table
// and inserts version 0 in one transaction. The result reports the rows the
// INSERT will add; LastInsertId is 0 (ids are assigned at COMMIT), and
// the errors its rows raise (NOT NULL, range, UNIQUE among the rows the
// transaction inserts; checkDeferredInsert) fail the statement itself. ok is false for any
// other statement.
func (s *Session) deferInsert(ctx context.Context, st sqlparse.Statement) (res *Result, ok bool, err error) {
	ins, isInsert := st.(*sqlparse.Insert)
	if !isInsert || ins.Query != nil {
		return nil, false, nil
	}
	id, err := s.tableIdent(ins.Table)
	if err != nil {
		return nil, false, err
	}
	if exists, touched := s.tx.batch.PendingTable(id); !touched || !exists {
		return nil, false, nil
	}
	if err := s.checkDeferredInsert(ctx, id, ins); err != nil {
		return nil, false, err
	}
	s.tx.inserts = append(s.tx.inserts, pendingInsert{st: ins, id: id, ns: append(catalog.Ident{}, s.ns...)})
	return okResult(int64(len(ins.Rows))), true, nil
}

// checkDeferredInsert runs, when the statement executes, the checks an
// INSERT ... VALUES deferred to COMMIT would fail there: each row is
// converted to the created table's schema (NOT NULL, each type's range) and
// the values of its UNIQUE columns are checked against each other and the
// rows the transaction's earlier INSERTs add (the table is new, so those
// are all its rows). AUTO_INCREMENT values are assigned at COMMIT and
// checked there; REPLACE, IGNORE and ON DUPLICATE KEY UPDATE resolve
// duplicates themselves.
func (s *Session) checkDeferredInsert(ctx context.Context, id catalog.Ident, ins *sqlparse.Insert) error {
	schema := s.tx.batch.PendingSchema(id)
	if schema == nil {
		return nil
	}
	b, fill, err := buildInsertRows(ctx, schema, ins, nil)
	if err != nil {
		return err
	}
	defer b.Release()
	if ins.Replace || ins.Ignore || len(ins.OnDuplicate) > 0 {
		return nil
	}
	// The AUTO_INCREMENT column is not filled yet (the keys holding it are
	// checked at COMMIT): take the other key columns as a record.
	var keys []tableKey
	need := map[int]bool{}
	for _, k := range enforcedKeys(schema) {
		if k.has(fill.auto) {
			continue
		}
		keys = append(keys, k)
		for _, c := range k.cols {
			need[c] = true
		}
	}
	if len(keys) == 0 {
		return nil
	}
	pos := map[int]int{}
	var fields []arrow.Field
	var cols []arrow.Array
	for c := range schema.Fields() {
		if need[c] {
			pos[c] = len(cols)
			fields = append(fields, schema.Field(c))
			cols = append(cols, b.Field(c).NewArray())
		}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
	for _, a := range cols {
		a.Release()
	}
	defer rec.Release()
	if s.tx.uniqueKeys == nil {
		s.tx.uniqueKeys = map[string]map[string]map[string]bool{}
	}
	tbl := s.tx.uniqueKeys[id.ObjectID()]
	if tbl == nil {
		tbl = map[string]map[string]bool{}
		s.tx.uniqueKeys[id.ObjectID()] = tbl
	}
	added := map[string]map[string]bool{}
	for _, k := range keys {
		at := make([]int, len(k.cols))
		for i, c := range k.cols {
			at[i] = pos[c]
		}
		name := strings.Join(k.names(schema), "\x00")
		seen := map[string]bool{}
		for r := 0; r < int(rec.NumRows()); r++ {
			key, shown, ok := keyAt(rec, at, r)
			if !ok {
				continue
			}
			if seen[key] || tbl[name][key] {
				if k.primary {
					return errorf(catalog.CodeInvalidInput, "Duplicate entry '%s' for key 'PRIMARY'", shown)
				}
				return errorf(catalog.CodeInvalidInput, "duplicate entry %s for UNIQUE column %s (row %d; this transaction already inserts it)",
					quoteString(shown), sqlparse.QuoteIdent(schema.Field(k.cols[0]).Name), r+1)
			}
			seen[key] = true
		}
		added[name] = seen
	}
	// Only a statement that passes every check adds its keys.
	for name, keys := range added {
		if tbl[name] == nil {
			tbl[name] = map[string]bool{}
		}
		for k := range keys {
			tbl[name][k] = true
		}
	}
	return nil
}

// Rollback discards the open transaction (a no-op without one).
func (s *Session) Rollback() error {
	if s.tx != nil {
		s.tx.batch.Discard()
		s.tx = nil
	}
	return nil
}

// txMode says how a statement relates to transactions.
type txMode int

const (
	txRead      txMode = iota // reads only: allowed anywhere
	txJoin                    // a catalog change that joins the transaction's batch
	txRefuse                  // a change that cannot be part of an atomic catalog commit
	txImmediate               // a row change: applied at once, also inside a transaction (see Exec)
	txControl                 // BEGIN, COMMIT, ROLLBACK
)

// StatementKind names a statement for messages: "CREATE TABLE", "SHOW TABLES".
func StatementKind(st sqlparse.Statement) string {
	switch n := st.(type) {
	case *sqlparse.Use:
		return "USE"
	case *sqlparse.CreateSchema:
		return "CREATE SCHEMA"
	case *sqlparse.DropSchema:
		return "DROP SCHEMA"
	case *sqlparse.AlterSchema:
		return "ALTER SCHEMA"
	case *sqlparse.CreateTable:
		return "CREATE TABLE"
	case *sqlparse.DropTable:
		return "DROP TABLE"
	case *sqlparse.RenameTable:
		return "RENAME TABLE"
	case *sqlparse.AlterTable:
		return "ALTER TABLE"
	case *sqlparse.ShowSchemas:
		return "SHOW SCHEMAS"
	case *sqlparse.ShowTables:
		return "SHOW TABLES"
	case *sqlparse.ShowCreateTable:
		return "SHOW CREATE TABLE"
	case *sqlparse.ShowCreateSchema:
		return "SHOW CREATE SCHEMA"
	case *sqlparse.ShowColumns:
		return "SHOW COLUMNS"
	case *sqlparse.ShowTableStatus:
		return "SHOW TABLE STATUS"
	case *sqlparse.ShowIndex:
		return "SHOW INDEX"
	case *sqlparse.CreateIndex:
		return "CREATE INDEX"
	case *sqlparse.DropIndex:
		return "DROP INDEX"
	case *sqlparse.Call:
		return "CALL " + strings.ToLower(sqlparse.Name(n.Procedure).String())
	case *sqlparse.Begin:
		return "BEGIN"
	case *sqlparse.Commit:
		return "COMMIT"
	case *sqlparse.Rollback:
		return "ROLLBACK"
	case *sqlparse.Set:
		return "SET"
	case *sqlparse.ShowVariables:
		return "SHOW VARIABLES"
	case *sqlparse.ShowWarnings:
		switch {
		case n.Count && n.Errors:
			return "SHOW COUNT(*) ERRORS"
		case n.Count:
			return "SHOW COUNT(*) WARNINGS"
		case n.Errors:
			return "SHOW ERRORS"
		}
		return "SHOW WARNINGS"
	case *sqlparse.Select:
		return "SELECT"
	case *sqlparse.Insert:
		return "INSERT"
	case *sqlparse.Delete:
		return "DELETE"
	case *sqlparse.Update:
		return "UPDATE"
	case *sqlparse.Explain:
		return "EXPLAIN"
	case *sqlparse.Unsupported:
		return n.Kind
	case *sqlparse.ShowVersions:
		return "SHOW VERSIONS"
	case *sqlparse.TruncateTable:
		return "TRUNCATE TABLE"
	case *sqlparse.OptimizeTable:
		return "OPTIMIZE TABLE"
	case *sqlparse.LoadData:
		return "LOAD DATA"
	case *sqlparse.ImportInto:
		return "IMPORT INTO"
	}
	return fmt.Sprintf("%T", st)
}

func modeOf(st sqlparse.Statement) txMode {
	switch n := st.(type) {
	case *sqlparse.CreateSchema, *sqlparse.DropSchema, *sqlparse.AlterSchema,
		*sqlparse.CreateTable, *sqlparse.DropTable, *sqlparse.RenameTable:
		return txJoin
	case *sqlparse.CreateIndex, *sqlparse.DropIndex:
		return txRefuse // index changes commit to the table dataset, not to `__manifest`
	case *sqlparse.AlterTable:
		if alterHasIndexActions(n) {
			return txRefuse // as CREATE INDEX: index changes commit to the table dataset
		}
		return txImmediate // column changes commit to the table dataset, as row changes do
	case *sqlparse.Call:
		switch procName(n) {
		case "register_table", "deregister_table", "declare_table":
			return txJoin
		case "vacuum_catalog":
			return txRefuse
		case "restore_table", "create_tag", "update_tag", "delete_tag", "vacuum_table":
			return txImmediate // table dataset commits, as row changes
		}
		return txRead // unknown procedures fail as unsupported anyway
	case *sqlparse.Begin, *sqlparse.Commit, *sqlparse.Rollback:
		return txControl
	case *sqlparse.Insert, *sqlparse.Delete, *sqlparse.Update:
		return txImmediate // row changes commit to the table dataset, not to `__manifest`
	case *sqlparse.TruncateTable, *sqlparse.OptimizeTable, *sqlparse.LoadData, *sqlparse.ImportInto:
		return txImmediate
	}
	return txRead
}

// IsWrite reports whether the statement changes the catalog.
func IsWrite(st sqlparse.Statement) bool {
	m := modeOf(st)
	return m == txJoin || m == txRefuse || m == txImmediate
}

// Exec runs one statement. Inside a transaction, catalog changes are
// collected and applied by COMMIT (errors they would raise are raised
// there); statements that cannot join an atomic catalog commit are refused.
//
// INSERT, UPDATE, DELETE and ALTER TABLE inside a transaction are applied
// at once, each as its own Lance commit of the table's dataset, as MySQL
// does for a non-transactional table engine (MyISAM; MySQL's ALTER TABLE
// even commits the transaction): Lance cannot commit several datasets and
// `__manifest` atomically, and clients that wrap every write in BEGIN ...
// COMMIT (GORM's default transaction, goose's migrations) need their rows
// written and their ids back. ROLLBACK does not undo them. An INSERT ...
// VALUES into a table the transaction creates is applied by COMMIT, after
// the catalog commit (deferInsert); other such statements on a table the
// open transaction creates, drops or renames are refused (it does not exist
// yet for them: COMMIT first), and all of them in a READ ONLY transaction.
//
// The statement's notes, warnings and error are what SHOW WARNINGS lists
// next (warnings.go).
func (s *Session) Exec(ctx context.Context, st sqlparse.Statement) (*Result, error) {
	s.beginStatement(st) // a new NOW(), and the previous statement's conditions settled
	res, err := s.exec(ctx, st)
	if err != nil {
		s.warn(expr.LevelError, mysqlErrorCode(err), "%s", errorMessage(err))
	}
	return res, err
}

func (s *Session) exec(ctx context.Context, st sqlparse.Statement) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.subq = nil // the previous statement's subqueries (its rowEnvs keep their own)
	s.shared = map[string]*sharedCTE{}
	s.execCtx = ctx
	if ins, ok := st.(*sqlparse.Insert); ok && ins.Query != nil && (s.tx == nil || !s.tx.readOnly) {
		// INSERT ... SELECT: the query's rows become VALUES (insertselect.go).
		values, err := s.insertQueryValues(ctx, ins)
		if err != nil {
			return nil, err
		}
		if values == nil {
			return okResult(0), nil
		}
		st = values
	}
	if s.tx != nil {
		switch modeOf(st) {
		case txRefuse:
			return nil, errorf(catalog.CodeInvalidInput,
				"%s cannot be part of a transaction (it cannot join an atomic catalog commit); COMMIT or ROLLBACK first", StatementKind(st))
		case txJoin:
			if s.tx.readOnly {
				return nil, errorf(catalog.CodeInvalidInput, "%s is not allowed in a READ ONLY transaction", StatementKind(st))
			}
		case txImmediate:
			if s.tx.readOnly {
				return nil, errorf(catalog.CodeInvalidInput, "%s is not allowed in a READ ONLY transaction", StatementKind(st))
			}
			if res, ok, err := s.deferInsert(ctx, st); ok || err != nil {
				return res, err
			}
			if err := s.checkRowChangeInTx(st); err != nil {
				return nil, err
			}
		}
	}
	switch n := st.(type) {
	case *sqlparse.Begin:
		if err := s.Begin(n.ReadOnly); err != nil {
			return nil, err
		}
		return okResult(0), nil
	case *sqlparse.Commit:
		return okResult(0), s.Commit(ctx)
	case *sqlparse.Rollback:
		return okResult(0), s.Rollback()
	case *sqlparse.Use:
		return s.use(ctx, n)
	case *sqlparse.CreateSchema:
		return s.createSchema(ctx, n)
	case *sqlparse.DropSchema:
		return s.dropSchema(ctx, n)
	case *sqlparse.AlterSchema:
		return s.alterSchema(ctx, n)
	case *sqlparse.CreateTable:
		return s.createTable(ctx, n)
	case *sqlparse.DropTable:
		return s.dropTable(ctx, n)
	case *sqlparse.RenameTable:
		return s.renameTable(ctx, n)
	case *sqlparse.AlterTable:
		return s.alterTable(ctx, n)
	case *sqlparse.ShowSchemas:
		return s.showSchemas(ctx, n)
	case *sqlparse.ShowTables:
		return s.showTables(ctx, n)
	case *sqlparse.ShowTableStatus:
		return s.showTableStatus(ctx, n)
	case *sqlparse.ShowColumns:
		return s.showColumns(ctx, n)
	case *sqlparse.ShowCreateTable:
		return s.showCreateTable(ctx, n)
	case *sqlparse.ShowCreateSchema:
		return s.showCreateSchema(ctx, n)
	case *sqlparse.ShowIndex:
		return s.showIndex(ctx, n)
	case *sqlparse.CreateIndex:
		return s.createIndex(ctx, n)
	case *sqlparse.DropIndex:
		return s.dropIndex(ctx, n)
	case *sqlparse.Call:
		return s.call(ctx, n)
	case *sqlparse.Set:
		return s.set(ctx, n)
	case *sqlparse.ShowVariables:
		return s.showVariables(ctx, n)
	case *sqlparse.ShowWarnings:
		return s.showWarnings(ctx, n)
	case *sqlparse.Select:
		p, err := s.planQuery(ctx, n)
		if err != nil {
			return nil, err
		}
		return p.run(ctx, s)
	case *sqlparse.Explain:
		return s.explain(ctx, n)
	case *sqlparse.Insert:
		return s.insert(ctx, n)
	case *sqlparse.Delete:
		return s.deleteRows(ctx, n)
	case *sqlparse.Update:
		return s.updateRows(ctx, n)
	case *sqlparse.Unsupported:
		return nil, errorf(catalog.CodeUnsupported, "not supported: %s", n.Kind)
	case *sqlparse.ShowVersions:
		return s.showVersions(ctx, n)
	case *sqlparse.TruncateTable:
		return s.truncateTable(ctx, n)
	case *sqlparse.OptimizeTable:
		return s.optimizeTables(ctx, n)
	case *sqlparse.LoadData:
		return s.loadData(ctx, n)
	case *sqlparse.ImportInto:
		return s.importInto(ctx, n)
	}
	return nil, errorf(catalog.CodeUnsupported, "not supported: %s", StatementKind(st))
}

// tableIdent resolves a table name: a one-part name is in the current
// namespace, a longer name is the full path from the root.
func (s *Session) tableIdent(n sqlparse.Name) (catalog.Ident, error) {
	if len(n) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "empty table name")
	}
	if len(n) == 1 {
		return s.ns.Child(n[0]), nil
	}
	return namespaceIdent(n), nil
}

// namespaceIdent resolves a namespace name: always the full path from the
// root (as database names in MySQL). A leading RootSchemaName part names
// the root, so that the names clients build from DATABASE() resolve.
func namespaceIdent(n sqlparse.Name) catalog.Ident {
	if len(n) > 0 && n[0] == RootSchemaName {
		n = n[1:]
	}
	return append(catalog.Ident{}, n...)
}

// checkRowChangeInTx refuses a row change on a table the open transaction
// creates, drops or renames.
func (s *Session) checkRowChangeInTx(st sqlparse.Statement) error {
	var name sqlparse.Name
	switch n := st.(type) {
	case *sqlparse.Insert:
		name = n.Table
	case *sqlparse.Delete:
		name = n.Table
	case *sqlparse.Update:
		name = n.Table
	case *sqlparse.AlterTable:
		name = n.Name
	}
	id, err := s.tableIdent(name)
	if err != nil {
		return err
	}
	if _, touched := s.tx.batch.PendingTable(id); touched {
		return errorf(catalog.CodeInvalidInput,
			"%s on table %s, which this transaction creates, drops or renames: COMMIT first (row and column changes are applied at once, catalog changes at COMMIT; only INSERT ... VALUES into a created table waits for COMMIT)", StatementKind(st), displayName(id))
	}
	return nil
}
