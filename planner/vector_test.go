package planner

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestVectorFunctions: the VEC_ functions' values, NULL propagation and
// InvalidInput for bad vectors.
func TestVectorFunctions(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vf (id BIGINT NOT NULL, v VECTOR(3), PRIMARY KEY (id))")
	f.exec("INSERT INTO vf VALUES (1, '[3, 4, 0]'), (2, '[0, 0, 0]'), (3, NULL)")
	got := f.rows("SELECT id, VEC_L2_DISTANCE(v, '[0, 0, 0]'), VEC_COSINE_DISTANCE(v, '[1, 0, 0]'), VEC_NEGATIVE_INNER_PRODUCT(v, '[1, 1, 1]'), VEC_L1_DISTANCE(v, '[1, 1, 1]'), VEC_DIMS(v), VEC_L2_NORM(v), VEC_AS_TEXT(v) FROM vf ORDER BY id")
	want := [][]any{
		{int64(1), 5.0, 0.4, -7.0, 6.0, int64(3), 5.0, "[3,4,0]"},
		{int64(2), 0.0, nil, math.Copysign(0, -1), 3.0, int64(3), 0.0, "[0,0,0]"},
		{int64(3), nil, nil, nil, nil, nil, nil, nil},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if c := got[0][2].(float64); math.Abs(c-0.4) > 1e-12 {
		t.Errorf("cosine distance %v, want 0.4", c)
	}
	if got := f.rows("SELECT VEC_FROM_TEXT(' [1.5, -2e0] '), VEC_DIMS('[1,2,3,4]')"); fmt.Sprint(got) != "[[[1.5,-2] 4]]" {
		t.Errorf("VEC_FROM_TEXT/VEC_DIMS: %v", got)
	}
	for _, bad := range []string{"'[]'", "'[1, NaN, 2]'", "'nope'", "'[1, 2]'", "'[1e50, 0, 0]'"} {
		_, err := f.try("SELECT id FROM vf WHERE VEC_L2_DISTANCE(v, " + bad + ") < 1")
		if c, _ := catalog.CodeOf(err); c != catalog.CodeInvalidInput {
			t.Errorf("vector %s: %v, want InvalidInput", bad, err)
		}
	}
}

// TestVectorSearchExact: ORDER BY a distance LIMIT k over a table without
// a vector index is an exact search, ordered by the SQL function's value,
// prefiltered by WHERE, by alias or position, with OFFSET; EXPLAIN says so.
func TestVectorSearchExact(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vs (id BIGINT NOT NULL, cat BIGINT, v VECTOR(2), PRIMARY KEY (id))")
	var vals []string
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("(%d, %d, '[%d, %d]')", i, i%4, i%20, i/20))
	}
	f.exec("INSERT INTO vs VALUES " + strings.Join(vals, ", "))
	// nearest to (3.2, 4.1): (3,4) = id 83, (4,4) = 84, (3,5) = 103
	got := f.rows("SELECT id, VEC_L2_DISTANCE(v, '[3.2, 4.1]') AS d FROM vs ORDER BY d LIMIT 3")
	if len(got) != 3 || got[0][0] != int64(83) || got[1][0] != int64(84) || got[2][0] != int64(103) {
		t.Errorf("nearest: %v", got)
	}
	if d := got[0][1].(float64); math.Abs(d-math.Sqrt(0.2*0.2+0.1*0.1)) > 1e-6 {
		t.Errorf("distance %v is not the Euclidean distance", d)
	}
	got = f.rows("SELECT id FROM vs WHERE cat = 1 ORDER BY VEC_L2_DISTANCE(v, '[3.2, 4.1]') LIMIT 2 OFFSET 1")
	for _, r := range got {
		if r[0].(int64)%4 != 1 {
			t.Errorf("row %v does not pass WHERE", r)
		}
	}
	if len(got) != 2 {
		t.Errorf("prefiltered: %v", got)
	}
	if got := f.rows("SELECT id, VEC_COSINE_DISTANCE(v, '[1, 0]') FROM vs WHERE id IN (1, 20, 21) ORDER BY 2 LIMIT 10"); len(got) != 3 || got[0][0] != int64(1) || got[2][0] != int64(20) {
		t.Errorf("cosine by position, 3 matches: %v", got)
	}
	plan := fmt.Sprint(f.rows("EXPLAIN SELECT id FROM vs ORDER BY VEC_L2_DISTANCE(v, '[1, 1]') LIMIT 3"))
	if !strings.Contains(plan, "ExactVectorSearch") || !strings.Contains(plan, "no vector index on v") {
		t.Errorf("EXPLAIN: %s", plan)
	}
	f.fails("SELECT id FROM vs ORDER BY VEC_L2_DISTANCE(v, '[1, 1, 1]') LIMIT 3", catalog.CodeInvalidInput, "dimension 3")
	f.fails("SELECT id FROM vs ORDER BY VEC_L2_DISTANCE(v, '[1, 1]') LIMIT 1000000", catalog.CodeInvalidInput, "at most")
	f.fails("SELECT id FROM vs ORDER BY VEC_L2_DISTANCE(cat, '[1, 1]') LIMIT 3", catalog.CodeInvalidInput, "not a vector column")
}

