package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/storage"
)

var dbSeq atomic.Int64

func openDB(t *testing.T, opts string) *sql.DB {
	t.Helper()
	db, err := sql.Open("lancecat", fmt.Sprintf("memory://drivertest-%d%s", dbSeq.Add(1), opts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func strings1(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s sql.NullString
		cols, _ := rows.Columns()
		dest := make([]any, len(cols))
		dest[0] = &s
		for i := 1; i < len(cols); i++ {
			dest[i] = new(any)
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func driverError(t *testing.T, err error) *lancecat.Error {
	t.Helper()
	var e *lancecat.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *driver.Error", err, err)
	}
	return e
}

func TestColumnTypes(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT NOT NULL, c TEXT COMMENT 'x')")
	rows, err := db.Query("SHOW TABLE STATUS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		db       string
		nullable bool
		scan     reflect.Type
	}{
		"Name":    {"VARCHAR", false, reflect.TypeOf("")},
		"Version": {"BIGINT", true, reflect.TypeOf(sql.NullInt64{})},
		"Comment": {"VARCHAR", true, reflect.TypeOf(sql.NullString{})},
	}
	seen := 0
	for _, ct := range cts {
		w, ok := want[ct.Name()]
		if !ok {
			continue
		}
		seen++
		n, ok := ct.Nullable()
		if ct.DatabaseTypeName() != w.db || !ok || n != w.nullable || ct.ScanType() != w.scan {
			t.Errorf("%s: %s nullable=%v scan=%v", ct.Name(), ct.DatabaseTypeName(), n, ct.ScanType())
		}
	}
	if seen != len(want) {
		t.Fatalf("columns %v", cts)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	var name, engine, loc, declared string
	var version, nrows sql.NullInt64
	var comment sql.NullString
	if err := rows.Scan(&name, &engine, &version, &nrows, &loc, &declared, &comment); err != nil {
		t.Fatal(err)
	}
	if name != "t" || version.Int64 != 1 || !nrows.Valid || nrows.Int64 != 0 || comment.Valid || declared != "NO" {
		t.Fatalf("row: %v %v %v %v %v", name, version, nrows, comment, declared)
	}
}

func TestErrorsAndSentinels(t *testing.T) {
	db := openDB(t, "")
	_, err := db.Exec("DROP TABLE nosuch")
	if !errors.Is(err, lancecat.ErrTableNotFound) || errors.Is(err, lancecat.ErrNamespaceNotFound) {
		t.Fatalf("errors.Is mismatch: %v", err)
	}
	e := driverError(t, err)
	if e.Code.String() != "TableNotFound" || e.Line != 1 || e.Column != 1 || e.Statement != "DROP TABLE nosuch" {
		t.Fatalf("%+v", e)
	}
	_, err = db.Exec("CREATE SCHEMA a; CREATE SCHEMA a")
	if !errors.Is(err, lancecat.ErrNamespaceExists) {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE t SET a = 1 LIMIT 1")
	if !errors.Is(err, lancecat.ErrNotSupported) || !strings.Contains(err.Error(), "UPDATE") {
		t.Fatal(err)
	}
	_, err = db.Exec("CREATE TABLE (")
	if !errors.Is(err, lancecat.ErrSyntax) || driverError(t, err).Code.String() != "InvalidInput" {
		t.Fatal(err)
	}
	_, err = db.Exec("DROP SCHEMA a; CREATE TABLE a.t (i INT); DROP SCHEMA nope; CREATE SCHEMA a.b; DROP SCHEMA a")
	if !errors.Is(err, lancecat.ErrNamespaceNotFound) {
		t.Fatal(err)
	}
	// ErrColumnNotFound: the table has no such column (code
	// TableColumnNotFound), for ALTER TABLE and CREATE INDEX alike.
	if _, err := db.Exec("CREATE TABLE cols (i INT)"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE cols DROP COLUMN nope",
		"ALTER TABLE cols RENAME COLUMN nope TO x",
		"CREATE INDEX ix ON cols (nope)",
	} {
		_, err = db.Exec(q)
		if !errors.Is(err, lancecat.ErrColumnNotFound) || errors.Is(err, lancecat.ErrInvalidInput) ||
			driverError(t, err).Code.String() != "TableColumnNotFound" {
			t.Errorf("%s: %v, want ErrColumnNotFound", q, err)
		}
	}
}

// TestScriptStopsAtFirstError: statements before the failing one are
// applied, the rest are not, and the error names the failing statement's
// line and column.
func TestScriptStopsAtFirstError(t *testing.T) {
	db := openDB(t, "")
	script := "CREATE SCHEMA s1;\nCREATE SCHEMA s2;  CREATE SCHEMA s1;\nCREATE SCHEMA s3;"
	_, err := db.Exec(script)
	e := driverError(t, err)
	if e.Code.String() != "NamespaceAlreadyExists" || e.Line != 2 || e.Column != 20 || e.Statement != "CREATE SCHEMA s1" {
		t.Fatalf("%+v", e)
	}
	if got := strings1(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"s1", "s2"}) {
		t.Fatalf("schemas %v", got)
	}
	// A syntax error: the statements before it ran, the position is exact.
	_, err = db.Exec("CREATE SCHEMA s4;\n  CREATE SCHEMA s5 WITH PROPERTIES (k 'v');\nCREATE SCHEMA s6")
	e = driverError(t, err)
	if !errors.Is(err, lancecat.ErrSyntax) || e.Line != 2 || e.Column != 39 {
		t.Fatalf("%+v", e)
	}
	if got := strings1(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"s1", "s2", "s4"}) {
		t.Fatalf("schemas %v", got)
	}
}

// TestPlaceholders: values bind as literals (injection attempts stay
// values), named arguments work, identifiers cannot be bound, and argument
// count mismatches are errors that apply nothing.
func TestPlaceholders(t *testing.T) {
	db := openDB(t, "")
	evil := "x'); DROP SCHEMA keep; --"
	mustExec(t, db, "CREATE SCHEMA keep")
	mustExec(t, db, "CREATE SCHEMA s COMMENT ? WITH PROPERTIES (owner = ?, note = :note)", evil, "o'brien\\", sql.Named("note", "a;b\n`c`"))
	if got := strings1(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"keep", "s"}) {
		t.Fatalf("schemas %v", got)
	}
	var props string
	if err := db.QueryRow("SELECT PROPERTIES FROM information_schema.schemata WHERE SCHEMA_NAME = ?", "s").Scan(&props); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"comment":"x'); DROP SCHEMA keep; --"`, `"owner":"o'brien\\"`, `"note":"a;b\n` + "`c`" + `"`} {
		if !strings.Contains(props, want) {
			t.Errorf("properties %s lack %s", props, want)
		}
	}
	// A bound value in a WHERE clause is compared, never executed.
	got := strings1(t, db, "SELECT SCHEMA_NAME FROM information_schema.schemata WHERE SCHEMA_NAME = ?", "s' OR '1'='1")
	if len(got) != 0 {
		t.Fatalf("injection matched %v", got)
	}
	got = strings1(t, db, "SHOW SCHEMAS LIKE ?", "k%")
	if !reflect.DeepEqual(got, []string{"keep"}) {
		t.Fatalf("LIKE ? gave %v", got)
	}
	// Identifiers cannot be bound.
	if _, err := db.Exec("CREATE SCHEMA ?", "x"); !errors.Is(err, lancecat.ErrSyntax) {
		t.Fatalf("bound identifier: %v", err)
	}
	if _, err := db.Exec("DROP TABLE ?", "keep"); err == nil {
		t.Fatal("bound table name accepted")
	}
	// Count mismatches.
	if _, err := db.Exec("CREATE SCHEMA a COMMENT ?"); !errors.Is(err, lancecat.ErrInvalidInput) {
		t.Fatalf("missing argument: %v", err)
	}
	if _, err := db.Exec("CREATE SCHEMA b; CREATE SCHEMA c COMMENT ?", "x", "y"); !errors.Is(err, lancecat.ErrInvalidInput) {
		t.Fatalf("extra argument: %v", err)
	}
	if got := strings1(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"keep", "s"}) {
		t.Fatalf("schemas after failed binds %v", got)
	}
	// Unsupported argument types are refused by CheckNamedValue.
	if _, err := db.Exec("CREATE SCHEMA d COMMENT ?", struct{}{}); err == nil {
		t.Fatal("struct argument accepted")
	}
	// Prepared statements bind on each execution.
	st, err := db.Prepare("CREATE SCHEMA p COMMENT ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Exec("first"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec("second"); !errors.Is(err, lancecat.ErrNamespaceExists) {
		t.Fatal(err)
	}
}

func TestTransactions(t *testing.T) {
	db := openDB(t, "")
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "CREATE SCHEMA a")
	mustExec(t, tx, "CREATE TABLE a.t1 (i INT); CREATE TABLE a.t2 (i INT)")
	if got := strings1(t, db, "SHOW SCHEMAS"); len(got) != 0 {
		t.Fatalf("uncommitted changes visible: %v", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := strings1(t, db, "SHOW TABLES FROM a"); !reflect.DeepEqual(got, []string{"t1", "t2"}) {
		t.Fatalf("tables %v", got)
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "DROP TABLE a.t1")
	mustExec(t, tx, "CREATE TABLE a.t3 (i INT)")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := strings1(t, db, "SHOW TABLES FROM a"); !reflect.DeepEqual(got, []string{"t1", "t2"}) {
		t.Fatalf("tables after rollback %v", got)
	}

	// A failing commit applies nothing.
	tx, _ = db.BeginTx(ctx, nil)
	mustExec(t, tx, "CREATE TABLE a.t4 (i INT)")
	mustExec(t, tx, "CREATE TABLE a.t1 (i INT)")
	if err := tx.Commit(); !errors.Is(err, lancecat.ErrTableExists) {
		t.Fatalf("commit: %v", err)
	}
	if got := strings1(t, db, "SHOW TABLES FROM a"); !reflect.DeepEqual(got, []string{"t1", "t2"}) {
		t.Fatalf("tables after failed commit %v", got)
	}

	// Refused statements; read-only transactions; isolation levels.
	tx, _ = db.BeginTx(ctx, nil)
	if _, err := tx.Exec("CALL vacuum_catalog('1h')"); !errors.Is(err, lancecat.ErrInvalidInput) || !strings.Contains(err.Error(), "transaction") {
		t.Fatalf("vacuum in tx: %v", err)
	}
	tx.Rollback()
	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Exec("CREATE SCHEMA x"); err == nil {
		t.Fatal("write in read-only transaction")
	}
	if got := strings1(t, ro, "SHOW TABLES FROM a"); len(got) != 2 {
		t.Fatalf("read in read-only tx: %v", got)
	}
	ro.Rollback()
	// The SQL levels are accepted (golang-migrate asks for SERIALIZABLE);
	// levels MySQL has no name for are refused.
	for _, level := range []sql.IsolationLevel{sql.LevelReadUncommitted, sql.LevelReadCommitted, sql.LevelRepeatableRead, sql.LevelSerializable} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
		if err != nil {
			t.Fatalf("%v: %v", level, err)
		}
		if got := strings1(t, tx, "SHOW TABLES FROM a"); len(got) != 2 {
			t.Fatalf("read in %v tx: %v", level, got)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	for _, level := range []sql.IsolationLevel{sql.LevelSnapshot, sql.LevelLinearizable, sql.LevelWriteCommitted} {
		if _, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level}); !errors.Is(err, lancecat.ErrNotSupported) {
			t.Fatalf("%v: %v", level, err)
		}
	}

	// BEGIN ... COMMIT inside one script.
	mustExec(t, db, "BEGIN; CREATE SCHEMA b; CREATE TABLE b.t (i INT); COMMIT")
	if got := strings1(t, db, "SHOW TABLES FROM b"); !reflect.DeepEqual(got, []string{"t"}) {
		t.Fatalf("tables %v", got)
	}
	// An unfinished script transaction is discarded when the pool resets the connection.
	mustExec(t, db, "BEGIN; CREATE SCHEMA never")
	if got := strings1(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("schemas %v", got)
	}
}

func TestMultipleResultSets(t *testing.T) {
	db := openDB(t, "")
	rows, err := db.Query("CREATE SCHEMA a; CREATE SCHEMA b; SHOW SCHEMAS; CREATE TABLE a.t (i INT); SHOW TABLES FROM a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sets [][]string
	for {
		var set []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			set = append(set, s)
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	if !reflect.DeepEqual(sets, [][]string{{"a", "b"}, {"t"}}) {
		t.Fatalf("result sets %v", sets)
	}
}

// TestSessionState: USE lasts for one sql.Conn; pooled connections are reset
// to the ?namespace= default.
func TestSessionState(t *testing.T) {
	name := fmt.Sprintf("memory://drivertest-session-%d", dbSeq.Add(1))
	db, err := sql.Open("lancecat", name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE SCHEMA a; CREATE SCHEMA b; CREATE TABLE a.ta (i INT); CREATE TABLE b.tb (i INT); CREATE TABLE root_t (i INT)")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "USE a")
	if got := strings1(t, conn, "SHOW TABLES"); !reflect.DeepEqual(got, []string{"ta"}) {
		t.Fatalf("USE a on a conn: %v", got)
	}
	conn.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, db, "USE b")
	if got := strings1(t, db, "SHOW TABLES"); !reflect.DeepEqual(got, []string{"root_t"}) {
		t.Fatalf("USE leaked through the pool: %v", got)
	}
	// Another DB on the same name with a default namespace shares the catalog.
	db2, err := sql.Open("lancecat", name+"?namespace=b")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := strings1(t, db2, "SHOW TABLES"); !reflect.DeepEqual(got, []string{"tb"}) {
		t.Fatalf("namespace=b: %v", got)
	}
	mustExec(t, db2, "USE a")
	if got := strings1(t, db2, "SHOW TABLES"); !reflect.DeepEqual(got, []string{"tb"}) {
		t.Fatalf("reset to namespace=b: %v", got)
	}
}

// TestSharedHandle: connections and DBs on one URI share one catalog handle,
// closed with the last connector; memory:// catalogs are discarded then.
func TestSharedHandle(t *testing.T) {
	name := fmt.Sprintf("memory://drivertest-shared-%d", dbSeq.Add(1))
	before := lancecat.OpenHandles()
	db1, _ := sql.Open("lancecat", name)
	db2, _ := sql.Open("lancecat", name+"/")
	if lancecat.OpenHandles() != before {
		t.Fatal("sql.Open did I/O")
	}
	mustExec(t, db1, "CREATE SCHEMA shared")
	if got := strings1(t, db2, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"shared"}) {
		t.Fatalf("db2 sees %v", got)
	}
	if lancecat.OpenHandles() != before+1 {
		t.Fatalf("handles %d, want %d", lancecat.OpenHandles(), before+1)
	}
	db1.Close()
	if got := strings1(t, db2, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"shared"}) {
		t.Fatalf("after closing db1, db2 sees %v", got)
	}
	db2.Close()
	if lancecat.OpenHandles() != before {
		t.Fatalf("handle not released: %d", lancecat.OpenHandles())
	}
	db3, _ := sql.Open("lancecat", name)
	defer db3.Close()
	if got := strings1(t, db3, "SHOW SCHEMAS"); len(got) != 0 {
		t.Fatalf("discarded memory catalog still has %v", got)
	}
	// A private memory:// catalog per DB.
	p1, _ := sql.Open("lancecat", "memory://")
	p2, _ := sql.Open("lancecat", "memory://")
	defer p1.Close()
	defer p2.Close()
	mustExec(t, p1, "CREATE SCHEMA only_p1")
	if got := strings1(t, p2, "SHOW SCHEMAS"); len(got) != 0 {
		t.Fatalf("private catalogs shared: %v", got)
	}
}

func TestReadOnlyOption(t *testing.T) {
	name := fmt.Sprintf("memory://drivertest-ro-%d", dbSeq.Add(1))
	rw, _ := sql.Open("lancecat", name)
	defer rw.Close()
	mustExec(t, rw, "CREATE SCHEMA s")
	ro, _ := sql.Open("lancecat", name+"?read_only=true")
	defer ro.Close()
	if _, err := ro.Exec("CREATE SCHEMA t"); !errors.Is(err, lancecat.ErrPermissionDenied) {
		t.Fatalf("write on read_only: %v", err)
	}
	if got := strings1(t, ro, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{"s"}) {
		t.Fatalf("read_only sees %v", got)
	}
}

func TestContextCancelled(t *testing.T) {
	db := openDB(t, "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := conn.ExecContext(ctx, "CREATE SCHEMA never"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled exec: %v", err)
	}
	if got := strings1(t, db, "SHOW SCHEMAS"); len(got) != 0 {
		t.Fatalf("cancelled statement applied: %v", got)
	}
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestFileCatalogPersists: a local directory catalog outlives its sql.DB,
// is reopened by another one (plain path and file:// URI) and holds the
// Lance `__manifest` table on disk.
func TestFileCatalogPersists(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("lancecat", dir)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE SCHEMA s COMMENT 'kept'; CREATE TABLE s.t (id BIGINT NOT NULL, v VECTOR(2), PRIMARY KEY (id))")
	db.Close()
	if _, err := os.Stat(filepath.Join(dir, "__manifest", "_versions")); err != nil {
		t.Fatalf("no __manifest versions on disk: %v", err)
	}
	db2, err := sql.Open("lancecat", "file://"+filepath.ToSlash(dir)+"?mode=manifest")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := strings1(t, db2, "SHOW TABLES FROM s"); !reflect.DeepEqual(got, []string{"t"}) {
		t.Fatalf("reopened catalog lists %v", got)
	}
	if got := strings1(t, db2, "SELECT COLUMN_KEY FROM information_schema.columns WHERE TABLE_SCHEMA = 's' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION"); !reflect.DeepEqual(got, []string{"PRI", ""}) {
		t.Fatalf("primary key after reopening: %v", got)
	}
}

func TestParseDSN(t *testing.T) {
	cfg, err := lancecat.ParseDSN("s3://bucket/lake?mode=manifest&build_indices=false&commit_retries=5&read_only=1&auto_vacuum_every=100&namespace=a.%60b.c%60&region=us-east-1&storage.endpoint=http://x")
	if err != nil {
		t.Fatal(err)
	}
	want := lancecat.Config{URI: "s3://bucket/lake", Mode: lancecat.ModeManifestOnly, SkipIndexBuild: true, CommitRetries: 5, ReadOnly: true, AutoVacuumEvery: 100,
		Namespace: []string{"a", "b.c"}, StorageOptions: map[string]string{"region": "us-east-1", "endpoint": "http://x"}}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
	for _, bad := range []string{"", "/tmp/x?mdoe=manifest", "memory://x?region=eu", "/x?mode=weird", "/x?build_indices=maybe", "/x?commit_retries=-5", "/x?auto_vacuum_every=-1", "/x?mode=a&mode=b", "/x?namespace=a..b"} {
		if _, err := lancecat.ParseDSN(bad); !errors.Is(err, lancecat.ErrInvalidInput) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := lancecat.NewConnector(lancecat.Config{URI: "/tmp/x", StorageOptions: map[string]string{"a": "b"}}); err == nil {
		t.Error("storage options on a local path accepted")
	}
}

// TestConcurrentDDL: 32 goroutines issue mixed DDL and SHOW through one
// *sql.DB. Every created table that was not dropped is listed exactly once,
// SHOW results are always sorted and duplicate-free, and the only errors are
// the expected ones for racing on shared names.
func TestConcurrentDDL(t *testing.T) {
	db := openDB(t, "")
	db.SetMaxOpenConns(16)
	mustExec(t, db, "CREATE SCHEMA shared")
	const workers, perWorker = 32, 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := map[string]bool{}
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ns := fmt.Sprintf("w%02d", w)
			if _, err := db.Exec("CREATE SCHEMA " + ns); err != nil {
				fail("create schema %s: %v", ns, err)
				return
			}
			for i := 0; i < perWorker; i++ {
				own := fmt.Sprintf("shared.t_%02d_%d", w, i)
				if _, err := db.Exec("CREATE TABLE " + own + " (id BIGINT, v VECTOR(4))"); err != nil {
					fail("create %s: %v", own, err)
					continue
				}
				if i%2 == 0 {
					if _, err := db.Exec("DROP TABLE " + own); err != nil {
						fail("drop %s: %v", own, err)
					}
				} else {
					mu.Lock()
					kept[strings.TrimPrefix(own, "shared.")] = true
					mu.Unlock()
				}
				// Everyone races on the same name: exactly one create can win
				// at a time; the losers get TableAlreadyExists or, if the
				// winner dropped it meanwhile, DROP gets TableNotFound.
				race := fmt.Sprintf("shared.race_%d", i)
				if _, err := db.Exec("CREATE TABLE " + race + " (id INT)"); err != nil && !errors.Is(err, lancecat.ErrTableExists) {
					fail("racing create: %v", err)
				}
				if _, err := db.Exec("DROP TABLE " + race); err != nil && !errors.Is(err, lancecat.ErrTableNotFound) {
					fail("racing drop: %v", err)
				}
				if _, err := db.Exec("CREATE TABLE " + ns + ".own (id INT); DROP TABLE " + ns + ".own"); err != nil {
					fail("own create/drop: %v", err)
				}
				rows, err := db.Query("SHOW TABLES FROM shared")
				if err != nil {
					fail("show: %v", err)
					continue
				}
				var names []string
				for rows.Next() {
					var n string
					rows.Scan(&n)
					names = append(names, n)
				}
				rows.Close()
				if !sort.StringsAreSorted(names) {
					fail("unsorted listing %v", names)
				}
				for j := 1; j < len(names); j++ {
					if names[j] == names[j-1] {
						fail("duplicate %s in listing", names[j])
					}
				}
				if r, err := db.Query("SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'shared'"); err != nil {
					fail("information_schema: %v", err)
				} else {
					r.Close()
				}
			}
		}(w)
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	var got []string
	for _, n := range strings1(t, db, "SHOW TABLES FROM shared") {
		if strings.HasPrefix(n, "race_") {
			// A racing table survives only if a create landed after the
			// last drop; drop the survivors to check the rest exactly.
			mustExec(t, db, "DROP TABLE shared."+n)
			continue
		}
		got = append(got, n)
	}
	var want []string
	for n := range kept {
		want = append(want, n)
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("final listing has %d tables, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	if n := len(strings1(t, db, "SHOW SCHEMAS")); n != workers+1 {
		t.Fatalf("%d schemas", n)
	}
}

// TestAutoVacuumOption: with auto_vacuum_every=K the handle vacuums the
// catalog after every K commits (nothing is old enough to delete within
// the hour, so the effect to observe is that the vacuum ran: the catalog
// stays fully usable and AutoVacuumStats counts the runs).
func TestAutoVacuumOption(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("lancecat", dir+"?auto_vacuum_every=2")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 4; i++ {
		if _, err := db.Exec(fmt.Sprintf("CREATE SCHEMA s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	runs, lastErr := lancecat.AutoVacuumRuns(db)
	if runs != 2 || lastErr != nil {
		t.Fatalf("auto-vacuum runs = %d (err %v), want 2 after 4 commits", runs, lastErr)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata").Scan(&n); err != nil {
		t.Fatal(err)
	}
}

// TestAutoVacuumOnByDefault: without the option the handle vacuums every
// catalog.DefaultAutoVacuumEvery commits; auto_vacuum_every=0 turns it off.
func TestAutoVacuumOnByDefault(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int
	}{{"", 1}, {"?auto_vacuum_every=0", 0}} {
		db, err := sql.Open("lancecat", t.TempDir()+tc.query)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < catalog.DefaultAutoVacuumEvery; i++ {
			if _, err := db.Exec(fmt.Sprintf("CREATE SCHEMA s%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		runs, lastErr := lancecat.AutoVacuumRuns(db)
		db.Close()
		if runs != tc.want || lastErr != nil {
			t.Errorf("%q: auto-vacuum runs = %d (err %v) after %d commits, want %d", tc.query, runs, lastErr, catalog.DefaultAutoVacuumEvery, tc.want)
		}
	}
}

// TestDurabilityOption: durability=none|full parses, reaches the catalog's
// store (full by default), and a none catalog works end to end.
func TestDurabilityOption(t *testing.T) {
	cfg, err := lancecat.ParseDSN("/x?durability=none")
	if err != nil || cfg.Durability != storage.DurabilityNone {
		t.Fatalf("durability=none: %+v, %v", cfg, err)
	}
	if cfg, err := lancecat.ParseDSN("/x?durability=FULL"); err != nil || cfg.Durability != storage.DurabilityFull {
		t.Fatalf("durability=FULL: %+v, %v", cfg, err)
	}
	if _, err := lancecat.ParseDSN("/x?durability=sometimes"); !errors.Is(err, lancecat.ErrInvalidInput) {
		t.Fatalf("durability=sometimes: %v, want InvalidInput", err)
	}
	dir := t.TempDir()
	for query, want := range map[string]storage.Durability{"": storage.DurabilityFull, "?durability=none": storage.DurabilityNone, "?durability=full": storage.DurabilityFull} {
		db, err := sql.Open("lancecat", dir+query)
		if err != nil {
			t.Fatal(err)
		}
		name := "s" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r
			}
			return -1
		}, query)
		if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
			t.Fatal(err)
		}
		got, err := lancecat.StoreDurability(db)
		db.Close()
		if err != nil || got != want {
			t.Errorf("%q: store durability %v (%v), want %v", query, got, err, want)
		}
	}
	db, err := sql.Open("lancecat", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Errorf("%d schemas after creating 3 with different durabilities", n)
	}
}

// TestSubqueryMultipleRowsError: a scalar subquery with two rows, here a
// correlated one met while rows stream, fails with the typed error of
// MySQL's ER_SUBQUERY_NO_1_ROW, positioned at the statement.
func TestSubqueryMultipleRowsError(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE TABLE o (id INT, cust VARCHAR(8)); INSERT INTO o VALUES (1, 'a'), (2, 'b'), (3, 'b')")
	rows, err := db.Query("SELECT id,\n  (SELECT i.id FROM o AS i WHERE i.cust = o.cust) FROM o")
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if !errors.Is(err, lancecat.ErrSubqueryMultipleRows) || !errors.Is(err, lancecat.ErrInvalidInput) {
		t.Fatalf("got %v, want ErrSubqueryMultipleRows", err)
	}
	if got := strings1(t, db, "SELECT cust FROM o AS x WHERE id = (SELECT MIN(i.id) FROM o AS i WHERE i.cust = x.cust) ORDER BY cust"); strings.Join(got, ",") != "a,b" {
		t.Fatalf("correlated MIN: %v", got)
	}
}
