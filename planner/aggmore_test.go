package planner

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
)

// TestGroupConcat: GROUP_CONCAT's DISTINCT, ORDER BY (by expression and
// by argument position, ASC and DESC), SEPARATOR, several arguments, the
// rows with a NULL argument skipped and NULL for a group without a row,
// over table data, a join, a derived table, a CTE and information_schema.
func TestGroupConcat(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT NOT NULL, g VARCHAR(4), x INT, s VARCHAR(10), PRIMARY KEY (id))`)
	f.exec(`INSERT INTO s.t VALUES (1, 'a', 3, 'c'), (2, 'a', 1, 'a'), (3, 'a', 3, NULL), (4, 'b', NULL, NULL), (5, 'a', 2, 'b'), (6, 'c', 7, 'z')`)
	f.exec(`CREATE TABLE s.u (g VARCHAR(4), label VARCHAR(10)); INSERT INTO s.u VALUES ('a', 'A'), ('b', 'B')`)
	for _, c := range []struct {
		sql  string
		want [][]any
	}{
		{`SELECT g, GROUP_CONCAT(x) FROM s.t GROUP BY g ORDER BY g`, [][]any{{"a", "3,1,3,2"}, {"b", nil}, {"c", "7"}}},
		{`SELECT GROUP_CONCAT(DISTINCT x ORDER BY x DESC SEPARATOR ' | ') FROM s.t`, [][]any{{"7 | 3 | 2 | 1"}}},
		{`SELECT GROUP_CONCAT(s, x ORDER BY s) FROM s.t`, [][]any{{"a1,b2,c3,z7"}}},
		{`SELECT GROUP_CONCAT(x, '-', s ORDER BY 3 DESC SEPARATOR '') FROM s.t WHERE g = 'a'`, [][]any{{"3-c2-b1-a"}}},
		{`SELECT GROUP_CONCAT(DISTINCT g, x) FROM s.t`, [][]any{{"a3,a1,a2,c7"}}},
		{`SELECT GROUP_CONCAT(id ORDER BY s, id DESC) FROM s.t`, [][]any{{"4,3,2,5,1,6"}}},
		{`SELECT GROUP_CONCAT(x) FROM s.t WHERE id > 100`, [][]any{{nil}}},
		{`SELECT g FROM s.t GROUP BY g HAVING GROUP_CONCAT(x ORDER BY x) = '1,2,3,3'`, [][]any{{"a"}}},
		{`SELECT g FROM s.t GROUP BY g HAVING GROUP_CONCAT(s) LIKE '%z%' ORDER BY g`, [][]any{{"c"}}},
		{`SELECT u.label, GROUP_CONCAT(t.id ORDER BY t.id DESC) AS ids FROM s.t JOIN s.u ON t.g = u.g GROUP BY u.label ORDER BY ids`, [][]any{{"B", "4"}, {"A", "5,3,2,1"}}},
		{`SELECT GROUP_CONCAT(v ORDER BY v SEPARATOR ';') FROM (SELECT x * 10 AS v FROM s.t) d`, [][]any{{"10;20;30;30;70"}}},
		{`WITH c AS (SELECT g, COUNT(*) AS n FROM s.t GROUP BY g) SELECT GROUP_CONCAT(g, ':', n ORDER BY n DESC, g) FROM c`, [][]any{{"a:4,b:1,c:1"}}},
		{`SELECT table_schema, GROUP_CONCAT(table_name ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 's' GROUP BY table_schema`, [][]any{{"s", "t,u"}}},
	} {
		if got := f.rows(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.sql, got, c.want)
		}
	}
	res := f.exec(`SELECT GROUP_CONCAT(x) AS l FROM s.t`)
	if c := res.Columns[0]; c.DatabaseType != "VARCHAR" || !c.Nullable {
		t.Errorf("GROUP_CONCAT column: %+v, want a nullable VARCHAR", c)
	}
	f.fails(`SELECT GROUP_CONCAT(x ORDER BY 3) FROM s.t`, catalog.CodeInvalidInput, "order clause")
	f.fails(`SELECT GROUP_CONCAT(COUNT(x)) FROM s.t`, catalog.CodeInvalidInput, "inside")
	f.fails(`SELECT GROUP_CONCAT(x) OVER () FROM s.t`, catalog.CodeUnsupported, "window function")
}

// TestGroupConcatMaxLen: the session's group_concat_max_len (MariaDB's
// default 1048576, SET and SHOW like the other session variables, at
// least 4) cuts the result at that many bytes, never inside a character,
// with and without ORDER BY.
func TestGroupConcatMaxLen(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, s VARCHAR(10))`)
	f.exec(`INSERT INTO s.t VALUES (1, 'héllo'), (2, 'abc'), (3, 'wörld')`)
	if got := f.exec("SHOW VARIABLES LIKE 'group_concat_max_len'").Rows; !reflect.DeepEqual(got, [][]any{{"group_concat_max_len", "1048576"}}) {
		t.Errorf("default: %v", got)
	}
	if got := f.rows(`SELECT GROUP_CONCAT(s) FROM s.t`); !reflect.DeepEqual(got, [][]any{{"héllo,abc,wörld"}}) {
		t.Errorf("uncut: %v", got)
	}
	f.exec("SET SESSION group_concat_max_len = 7")
	for sql, want := range map[string]string{
		// 7 bytes ("é" and "ö" are two each)
		`SELECT GROUP_CONCAT(s) FROM s.t`:                         "héllo,",
		`SELECT GROUP_CONCAT(s ORDER BY id DESC) FROM s.t`:        "wörld,",
		`SELECT GROUP_CONCAT(s ORDER BY s SEPARATOR '') FROM s.t`: "abchél",
	} {
		if got := f.rows(sql); !reflect.DeepEqual(got, [][]any{{want}}) {
			t.Errorf("%s: got %v, want %q", sql, got, want)
		}
	}
	f.exec("SET group_concat_max_len = 2")
	if got := f.exec("SHOW VARIABLES LIKE 'group_concat_max_len'").Rows; got[0][1] != "4" {
		t.Errorf("below the minimum: %v, want 4", got)
	}
	// "hél" is 4 bytes.
	if got := f.rows(`SELECT GROUP_CONCAT(s ORDER BY id) FROM s.t`); !reflect.DeepEqual(got, [][]any{{"hél"}}) {
		t.Errorf("max 4: %v", got)
	}
	// At 5 bytes the cut falls inside the "ö" of "xxxxö": it goes whole.
	f.exec("SET group_concat_max_len = 5")
	f.exec(`INSERT INTO s.t VALUES (0, 'xxxxö')`)
	if got := f.rows(`SELECT GROUP_CONCAT(s ORDER BY id) FROM s.t`); !reflect.DeepEqual(got, [][]any{{"xxxx"}}) {
		t.Errorf("cut inside a character: %v, want the character dropped", got)
	}
	f.fails("SET group_concat_max_len = 'big'", catalog.CodeInvalidInput, "group_concat_max_len")
}

