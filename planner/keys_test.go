package planner

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"sync"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/sqlparse"
)

// TestPrimaryKeyEnforced: every write path refuses a PRIMARY KEY (one
// column or several) the table or the statement already has, with MySQL's
// 1062 text (MariaDB 10.11 gives the same: '1-2' for a composite key), and
// writes nothing; INSERT IGNORE skips such a row with warning 1062.
func TestPrimaryKeyEnforced(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE p (id BIGINT NOT NULL, v VARCHAR(8), PRIMARY KEY (id))")
	f.exec("CREATE TABLE c (a INT NOT NULL, b VARCHAR(4) NOT NULL, v INT, PRIMARY KEY (a, b))")
	f.exec("CREATE TABLE src (id BIGINT, a INT, b VARCHAR(4))")
	f.exec("INSERT INTO p VALUES (1, 'a'), (2, 'b')")
	f.exec("INSERT INTO c VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3)")
	f.exec("INSERT INTO src VALUES (2, 1, 'y'), (7, 3, 'z'), (7, 3, 'z')")
	write("p1.csv", "3,c\n2,b\n")
	write("p2.csv", "3,c\n4,d\n3,e\n")
	write("c1.csv", "5,q,1\n1,y,9\n")

	cases := []struct {
		sql, want string
	}{
		{"INSERT INTO p VALUES (3, 'c'), (3, 'd')", "Duplicate entry '3' for key 'PRIMARY'"},
		{"INSERT INTO p VALUES (3, 'c'), (1, 'd')", "Duplicate entry '1' for key 'PRIMARY'"},
		{"INSERT INTO p (id, v) SELECT id, 'x' FROM src WHERE id = 2", "Duplicate entry '2' for key 'PRIMARY'"},
		{"INSERT INTO p (id, v) SELECT id, 'x' FROM src WHERE id = 7", "Duplicate entry '7' for key 'PRIMARY'"},
		{"INSERT INTO c VALUES (1, 'y', 5)", "Duplicate entry '1-y' for key 'PRIMARY'"},
		{"INSERT INTO c VALUES (3, 'x', 5), (3, 'x', 6)", "Duplicate entry '3-x' for key 'PRIMARY'"},
		{"INSERT INTO c (a, b) SELECT a, b FROM src WHERE a = 3", "Duplicate entry '3-z' for key 'PRIMARY'"},
		{"LOAD DATA INFILE 'p1.csv' INTO TABLE p FIELDS TERMINATED BY ','", "LOAD DATA line 2: Duplicate entry '2' for key 'PRIMARY' (the table already holds it)"},
		{"LOAD DATA INFILE 'p2.csv' INTO TABLE p FIELDS TERMINATED BY ','", "line 3: Duplicate entry '3' for key 'PRIMARY' (also at line 1)"},
		{"LOAD DATA INFILE 'c1.csv' INTO TABLE c FIELDS TERMINATED BY ','", "Duplicate entry '1-y' for key 'PRIMARY'"},
		{"UPDATE p SET id = 1 WHERE id = 2", "Duplicate entry '1' for key 'PRIMARY'"},
		{"UPDATE p SET id = 5", "Duplicate entry '5' for key 'PRIMARY'"},
		{"UPDATE c SET b = 'y' WHERE a = 1 AND b = 'x'", "Duplicate entry '1-y' for key 'PRIMARY'"},
		{"UPDATE c SET a = 1 WHERE a = 2", "Duplicate entry '1-x' for key 'PRIMARY'"},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			f.t = t
			f.fails(tc.sql, catalog.CodeInvalidInput, tc.want)
			// SHOW ERRORS gives MySQL's error number.
			if got := f.rows("SHOW ERRORS"); len(got) != 1 || got[0][1] != int64(1062) {
				t.Errorf("SHOW ERRORS: %v, want one error 1062", got)
			}
		})
	}
	f.t = t
	if got := rowsText(f.rows("SELECT id, v FROM p ORDER BY id")); got != "1|a\n2|b\n" {
		t.Fatalf("refused writes changed p:\n%s", got)
	}
	if got := rowsText(f.rows("SELECT a, b, v FROM c ORDER BY a, b")); got != "1|x|1\n1|y|2\n2|x|3\n" {
		t.Fatalf("refused writes changed c:\n%s", got)
	}
	// What is not a duplicate still goes in: new keys, an UPDATE that keeps
	// its own key or moves keys without two rows meeting.
	f.exec("INSERT INTO c VALUES (1, 'z', 4), (2, 'y', 5)")
	f.exec("UPDATE c SET v = v + 10 WHERE a = 1")
	f.exec("UPDATE p SET id = id + 10")
	f.exec("INSERT INTO p VALUES (1, 'n')")
	write("p3.csv", "2,m\n3,o\n")
	f.exec("LOAD DATA INFILE 'p3.csv' INTO TABLE p FIELDS TERMINATED BY ','")
	if got := rowsText(f.rows("SELECT id, v FROM p ORDER BY id")); got != "1|n\n2|m\n3|o\n11|a\n12|b\n" {
		t.Fatalf("p:\n%s", got)
	}
	// INSERT IGNORE: warning 1062 per skipped row, the others inserted.
	res := f.exec("INSERT IGNORE INTO c VALUES (1, 'x', 0), (9, 'x', 9), (9, 'x', 8)")
	if res.RowsAffected != 1 {
		t.Fatalf("INSERT IGNORE affected %d rows, want 1", res.RowsAffected)
	}
	if got, want := f.warnings(), "Warning 1062 Duplicate entry '1-x' for key 'PRIMARY'\nWarning 1062 Duplicate entry '9-x' for key 'PRIMARY'"; got != want {
		t.Fatalf("SHOW WARNINGS:\n%s\nwant:\n%s", got, want)
	}
}

