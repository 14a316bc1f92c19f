package planner

import (
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestDeferredInsertChecksAtStatement: an INSERT ... VALUES into a table the
// transaction creates runs its NOT NULL, range and UNIQUE checks when it
// executes (UNIQUE also against the transaction's earlier INSERTs), so the
// failing statement fails and COMMIT writes the good rows only (issue 19).
func TestDeferredInsertChecksAtStatement(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`BEGIN`)
	f.exec(`CREATE TABLE t (id INT NOT NULL, u VARCHAR(8) UNIQUE, small TINYINT)`)
	f.exec(`INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)`)
	f.fails(`INSERT INTO t VALUES (NULL, 'c', 3)`, catalog.CodeInvalidInput, "NOT NULL")
	f.fails(`INSERT INTO t (u, small) VALUES ('c', 3)`, catalog.CodeInvalidInput, "NOT NULL")
	f.fails(`INSERT INTO t VALUES (3, 'c', 300)`, catalog.CodeInvalidInput, "small")
	f.fails(`INSERT INTO t VALUES (3, 'a', 3)`, catalog.CodeInvalidInput, "duplicate entry")
	f.fails(`INSERT INTO t VALUES (3, 'z', 3), (4, 'z', 4)`, catalog.CodeInvalidInput, "duplicate entry")
	f.exec(`INSERT INTO t VALUES (3, 'c', 3)`)
	f.exec(`COMMIT`)
	if got := f.rows(`SELECT id, u FROM t ORDER BY id`); len(got) != 3 {
		t.Fatalf("COMMIT wrote %v, want the three good rows", got)
	}
}

// TestFailedCommitLeavesNoTable: when COMMIT fails after its catalog commit
// (an INSERT checked only at COMMIT fails there), the tables the transaction
// created are dropped again with their rows, and the error says so.
func TestFailedCommitLeavesNoTable(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`BEGIN`)
	f.exec(`CREATE TABLE c (id INT AUTO_INCREMENT UNIQUE, u VARCHAR(8))`)
	f.exec(`INSERT INTO c (id, u) VALUES (5, 'a')`)
	f.exec(`INSERT INTO c (id, u) VALUES (5, 'b')`)
	_, err := f.try(`COMMIT`)
	if err == nil {
		t.Fatal("COMMIT with a duplicate AUTO_INCREMENT value succeeded")
	}
	if c, _ := catalog.CodeOf(err); c != catalog.CodeInvalidInput || !strings.Contains(err.Error(), "dropped again") {
		t.Fatalf("COMMIT: %v (code %v), want InvalidInput saying the tables were dropped again", err, c)
	}
	if got := f.rows(`SHOW TABLES LIKE 'c'`); len(got) != 0 {
		t.Fatalf("a failed COMMIT left its table: %v", got)
	}
	f.exec(`CREATE TABLE c (id INT)`) // the name is free again
}

// TestFailedCommitDropsEveryCreatedTable: the post-commit work of COMMIT
// applies the deferred INSERTs table by table; when a later one fails, the
// rows already applied to an earlier created table go with it (no table is
// left holding part of the transaction's rows), while the transaction's
// other catalog changes stay committed, as the error says.
func TestFailedCommitDropsEveryCreatedTable(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`BEGIN`)
	f.exec(`CREATE SCHEMA kept`)
	f.exec(`CREATE TABLE first (id INT, u VARCHAR(8))`)
	f.exec(`INSERT INTO first VALUES (1, 'a'), (2, 'b')`)
	f.exec(`CREATE TABLE second (id INT AUTO_INCREMENT UNIQUE, u VARCHAR(8))`)
	f.exec(`INSERT INTO second (id, u) VALUES (7, 'a')`)
	f.exec(`INSERT INTO second (id, u) VALUES (7, 'b')`) // checked at COMMIT: a duplicate
	_, err := f.try(`COMMIT`)
	if err == nil {
		t.Fatal("COMMIT with a duplicate AUTO_INCREMENT value succeeded")
	}
	if !strings.Contains(err.Error(), "dropped again") || !strings.Contains(err.Error(), "stay committed") {
		t.Fatalf("COMMIT: %v, want it to say the created tables were dropped and what stays committed", err)
	}
	for _, name := range []string{"first", "second"} {
		if got := f.rows(`SHOW TABLES LIKE '` + name + `'`); len(got) != 0 {
			t.Errorf("a failed COMMIT left table %s: %v", name, got)
		}
	}
	if got := f.rows(`SHOW SCHEMAS LIKE 'kept'`); len(got) != 1 {
		t.Errorf("the transaction's CREATE SCHEMA: %v, want it committed", got)
	}
	f.exec(`CREATE TABLE first (id INT)`) // the names are free again
	if got := f.rows(`SELECT COUNT(*) FROM first`); got[0][0] != int64(0) {
		t.Errorf("the new table holds %v rows of the failed transaction", got[0][0])
	}
}