// TestGroupConcatBudget: the text a GROUP_CONCAT holds is charged to the
// query's memory budget: past it the statement fails with the budget's
// typed error instead of growing without bound.
func TestGroupConcatBudget(t *testing.T) {
	f := newDataFixture(t, Options{JoinMemory: 64 << 10})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, s VARCHAR(200))`)
	var values []string
	for i := range 2000 {
		values = append(values, fmt.Sprintf("(%d, '%s')", i, strings.Repeat("x", 100)))
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	// Few groups, each a few hundred bytes: within the budget.
	if got := f.rows(`SELECT COUNT(*) FROM (SELECT id % 10 AS k, GROUP_CONCAT(id) AS l FROM s.t WHERE id < 100 GROUP BY k) d`); !reflect.DeepEqual(got, [][]any{{int64(10)}}) {
		t.Fatalf("small: %v", got)
	}
	for _, sql := range []string{
		`SELECT LENGTH(GROUP_CONCAT(s)) FROM s.t`,
		`SELECT LENGTH(GROUP_CONCAT(s ORDER BY id DESC)) FROM s.t`,
		`SELECT COUNT(DISTINCT s, id) FROM s.t`,
		`SELECT LENGTH(JSON_ARRAYAGG(s)) FROM s.t`,
	} {
		if _, err := f.try(sql); !errors.Is(err, exec.ErrBudgetExceeded) {
			t.Errorf("%s: got %v, want ErrBudgetExceeded", sql, err)
		}
	}
	// With the cut at the default 1 MiB a bigger budget answers.
	g := newDataFixture(t, Options{JoinMemory: 16 << 20})
	g.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, s VARCHAR(200))`)
	g.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	if got := g.rows(`SELECT LENGTH(GROUP_CONCAT(s)) FROM s.t`); !reflect.DeepEqual(got, [][]any{{int64(2000*101 - 1)}}) {
		t.Errorf("within the budget: %v", got)
	}
}