// TestPrimaryKeyImportInto: IMPORT INTO checks the PRIMARY KEY across its
// files (the table is empty, as TiDB requires).
func TestPrimaryKeyImportInto(t *testing.T) {
	f, write := loadFixture(t)
	f.exec("CREATE TABLE p (id BIGINT NOT NULL, v VARCHAR(8), PRIMARY KEY (id))")
	write("part1.csv", "1,a\n2,b\n")
	write("part2.csv", "3,c\n1,d\n")
	f.fails("IMPORT INTO p FROM 'part*.csv'", catalog.CodeInvalidInput, "Duplicate entry '1' for key 'PRIMARY' (also at file 'part1.csv', line 1)")
	if n := len(f.rows("SELECT id FROM p")); n != 0 {
		t.Fatalf("a refused IMPORT INTO left %d rows", n)
	}
	write("part2.csv", "3,c\n4,d\n")
	f.exec("IMPORT INTO p FROM 'part*.csv'")
	if got := rowsText(f.rows("SELECT COUNT(*) FROM p")); got != "4\n" {
		t.Fatalf("rows: %s", got)
	}
}

// TestPrimaryKeyThroughIndex: with a BTREE index on the key the check asks
// the index, and still sees rows appended after the index was built
// (fragments the index does not cover are scanned).
func TestPrimaryKeyThroughIndex(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE p (id BIGINT NOT NULL, name VARCHAR(8) NOT NULL, PRIMARY KEY (id), UNIQUE KEY (name))")
	f.exec("INSERT INTO p VALUES (1, 'a'), (2, 'b')")
	f.exec("CREATE INDEX p_id ON p (id)")
	f.exec("INSERT INTO p VALUES (3, 'c')") // not covered by p_id
	f.fails("INSERT INTO p VALUES (4, 'd'), (2, 'e')", catalog.CodeInvalidInput, "Duplicate entry '2' for key 'PRIMARY'")
	f.fails("INSERT INTO p VALUES (3, 'f')", catalog.CodeInvalidInput, "Duplicate entry '3' for key 'PRIMARY'")
	f.fails("INSERT INTO p VALUES (5, 'c')", catalog.CodeInvalidInput, "duplicate entry 'c' for UNIQUE column name (the table already holds it)")
	f.exec("DELETE FROM p WHERE id = 2")
	f.exec("INSERT INTO p VALUES (2, 'b2')") // a deleted key is free again
	if got := rowsText(f.rows("SELECT id, name FROM p ORDER BY id")); got != "1|a\n2|b2\n3|c\n" {
		t.Fatalf("rows:\n%s", got)
	}
}

