package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
)

// TestIndexDDL: CREATE INDEX, SHOW INDEX and DROP INDEX on a user table,
// with multi-part names, and their errors.
func TestIndexDDL(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA a; CREATE SCHEMA a.b; CREATE TABLE a.b.t (id INT NOT NULL, name VARCHAR(10), flag BOOLEAN, emb VECTOR(2), d DECIMAL(5,2), PRIMARY KEY (id))`)
	f.exec(`INSERT INTO a.b.t (id, name, flag) VALUES (1, 'x', TRUE), (2, 'y', FALSE)`)
	f.exec(`CREATE INDEX id_idx ON a.b.t (id)`)
	f.exec(`CREATE INDEX IF NOT EXISTS flag_bm ON a.b.t (FLAG) USING BITMAP`)
	f.exec(`CREATE INDEX IF NOT EXISTS flag_bm ON a.b.t (name) USING BTREE`) // exists: no-op
	f.exec(`USE a.b; CREATE INDEX name_bt USING BTREE ON t (name)`)
	f.exec(`INSERT INTO t (id) VALUES (3)`) // a fragment no index covers
	got := f.rows(`SHOW INDEX FROM a.b.t`)
	want := [][]any{
		{"t", int64(0), "PRIMARY", int64(1), "id", "", "UNENFORCED", "Lance unenforced primary key", nil, nil},
		{"t", int64(1), "id_idx", int64(1), "id", "", "BTREE", "Lance scalar index (1 segment(s))", "[0]", "[1]"},
		{"t", int64(1), "flag_bm", int64(1), "flag", "YES", "BITMAP", "Lance scalar index (1 segment(s))", "[0]", "[1]"},
		{"t", int64(1), "name_bt", int64(1), "name", "YES", "BTREE", "Lance scalar index (1 segment(s))", "[0]", "[1]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SHOW INDEX:\n got %v\nwant %v", got, want)
	}
	if got := f.rows(`SHOW INDEX FROM t WHERE Index_type = 'BITMAP'`); len(got) != 1 || got[0][2] != "flag_bm" {
		t.Fatalf("SHOW INDEX WHERE: %v", got)
	}
	// The index is the one lance/index reads, with the kind asked for.
	_, ds, err := f.s.openTableData(context.Background(), []string{"a", "b", "t"})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), ds, "flag_bm")
	if err != nil || ix.Kind() != index.KindBitmap || ix.Field().Name != "flag" {
		t.Fatalf("open flag_bm: %v %v", ix, err)
	}

	f.fails(`CREATE INDEX id_idx ON a.b.t (name)`, catalog.CodeTableIndexAlreadyExists, "already has an index named id_idx")
	f.fails(`CREATE INDEX i ON a.b.t (nosuch)`, catalog.CodeTableColumnNotFound, "no column nosuch")
	f.fails(`CREATE INDEX i ON a.b.t (id) USING HASH`, catalog.CodeUnsupported, "index type HASH")
	f.fails(`CREATE INDEX i ON a.b.t (id) USING LABEL_LIST`, catalog.CodeInvalidInput, "LABEL_LIST index needs a list column; id is INT")
	f.fails(`CREATE INDEX i ON a.b.t (emb)`, catalog.CodeInvalidInput, "BTREE index needs a scalar column")
	f.fails(`CREATE INDEX i ON a.b.t (d)`, catalog.CodeUnsupported, "BTREE index on d (DECIMAL(5,2))")
	f.fails(`CREATE INDEX i ON a.b.nosuch (id)`, catalog.CodeTableNotFound, "")
	f.fails(`CREATE INDEX i ON information_schema.tables (id)`, catalog.CodeInvalidInput, "no indices")
	f.fails(`DROP INDEX nosuch ON a.b.t`, catalog.CodeTableIndexNotFound, "no index named nosuch")
	f.exec(`DROP INDEX IF EXISTS nosuch ON a.b.t`)
	f.exec(`CALL declare_table('a.b.later')`)
	f.fails(`CREATE INDEX i ON a.b.later (id)`, catalog.CodeInvalidTableState, "declared")

	// Refused inside a transaction, before anything is written.
	f.exec(`BEGIN`)
	f.fails(`CREATE INDEX i2 ON a.b.t (id)`, catalog.CodeInvalidInput, "CREATE INDEX cannot be part of a transaction")
	f.fails(`DROP INDEX id_idx ON a.b.t`, catalog.CodeInvalidInput, "DROP INDEX cannot be part of a transaction")
	f.exec(`ROLLBACK`)

	f.exec(`DROP INDEX id_idx ON a.b.t`)
	names := []string{}
	for _, r := range f.rows(`SHOW INDEX FROM a.b.t`) {
		names = append(names, r[2].(string))
	}
	if !reflect.DeepEqual(names, []string{"PRIMARY", "flag_bm", "name_bt"}) {
		t.Fatalf("after DROP INDEX: %v", names)
	}
	// Dropping and re-creating under the same name works.
	f.exec(`CREATE INDEX id_idx ON a.b.t (id) USING BITMAP`)
	if got := f.rows(`SELECT name FROM a.b.t WHERE id = 2`); !reflect.DeepEqual(got, [][]any{{"y"}}) {
		t.Fatalf("select through re-created index: %v", got)
	}
}

// countingIndexes is ScalarIndexes that counts the lookups it served.
type countingIndexes struct {
	ScalarIndexes
	served, asked int
}

func (c *countingIndexes) Serve(ds *dataset.Dataset, p IndexPredicate) (string, index.Query, bool) {
	c.asked++
	name, q, ok := c.ScalarIndexes.Serve(ds, p)
	if ok {
		c.served++
	}
	return name, q, ok
}

// TestIndexedSelectMatchesScan: random predicates over indexed columns
// return exactly what the scan without indices returns, with some
// fragments not covered by the indices and some rows deleted; most of them
// are answered through an index.
func TestIndexedSelectMatchesScan(t *testing.T) {
	counter := &countingIndexes{}
	f := newDataFixture(t, Options{Indexes: counter})
	plain := NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, NoIndexes: true})
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", "ab", "abc", "b", "ba", "x%y", "ñu", "A", "ab "}
	lit := func(v any) string {
		switch x := v.(type) {
		case nil:
			return "NULL"
		case string:
			return quoteString(x)
		}
		return fmt.Sprint(v)
	}
	randRow := func(id int) string {
		var s any = strs[r.IntN(len(strs))]
		if r.IntN(10) == 0 {
			s = nil
		}
		var k any = int64(r.IntN(40) - 20)
		if r.IntN(12) == 0 {
			k = nil
		}
		var b any = r.IntN(2) == 0
		if r.IntN(8) == 0 {
			b = nil
		}
		fl := lit(float64(r.IntN(9)-4) / 2)
		switch r.IntN(10) {
		case 0:
			fl = "NULL"
		case 1:
			fl = "-0e0" // negative zero: equal to 0, apart from it in the index
		}
		return fmt.Sprintf("(%d, %s, %s, %s, %s, %d)", id, lit(k), lit(s), lit(b), fl, r.IntN(5))
	}
	insert := func(n int) {
		rows := make([]string, n)
		for i := range rows {
			rows[i] = randRow(int(dataSeq.Add(1)))
		}
		f.exec("INSERT INTO p VALUES " + strings.Join(rows, ", "))
	}
	f.exec(`CREATE TABLE p (id BIGINT NOT NULL, k BIGINT, s VARCHAR(10), b BOOLEAN, fl DOUBLE, u INT UNSIGNED)`)
	for range 3 {
		insert(150)
	}
	f.exec(`CREATE INDEX k_bt ON p (k); CREATE INDEX s_bt ON p (s); CREATE INDEX b_bm ON p (b) USING BITMAP; CREATE INDEX fl_bt ON p (fl); CREATE INDEX u_bm ON p (u) USING BITMAP`)
	insert(100) // uncovered fragment
	// Delete some rows of covered fragments and of the uncovered one.
	_, ds, err := f.s.openTableData(context.Background(), []string{"p"})
	if err != nil {
		t.Fatal(err)
	}
	var del []uint64
	for frag := range uint64(4) {
		for range 20 {
			del = append(del, frag<<32|uint64(r.IntN(100)))
		}
	}
	if _, err := ds.Delete(context.Background(), del); err != nil {
		t.Fatal(err)
	}
	same := func(sqlText string) {
		t.Helper()
		got, err := f.try(sqlText)
		if err != nil {
			t.Fatalf("%s: %v", sqlText, err)
		}
		wantRes, err := (&fixture{t: t, s: plain}).try(sqlText)
		if err != nil {
			t.Fatalf("%s (no index): %v", sqlText, err)
		}
		if !reflect.DeepEqual(got.Rows, wantRes.Rows) {
			t.Fatalf("%s:\n indexed %v\n scanned %v", sqlText, got.Rows, wantRes.Rows)
		}
	}
	// Every pushable form, each served by an index (served counts them).
	for _, where := range []string{
		"k < 2.5", "k <= -2.5", "k > 2.5", "k >= -2.5", "2.5 > k", "-3 <= k", "k < 3", "k <= 3", "k > -3", "k >= 3",
		"k BETWEEN -2.5 AND 3.5", "k BETWEEN 3 AND -3", "k IS NULL", "k <=> NULL", "k <=> 3", "k IN (1, NULL, -4)",
		"s < 'ab'", "s >= 'b'", "s BETWEEN 'a' AND 'b'", "'ab' < s", "s > ''", "s IS NULL",
		"b IS NULL", "b = TRUE", "fl IS NULL", "fl = 0.5", "fl = 0", "fl = -0.0", "fl >= 0", "fl > 0", "fl <= 0", "fl < 0",
		"fl BETWEEN -1 AND 0", "fl BETWEEN 0 AND 1.5", "0 < fl", "fl > -1.5", "k = 1 + 2", "k < 10 - 3 * 2", "fl >= -(0.5 + 1)",
		"u > 2", "u < -1", "u >= 1.5", "u <= 2.5", "u BETWEEN 1 AND 3", "u IS NULL",
		"k > 1e15", "k < -1e15", "k < 7 AND s = 'a'", "k > 0 AND b = TRUE AND s LIKE 'a%'", "u BETWEEN 1 AND 3 AND k < 0 AND s >= 'ab'",
	} {
		before := counter.served
		same("SELECT * FROM p WHERE " + where)
		same("SELECT id FROM p WHERE " + where + " ORDER BY k DESC, id LIMIT 5")
		if counter.served == before {
			t.Errorf("WHERE %s: no conjunct served by an index", where)
		}
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	kLits := []string{"-20", "0", "7", "19", "25", "-3", "2.0", "2.5", "-2.5", "'5'", "TRUE", "1e300"}
	sLits := []string{"''", "'a'", "'ab'", "'abc'", "'zz'", "'x%y'", "'ñu'", "'A'", "'ab '", "5"}
	bLits := []string{"TRUE", "FALSE", "0", "1", "2"}
	flLits := []string{"0", "0.5", "-1.5", "2", "1.25", "-0.0"}
	uLits := []string{"0", "1", "4", "9", "-1"}
	prefixes := []string{"a%", "ab%", "x\\%%", "ñ%", "b%", "%", "a_%", "zz%"}
	cmps := []string{"<", "<=", ">", ">="}
	pred := func() string {
		col, lits := "k", kLits
		switch r.IntN(6) {
		case 1:
			col, lits = "s", sLits
		case 2:
			col, lits = "b", bLits
		case 3:
			col, lits = "fl", flLits
		case 4:
			col, lits = "u", uLits
		case 5:
			return fmt.Sprintf("s LIKE %s", quoteString(pick(prefixes)))
		}
		switch r.IntN(7) {
		case 0, 1:
			return fmt.Sprintf("%s = %s", col, pick(lits))
		case 2: // a range, the literal on either side
			if r.IntN(2) == 0 {
				return fmt.Sprintf("%s %s %s", col, pick(cmps), pick(lits))
			}
			return fmt.Sprintf("%s %s %s", pick(lits), pick(cmps), col)
		case 3:
			return fmt.Sprintf("%s BETWEEN %s AND %s", col, pick(lits), pick(lits))
		case 4:
			if r.IntN(2) == 0 {
				return col + " IS NULL"
			}
			return col + " <=> NULL"
		}
		n := 1 + r.IntN(4)
		var in []string
		for range n {
			in = append(in, pick(lits))
		}
		return fmt.Sprintf("%s IN (%s)", col, strings.Join(in, ", "))
	}
	extras := []string{"", " AND id % 2 = 0", " AND k > -5", " AND s IS NOT NULL", " OR u = 3", " AND NOT b"}
	tails := []string{"", " ORDER BY id DESC", " LIMIT 7", " ORDER BY k, id LIMIT 5 OFFSET 2"}
	for i := range 300 {
		extra := pick(extras)
		if strings.Contains(extra, "%") { // no arithmetic in WHERE
			extra = " AND id > 10"
		}
		// One to three indexable conjuncts: several indices intersect.
		where := pred()
		for range r.IntN(3) {
			where += " AND " + pred()
		}
		sqlText := "SELECT * FROM p WHERE " + where + extra + pick(tails)
		if i%5 == 0 {
			sqlText = "SELECT COUNT(*) FROM p WHERE " + where + extra
		}
		same(sqlText)
	}
	if counter.served < 300 {
		t.Fatalf("only %d of %d lookups were served by an index", counter.served, counter.asked)
	}
	t.Logf("%d of %d index lookups served", counter.served, counter.asked)
}

// TestExplainNamesIndex: EXPLAIN names the index a query uses and what it
// reads through it.
func TestExplainNamesIndex(t *testing.T) {
	f := whereTable(t, Options{})
	f.exec(`CREATE INDEX id_idx ON w (id); CREATE INDEX name_bm ON w (name) USING BITMAP`)
	f.exec(`INSERT INTO w (id) VALUES (7)`)
	explain := func(q string) string {
		var lines []string
		for _, r := range f.rows("EXPLAIN " + q) {
			lines = append(lines, r[0].(string))
		}
		return strings.Join(lines, "\n")
	}
	for _, c := range []struct{ sql, want string }{
		// Both indices answer their conjunct; their answers intersect.
		// Fragment 3 (id 7) is not covered: it is read in full.
		{`SELECT id FROM w WHERE id IN (1, 2) AND name = 'alpha'`, `Project id
  Filter id IN (1,2) AND name = 'alpha'
    TableScan w (version 7): columns [id, name]
      index BTREE "id_idx" answers id IN (1, 2)
      intersected with index BITMAP "name_bm" answers name = 'alpha'
      covered fragments [0 1 2], read [0]
      uncovered fragments scanned [3], checking every predicate
      estimated rows 2`},
		// A range and IS NULL; score has no index.
		{`SELECT id FROM w WHERE id BETWEEN 2 AND 4 AND name IS NULL AND score > 1`, `Project id
  Filter id BETWEEN 2 AND 4 AND name IS NULL AND score > 1
    TableScan w (version 7): columns [id, name, score]
      index BTREE "id_idx" answers id >= 2 AND id <= 4
      intersected with index BITMAP "name_bm" answers name IS NULL
      covered fragments [0 1 2], read [1]
      uncovered fragments scanned [3], checking every predicate
      estimated rows 2
      not pushed: score > 1 (no scalar index on score)`},
		{`SELECT id FROM w WHERE name LIKE 'al%'`, `Project id
  Filter name LIKE 'al%'
    TableScan w (version 7): columns [id, name]
      full scan of fragments [0 1 2 3]
      estimated rows 7
      not pushed: name LIKE prefix 'al' (BITMAP 'name_bm' cannot answer it: type or index kind)`},
		{`SELECT id FROM w WHERE id = '1'`, `Project id
  Filter id = '1'
    TableScan w (version 7): columns [id]
      full scan of fragments [0 1 2 3]
      estimated rows 7
      not pushed: id = '1' (BTREE 'id_idx' cannot answer it: type or index kind)`},
	} {
		if got := explain(c.sql); got != c.want {
			t.Errorf("EXPLAIN %s:\n got:\n%s\nwant:\n%s", c.sql, got, c.want)
		}
	}
	off := NewSession(f.s.Catalog(), Options{Store: f.s.opts.Store, NoIndexes: true})
	res, err := (&fixture{t: t, s: off}).try(`EXPLAIN SELECT id FROM w WHERE id = 1`)
	if err != nil || !strings.Contains(fmt.Sprint(res.Rows), "index lookups are off") {
		t.Errorf("EXPLAIN with NoIndexes: %v %v", res, err)
	}
}

// TestArrayHas: array_has_any/all over a list's JSON text, with the
// semantics a LABEL_LIST index has (NULL list or label never matches,
// strings equal only strings, numbers only numbers), and the error for a
// first argument that is not a list.
func TestArrayHas(t *testing.T) {
	// The function's own cases are in planner/expr (TestArrayHas).
	f := whereTable(t, Options{})
	f.fails("SELECT id FROM w WHERE array_has_any(name, 'a')", catalog.CodeInvalidInput, "needs a list column")
	f.fails("SELECT id FROM w WHERE array_has_all(name)", catalog.CodeInvalidInput, "at least one value")
}