// TestCountDistinctTuple: COUNT(DISTINCT a, b, ...) counts the distinct
// tuples without a NULL, per group, against a direct count.
func TestCountDistinctTuple(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, g INT, a INT, b VARCHAR(4))`)
	r := rand.New(rand.NewPCG(3, 4))
	type tuple struct {
		a int64
		b string
	}
	want := map[int64]map[tuple]bool{}
	var values []string
	for id := range 400 {
		g := int64(r.IntN(4))
		var a, b any
		if r.IntN(8) > 0 {
			a = int64(r.IntN(5))
		}
		if r.IntN(8) > 0 {
			b = fmt.Sprintf("v%d", r.IntN(4))
		}
		values = append(values, fmt.Sprintf("(%d, %d, %s, %s)", id, g, sqlValue(a), sqlValue(b)))
		if want[g] == nil {
			want[g] = map[tuple]bool{}
		}
		if a != nil && b != nil {
			want[g][tuple{a.(int64), b.(string)}] = true
		}
	}
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	got := f.rows(`SELECT g, COUNT(DISTINCT a, b), COUNT(DISTINCT b, a, g), COUNT(DISTINCT a) FROM s.t GROUP BY g ORDER BY g`)
	for _, row := range got {
		n := int64(len(want[row[0].(int64)]))
		if row[1] != n || row[2] != n {
			t.Errorf("group %v: %v, want %d", row[0], row, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d groups, want %d", len(got), len(want))
	}
}

// TestBitAndVarianceAggregates: BIT_AND/OR/XOR (BIGINT UNSIGNED, the
// empty-set values 2^64-1 and 0, negative values in two's complement) and
// the population and sample variances and deviations against a direct
// computation; over no row and, for the sample ones, one row they are
// NULL.
func TestBitAndVarianceAggregates(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, g INT, x BIGINT, f DOUBLE)`)
	r := rand.New(rand.NewPCG(5, 6))
	type ref struct {
		and, or, xor uint64
		xs           []float64
		n            int
	}
	refs := map[int64]*ref{}
	var values []string
	for id := range 300 {
		g := int64(r.IntN(3))
		x := int64(r.IntN(1<<20)) - 1<<19
		values = append(values, fmt.Sprintf("(%d, %d, %d, %g)", id, g, x, float64(x)/8))
		if refs[g] == nil {
			refs[g] = &ref{and: math.MaxUint64}
		}
		rf := refs[g]
		rf.and &= uint64(x)
		rf.or |= uint64(x)
		rf.xor ^= uint64(x)
		rf.xs = append(rf.xs, float64(x)/8)
	}
	values = append(values, "(1000, 9, NULL, NULL)", "(1001, 10, 5, 2.5)")
	f.exec("INSERT INTO s.t VALUES " + strings.Join(values, ", "))
	res := f.exec(`SELECT g, BIT_AND(x), BIT_OR(x), BIT_XOR(x), VAR_POP(f), VARIANCE(f), VAR_SAMP(f), STD(f), STDDEV(f), STDDEV_POP(f), STDDEV_SAMP(f)
		FROM s.t GROUP BY g ORDER BY g`)
	for i, typ := range []string{"INT", "BIGINT UNSIGNED", "BIGINT UNSIGNED", "BIGINT UNSIGNED", "DOUBLE"} {
		if res.Columns[i].DatabaseType != typ {
			t.Errorf("column %d: %s, want %s", i, res.Columns[i].DatabaseType, typ)
		}
	}
	close := func(a any, b float64) bool {
		x, ok := a.(float64)
		return ok && math.Abs(x-b) <= 1e-9*math.Max(1, math.Abs(b))
	}
	for _, row := range res.Rows {
		g := row[0].(int64)
		switch g {
		case 9: // no non-NULL value
			if !reflect.DeepEqual(row[1:], []any{uint64(math.MaxUint64), uint64(0), uint64(0), nil, nil, nil, nil, nil, nil, nil}) {
				t.Errorf("all NULL: %v", row)
			}
			continue
		case 10: // one value
			if !reflect.DeepEqual(row[1:], []any{uint64(5), uint64(5), uint64(5), 0.0, 0.0, nil, 0.0, 0.0, 0.0, nil}) {
				t.Errorf("one row: %v", row)
			}
			continue
		}
		rf := refs[g]
		if row[1] != rf.and || row[2] != rf.or || row[3] != rf.xor {
			t.Errorf("group %d bits: %v, want %d %d %d", g, row[1:4], rf.and, rf.or, rf.xor)
		}
		var mean, ss float64
		for _, x := range rf.xs {
			mean += x
		}
		mean /= float64(len(rf.xs))
		for _, x := range rf.xs {
			ss += (x - mean) * (x - mean)
		}
		pop, samp := ss/float64(len(rf.xs)), ss/float64(len(rf.xs)-1)
		for j, w := range []float64{pop, pop, samp, math.Sqrt(pop), math.Sqrt(pop), math.Sqrt(pop), math.Sqrt(samp)} {
			if !close(row[4+j], w) {
				t.Errorf("group %d column %d: %v, want %v", g, 4+j, row[4+j], w)
			}
		}
	}
	if got := f.rows(`SELECT BIT_AND(x), BIT_OR(x), STD(x), VAR_SAMP(x) FROM s.t WHERE id < 0`); !reflect.DeepEqual(got, [][]any{{uint64(math.MaxUint64), uint64(0), nil, nil}}) {
		t.Errorf("no rows: %v", got)
	}
	// As window functions (MariaDB has them there too).
	if got := f.rows(`SELECT id, BIT_OR(x) OVER (ORDER BY id), VAR_POP(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM s.t WHERE id >= 1000 ORDER BY id`); !reflect.DeepEqual(got, [][]any{{int64(1000), uint64(0), nil}, {int64(1001), uint64(5), 0.0}}) {
		t.Errorf("window: %v", got)
	}
}