// TestPrimaryKeyConcurrentInsert: a key is checked against the version the
// commit lands on. Session A checks its key, then (the hook) session B
// commits first: A's append rebases onto B's version, rechecks the rows B
// added, and fails when B inserted the same key (exactly one wins), or
// commits when B's key differs.
func TestPrimaryKeyConcurrentInsert(t *testing.T) {
	for _, tc := range []struct {
		name, other string
		wantFail    bool
	}{
		{"same key", "INSERT INTO p VALUES (7, 'b')", true},
		{"other key", "INSERT INTO p VALUES (8, 'b')", false},
		{"same key by UPDATE", "UPDATE p SET id = 7 WHERE id = 1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := twoSessions(t)
			a.exec("CREATE TABLE p (id BIGINT NOT NULL, v VARCHAR(8), PRIMARY KEY (id))")
			a.exec("INSERT INTO p VALUES (1, 'x')")
			_, err := withOtherCommitFirst(t, b, tc.other, func() (*Result, error) { return a.try("INSERT INTO p VALUES (7, 'a')") })
			if tc.wantFail {
				if err == nil || !errors.Is(err, catalog.ErrInvalidInput) || mysqlErrorCode(err) != 1062 {
					t.Fatalf("A: %v, want 1062", err)
				}
				if got := rowsText(a.rows("SELECT COUNT(*) FROM p WHERE id = 7")); got != "1\n" {
					t.Fatalf("key 7 is there %s times", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("A: %v", err)
			}
			if got := rowsText(a.rows("SELECT id FROM p ORDER BY id")); got != "1\n7\n8\n" {
				t.Fatalf("rows:\n%s", got)
			}
		})
	}
}

// TestPrimaryKeyRace: inserters of one new key racing on two sessions:
// exactly one wins each round, whatever the interleaving.
func TestPrimaryKeyRace(t *testing.T) {
	a, b := twoSessions(t)
	a.exec("CREATE TABLE p (id BIGINT NOT NULL, v INT, PRIMARY KEY (id))")
	for round := 0; round < 8; round++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*fixture{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.s.Exec(context.Background(), mustParse(t, fmt.Sprintf("INSERT INTO p VALUES (%d, %d)", round, i)))
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case mysqlErrorCode(err) != 1062:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d inserts won (%v)", round, won, errs)
		}
	}
	if got := rowsText(a.rows("SELECT COUNT(*), COUNT(DISTINCT id) FROM p")); got != "8|8\n" {
		t.Fatalf("rows: %s", got)
	}
}

// twoSessions are two sessions on one catalog (two writers).
// withOtherCommitFirst runs stmt with the hook beforeKeyCommit making session other commit
// sql once, between stmt's key checks and its commit; the test fails if it never ran.
func withOtherCommitFirst(t *testing.T, other *fixture, sql string, stmt func() (*Result, error)) (*Result, error) {
	t.Helper()
	ran := false
	beforeKeyCommit = func() {
		if !ran {
			ran = true
			other.exec(sql)
		}
	}
	t.Cleanup(func() { beforeKeyCommit = nil })
	res, err := stmt()
	beforeKeyCommit = nil
	if !ran {
		t.Fatal("the hook did not run")
	}
	return res, err
}

func twoSessions(t *testing.T) (*fixture, *fixture) {
	t.Helper()
	uri := fmt.Sprintf("memory://planner-keys-%d/lake", dataSeq.Add(1))
	var out [2]*fixture
	for i := range out {
		lc, err := manifest.OpenCatalog(context.Background(), uri, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lc.Close() })
		out[i] = &fixture{t: t, s: NewSession(lc.Catalog, Options{Store: lc.Store})}
	}
	return out[0], out[1]
}

func mustParse(t *testing.T, sql string) sqlparse.Statement {
	t.Helper()
	stmts, err := sqlparse.Parse(sql)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("parse %s: %v", sql, err)
	}
	return stmts[0]
}

// TestNumberRowsAsMariaDB: AUTO_INCREMENT numbering of mixed explicit and
// generated ids, with the ids and counters MariaDB 10.11 gave for the same
// statements (conformance/mariadb TestKeysMatchMariaDB runs them against
// the server).
func TestNumberRowsAsMariaDB(t *testing.T) {
	const N = -1 // asks for an id
	for _, tc := range []struct {
		bulk    bool
		cur     uint64
		vals    []int64
		ids     []uint64 // 0: the explicit value
		counter uint64
	}{
		{false, 1, []int64{N, 10, N}, []uint64{1, 0, 11}, 12},
		{false, 12, []int64{5, N, N}, []uint64{0, 12, 13}, 15},
		{false, 15, []int64{N, 13}, []uint64{15, 0}, 17},
		{false, 17, []int64{N, 100, N, 50, N}, []uint64{17, 0, 101, 0, 102}, 104},
		{false, 1, []int64{N, N, 10, 5, N, N}, []uint64{1, 2, 0, 0, 11, 12}, 13},
		{false, 1, []int64{3, N, 2, N}, []uint64{0, 4, 0, 5}, 8},
		{false, 1, []int64{N, 20, N, 30, N, N}, []uint64{1, 0, 21, 0, 31, 32}, 33},
		{false, 7, []int64{5, 3}, []uint64{0, 0}, 7},
		{true, 1, []int64{N, 10, N}, []uint64{1, 0, 11}, 13},
		{true, 1, []int64{N, N, 10, N}, []uint64{1, 2, 0, 11}, 15},
	} {
		vals := make([]*big.Int, len(tc.vals))
		for i, v := range tc.vals {
			if v != N {
				vals[i] = big.NewInt(v)
			}
		}
		ids, counter, _, ok := autoNumbering{bulk: tc.bulk}.numberRows(tc.cur, vals)
		if !ok || !reflect.DeepEqual(ids, tc.ids) || counter != tc.counter {
			t.Errorf("bulk %v, counter %d, %v: ids %v, counter %d; want %v, %d", tc.bulk, tc.cur, tc.vals, ids, counter, tc.ids, tc.counter)
		}
	}
}
