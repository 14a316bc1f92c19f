package driver

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/internal/failpoint"
	"github.com/lancecat/lancecat/sqlparse"
)

// logRecords decodes the JSON lines a slog.JSONHandler wrote.
func logRecords(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// A panic under a statement becomes an Internal error that names the
// statement, not a crash of the host program; the stack goes to the log at
// Error level, not to the caller.
func TestRecoverAsError(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	run := func() (err error) {
		defer recoverAsError(&err, log, sqlparse.Pos{Line: 2, Column: 1}, "SELECT boom FROM ns.t")
		var m map[string]int
		m["x"] = 1 // nil map write: a runtime panic
		return nil
	}
	err := run()
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if !errors.Is(err, catalog.ErrInternal) || de.Line != 2 || !strings.Contains(de.Message, "SELECT boom FROM ns.t") {
		t.Fatalf("err = %+v, want Internal at line 2 naming the statement", de)
	}
	if strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("stack shown to the user: %v", err)
	}
	recs := logRecords(t, &buf)
	if len(recs) != 1 {
		t.Fatalf("%d log records, want 1: %s", len(recs), buf.String())
	}
	rec := recs[0]
	if rec["level"] != "ERROR" || rec["statement"] != "SELECT boom FROM ns.t" {
		t.Fatalf("log record %v: want level ERROR naming the statement", rec)
	}
	if p, _ := rec["panic"].(string); !strings.Contains(p, "nil map") {
		t.Fatalf("log record's panic %q does not say what panicked", p)
	}
	// The stack leads to the line that panicked (this test's closure).
	if s, _ := rec["stack"].(string); !strings.Contains(s, "goroutine") || !strings.Contains(s, "recover_test.go") {
		t.Fatalf("log record's stack does not reach the panicking frame:\n%s", s)
	}
}

// Through database/sql: a panic deep inside an INSERT's data commit (a
// failpoint armed to panic where the data files are staged) reaches the
// caller as an Internal error, the connector's Logger receives the stack
// down to the dataset commit, and a secret in the statement is redacted in
// the log. The catalog stays usable afterwards.
func TestRecoveredPanicIsLoggedWithStack(t *testing.T) {
	var buf bytes.Buffer
	cn, err := NewConnector(Config{URI: t.TempDir(), Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(cn)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA ns; CREATE TABLE ns.t (id BIGINT, uri VARCHAR(200))"); err != nil {
		t.Fatal(err)
	}
	const secret = "wJalrXUtnFEMIK7MDENGbPxRfiCY"
	h := failpoint.ArmPanic("dataset/files-staged", 1)
	_, err = db.ExecContext(ctx, "INSERT INTO ns.t VALUES (1, 's3://bkt/p?aws_secret_access_key="+secret+"')")
	h.Disarm()
	select {
	case <-h.Fired():
	default:
		t.Fatal("the INSERT never reached the armed failpoint")
	}
	if !errors.Is(err, catalog.ErrInternal) || !strings.Contains(err.Error(), "INSERT INTO ns.t") {
		t.Fatalf("INSERT after a panic: %v, want an Internal error naming the statement", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("error shows a secret or the stack: %v", err)
	}
	recs := logRecords(t, &buf)
	if len(recs) != 1 {
		t.Fatalf("%d log records, want 1: %s", len(recs), buf.String())
	}
	rec := recs[0]
	if rec["level"] != "ERROR" {
		t.Fatalf("level %v, want ERROR", rec["level"])
	}
	if st, _ := rec["statement"].(string); !strings.Contains(st, "INSERT INTO ns.t") {
		t.Fatalf("logged statement %q", st)
	}
	if p, _ := rec["panic"].(string); !strings.Contains(p, "dataset/files-staged") {
		t.Fatalf("logged panic %q", p)
	}
	if s, _ := rec["stack"].(string); !strings.Contains(s, "lance/dataset/commit.go") || !strings.Contains(s, "driver.(*Conn).exec") {
		t.Fatalf("logged stack does not run from the driver down to the dataset commit:\n%s", s)
	}
	if strings.Contains(buf.String(), secret) {
		t.Fatalf("the log holds the secret: %s", buf.String())
	}
	// The driver is still usable: the failed INSERT left no row, a new one lands.
	if _, err := db.ExecContext(ctx, "INSERT INTO ns.t VALUES (2, 'x')"); err != nil {
		t.Fatalf("INSERT after the recovered panic: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ns.t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows after the recovered panic: %d, %v; want 1", n, err)
	}
}

// Without Config.Logger the panic goes to slog.Default().
func TestRecoveredPanicDefaultLogger(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer slog.SetDefault(prev)
	cn, err := NewConnector(Config{URI: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(cn)
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	h := failpoint.ArmPanic("dataset/files-staged", 1)
	_, err = db.Exec("INSERT INTO t VALUES (1)")
	h.Disarm()
	if !errors.Is(err, catalog.ErrInternal) {
		t.Fatalf("INSERT: %v, want Internal", err)
	}
	recs := logRecords(t, &buf)
	if len(recs) != 1 || recs[0]["level"] != "ERROR" || !strings.Contains(fmt.Sprint(recs[0]["stack"]), "goroutine") {
		t.Fatalf("default logger got %s", buf.String())
	}
}