// TestJSONAggregates: JSON_ARRAYAGG keeps NULLs as JSON null and the
// values' JSON types; JSON_OBJECTAGG skips a row whose key is NULL (as
// MariaDB does); both are NULL over no row.
func TestJSONAggregates(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.t (id BIGINT, g INT, x INT, s VARCHAR(10))`)
	f.exec(`INSERT INTO s.t VALUES (1, 1, 5, 'a'), (2, 1, NULL, 'b'), (3, 1, 7, NULL), (4, 2, 1, 'q"')`)
	for _, c := range []struct {
		sql  string
		want [][]any
	}{
		{`SELECT g, JSON_ARRAYAGG(x), JSON_ARRAYAGG(s), JSON_OBJECTAGG(s, x) FROM s.t GROUP BY g ORDER BY g`,
			[][]any{{int64(1), "[5, null, 7]", `["a", "b", null]`, `{"a": 5, "b": null}`}, {int64(2), "[1]", `["q\""]`, `{"q\"": 1}`}}},
		{`SELECT JSON_ARRAYAGG(x), JSON_OBJECTAGG(id, x) FROM s.t WHERE id < 0`, [][]any{{nil, nil}}},
		{`SELECT JSON_LENGTH(JSON_ARRAYAGG(id)) FROM s.t`, [][]any{{int64(4)}}},
	} {
		if got := f.rows(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.sql, got, c.want)
		}
	}
	if c := f.exec(`SELECT JSON_ARRAYAGG(x) FROM s.t`).Columns[0]; c.DatabaseType != "JSON" {
		t.Errorf("JSON_ARRAYAGG column type %s, want JSON", c.DatabaseType)
	}
	f.fails(`SELECT JSON_ARRAYAGG(x) OVER () FROM s.t`, catalog.CodeUnsupported, "window function")
}