// TestVectorSearchOrderWithAndWithoutColumn: a search whose select list
// does not show the vector column (its hits ordered on the stored float32s)
// returns the same rows in the same order as one that shows it (ordered on
// the column's SQL text), and the shown column is the vector's text.
func TestVectorSearchOrderWithAndWithoutColumn(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vo (id BIGINT NOT NULL, v VECTOR(3), PRIMARY KEY (id))")
	var vals []string
	for i := range 300 {
		vals = append(vals, fmt.Sprintf("(%d, '[%g, %g, %g]')", i, float64(i%17)*0.37, float64(i%11)*1.3, float64(i%7)*-0.9))
	}
	f.exec("INSERT INTO vo VALUES " + strings.Join(vals, ", "))
	for _, q := range []string{"'[1.5, 4.2, -2.0]'", "'[0, 0, 0]'", "'[5.9, 13, -5.4]'"} {
		for _, fn := range []string{"VEC_L2_DISTANCE", "VEC_COSINE_DISTANCE", "VEC_NEGATIVE_INNER_PRODUCT"} {
			bare := f.rows("SELECT id FROM vo ORDER BY " + fn + "(v, " + q + ") LIMIT 7")
			shown := f.rows("SELECT id, v FROM vo ORDER BY " + fn + "(v, " + q + ") LIMIT 7")
			if len(bare) != 7 || len(shown) != 7 {
				t.Fatalf("%s %s: %d and %d rows", fn, q, len(bare), len(shown))
			}
			for i := range bare {
				if bare[i][0] != shown[i][0] {
					t.Errorf("%s %s: row %d is %v without v, %v with it", fn, q, i, bare[i][0], shown[i][0])
				}
				if s, ok := shown[i][1].(string); !ok || !strings.HasPrefix(s, "[") {
					t.Errorf("%s %s: v shown as %T %v, want its text", fn, q, shown[i][1], shown[i][1])
				}
			}
		}
	}
}

// TestVectorDistanceSameOnEveryPath: the distance a vector search shows
// (with only the distance reading the column, or with the column shown
// too) is the number a plain scan computes for the same row, and ordering
// follows it: every path reads the elements as the FLOATs stored.
func TestVectorDistanceSameOnEveryPath(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vd (id BIGINT NOT NULL, v VECTOR(3), PRIMARY KEY (id))")
	var vals []string
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("(%d, '[%g, %g, %g]')", i, 0.1*float64(i%13), 0.7*float64(i%5), -0.3*float64(i%9)))
	}
	f.exec("INSERT INTO vd VALUES " + strings.Join(vals, ", "))
	for _, fn := range []string{"VEC_L2_DISTANCE", "VEC_COSINE_DISTANCE", "VEC_NEGATIVE_INNER_PRODUCT", "VEC_L1_DISTANCE"} {
		call := fn + "(v, '[0.1, 0.2, -0.3]')"
		scanned := map[any]any{}
		for _, r := range f.rows("SELECT id, " + call + " FROM vd") {
			scanned[r[0]] = r[1]
		}
		for _, q := range []string{
			"SELECT id, " + call + " AS d FROM vd ORDER BY d LIMIT 9",
			"SELECT id, " + call + " AS d, v FROM vd ORDER BY d LIMIT 9",
			"SELECT id, " + call + " AS d FROM vd WHERE id % 3 = 1 ORDER BY " + call + " LIMIT 9",
		} {
			rows := f.rows(q)
			if len(rows) != 9 {
				t.Fatalf("%s: %d rows", q, len(rows))
			}
			prev := math.Inf(-1)
			for _, r := range rows {
				if r[1] != scanned[r[0]] {
					t.Errorf("%s: id %v has distance %v, a scan computes %v", q, r[0], r[1], scanned[r[0]])
				}
				if d, ok := r[1].(float64); ok {
					if d < prev {
						t.Errorf("%s: distance %v after %v", q, d, prev)
					}
					prev = d
				}
			}
		}
	}
}
