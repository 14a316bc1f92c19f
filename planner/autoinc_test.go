package planner

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// TestInsertDefaultsAndAutoIncrement: omitted columns and DEFAULT take the
// column's DEFAULT; the AUTO_INCREMENT column gets consecutive values,
// LastInsertID is the first one of the statement, explicit values move the
// counter past them.
func TestInsertDefaultsAndAutoIncrement(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT UNSIGNED AUTO_INCREMENT, name VARCHAR(10) NOT NULL DEFAULT 'anon', n INT DEFAULT 7, at DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), PRIMARY KEY (id))")
	before := time.Now().UTC().Truncate(time.Microsecond)
	res := f.exec("INSERT INTO t (name) VALUES ('a'), ('b'), (DEFAULT)")
	after := time.Now().UTC()
	if res.RowsAffected != 3 || res.LastInsertID != 1 {
		t.Fatalf("first INSERT: affected %d, last insert id %d; want 3, 1", res.RowsAffected, res.LastInsertID)
	}
	res = f.exec("INSERT INTO t (id, name, n) VALUES (NULL, 'c', NULL), (0, 'd', DEFAULT)")
	if res.LastInsertID != 4 {
		t.Errorf("second INSERT: last insert id %d, want 4", res.LastInsertID)
	}
	res = f.exec("INSERT INTO t (id, name) VALUES (10, 'x')")
	// No id generated: the explicit id, as MariaDB's OK packet carries
	// (conformance/mariadb TestKeysMatchMariaDB).
	if res.LastInsertID != 10 || res.RowsAffected != 1 {
		t.Errorf("explicit id: last insert id %d, affected %d; want 10, 1", res.LastInsertID, res.RowsAffected)
	}
	if res = f.exec("INSERT INTO t (name) VALUES ('y')"); res.LastInsertID != 11 {
		t.Errorf("after explicit 10: got id %d, want 11", res.LastInsertID)
	}
	got := f.rows("SELECT id, name, n FROM t ORDER BY id")
	want := [][]any{{uint64(1), "a", int64(7)}, {uint64(2), "b", int64(7)}, {uint64(3), "anon", int64(7)},
		{uint64(4), "c", nil}, {uint64(5), "d", int64(7)}, {uint64(10), "x", int64(7)}, {uint64(11), "y", int64(7)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
	stamps := f.rows("SELECT at FROM t WHERE id <= 3")
	first := stamps[0][0].(time.Time)
	if first.Before(before) || first.After(after) {
		t.Errorf("CURRENT_TIMESTAMP default %v not within [%v, %v]", first, before, after)
	}
	for _, r := range stamps {
		if !r[0].(time.Time).Equal(first) {
			t.Errorf("one statement, two timestamps: %v", stamps)
		}
	}
	f.fails("INSERT INTO t (id, name) VALUES ('z', 'q')", catalog.CodeInvalidInput, "is not an integer")
}

// TestAutoIncrementStartsAfterExistingRows: a table whose counter is
// missing (rows written by a writer that does not keep it) continues after
// its largest id.
func TestAutoIncrementStartsAfterExistingRows(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE u (id INT AUTO_INCREMENT, v INT)")
	f.exec("INSERT INTO u (id, v) VALUES (41, 1), (7, 2)")
	_, ds, err := f.s.openTableData(context.Background(), []string{"u"})
	if err != nil {
		t.Fatal(err)
	}
	key := autoIncrementKey(ds.Schema().Field("id").ID)
	if ds.Manifest().TableMetadata[key] != "42" {
		t.Fatalf("counter after explicit 41: %v", ds.Manifest().TableMetadata)
	}
	if _, err := ds.UpdateTableMetadata(context.Background(), nil, []string{key}); err != nil {
		t.Fatal(err)
	}
	if res := f.exec("INSERT INTO u (v) VALUES (2)"); res.LastInsertID != 42 {
		t.Errorf("after 41 without a counter: %d", res.LastInsertID)
	}
}

// execOn runs one statement on a session.
func execOn(s *Session, sql string) (*Result, error) {
	st, err := sqlparse.ParseOne(sql)
	if err != nil {
		return nil, err
	}
	return s.Exec(context.Background(), st)
}

// TestAutoIncrementConcurrentWriters: sessions inserting into one table at
// once never hand out the same id.
func TestAutoIncrementConcurrentWriters(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT AUTO_INCREMENT, w INT, PRIMARY KEY (id))")
	const writers, inserts = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*inserts)
	for w := 0; w < writers; w++ {
		s := NewSession(f.s.cat, f.s.opts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < inserts; i++ {
				if _, err := execOn(s, fmt.Sprintf("INSERT INTO t (w) VALUES (%d), (%d)", w, w)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rows := f.rows("SELECT id FROM t")
	var got []int
	for _, r := range rows {
		got = append(got, int(r[0].(int64)))
	}
	sort.Ints(got)
	if len(got) != writers*inserts*2 {
		t.Fatalf("%d rows, want %d", len(got), writers*inserts*2)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("id %d handed out twice: %v", got[i], got)
		}
	}
}

// TestInsertUnique: UNIQUE columns refuse a repeated value, within the
// statement and against the table; NULLs never collide; a refused INSERT
// writes nothing.
func TestInsertUnique(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id SERIAL, email VARCHAR(20) UNIQUE, nick VARCHAR(9))")
	f.exec("INSERT INTO t (email) VALUES ('a@x'), ('b@x'), (NULL), (NULL)")
	f.fails("INSERT INTO t (email) VALUES ('c@x'), ('c@x')", catalog.CodeInvalidInput, "duplicate entry 'c@x' for UNIQUE column email (rows 1 and 2)")
	f.fails("INSERT INTO t (email) VALUES ('b@x')", catalog.CodeInvalidInput, "duplicate entry 'b@x' for UNIQUE column email (the table already holds it)")
	f.fails("INSERT INTO t (id, email) VALUES (1, 'z@x')", catalog.CodeInvalidInput, "duplicate entry '1' for UNIQUE column id")
	if got := f.rows("SELECT COUNT(*) FROM t"); got[0][0] != int64(4) {
		t.Errorf("refused INSERTs wrote rows: %v", got)
	}
	// CREATE UNIQUE INDEX checks the existing values, then enforces.
	f.exec("INSERT INTO t (nick) VALUES ('n1'), ('n1')")
	f.fails("CREATE UNIQUE INDEX u_nick ON t (nick)", catalog.CodeInvalidInput, "holds 'n1' more than once")
	f.exec("CREATE TABLE v (k INT)")
	f.exec("INSERT INTO v VALUES (1), (2)")
	f.exec("CREATE UNIQUE INDEX u_k ON v (k)")
	f.fails("INSERT INTO v VALUES (2)", catalog.CodeInvalidInput, "duplicate entry '2'")
	f.exec("DROP INDEX u_k ON v")
	f.exec("INSERT INTO v VALUES (2)")
	if d := f.rows("DESCRIBE v"); d[0][3] != "" {
		t.Errorf("after DROP INDEX: Key %v", d[0][3])
	}
}

// TestAutoIncrementMovesPastUpdatedValues: issue 19 finding 5. An UPDATE
// that writes a value above the counter into the AUTO_INCREMENT column
// moves the counter past it (MySQL 8, MariaDB: ids 2, 4, 5, 6, 7 for this
// sequence), so no INSERT hands out a duplicate.
func TestAutoIncrementMovesPastUpdatedValues(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE c (id SERIAL, u VARCHAR(8))")
	f.exec("INSERT INTO c (u) VALUES ('a'), ('b')")
	f.exec("UPDATE c SET id = 4 WHERE u = 'a'")
	if res := f.exec("INSERT INTO c (u) VALUES ('x'), ('y'), ('z')"); res.LastInsertID != 5 {
		t.Errorf("INSERT after UPDATE id = 4: last insert id %d, want 5", res.LastInsertID)
	}
	got := fmt.Sprint(f.rows("SELECT id, u FROM c ORDER BY id"))
	if want := "[[2 b] [4 a] [5 x] [6 y] [7 z]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	// A value below the counter, or a negative one, leaves it alone.
	f.exec("UPDATE c SET id = 3 WHERE u = 'b'")
	if res := f.exec("INSERT INTO c (u) VALUES ('w')"); res.LastInsertID != 8 {
		t.Errorf("INSERT after UPDATE id = 3: last insert id %d, want 8", res.LastInsertID)
	}
	// Arithmetic SET moves it too.
	f.exec("UPDATE c SET id = id + 100 WHERE u = 'w'")
	if res := f.exec("INSERT INTO c (u) VALUES ('v')"); res.LastInsertID != 109 {
		t.Errorf("INSERT after UPDATE id = id + 100 (108): last insert id %d, want 109", res.LastInsertID)
	}
}
