package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// maxSimByHand is Lance's multivector _distance computed here on its own:
// 1 - sum over the query's vectors of the best cosine similarity (or inner
// product) to the row's vectors.
func maxSimByHand(row, query [][]float64, cosine bool) float64 {
	sum := 0.0
	for _, q := range query {
		best := math.Inf(-1)
		for _, v := range row {
			var dot, nq, nv float64
			for i := range q {
				dot += q[i] * v[i]
				nq += q[i] * q[i]
				nv += v[i] * v[i]
			}
			if cosine {
				dot /= math.Sqrt(nq * nv)
			}
			best = max(best, dot)
		}
		sum += best
	}
	return 1 - sum
}

func multiVectorText(m [][]float64) string {
	var parts []string
	for _, v := range m {
		var xs []string
		for _, x := range v {
			xs = append(xs, fmt.Sprint(float32(x)))
		}
		parts = append(parts, "["+strings.Join(xs, ",")+"]")
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestMultiVectorSearchExact: a MULTIVECTOR(n) column stores
// list<fixed_size_list<float32>[n]>, DESCRIBEs as MULTIVECTOR(n), and
// ORDER BY VEC_MAXSIM_<metric>_DISTANCE(col, '[[...], ...]') LIMIT k is an
// exact top-k of the MaxSim distance, prefiltered by WHERE, skipping NULL,
// empty and deleted rows; bad queries are InvalidInput.
func TestMultiVectorSearchExact(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE mv (id BIGINT NOT NULL, cat BIGINT, m MULTIVECTOR(4), PRIMARY KEY (id))")
	if got := fmt.Sprint(f.rows("SHOW CREATE TABLE mv")); !strings.Contains(got, "MULTIVECTOR(4)") {
		t.Errorf("SHOW CREATE TABLE: %s", got)
	}
	rng := rand.New(rand.NewPCG(7, 16))
	rows := map[int64][][]float64{}
	var vals []string
	for i := range int64(300) {
		switch i {
		case 5:
			vals = append(vals, fmt.Sprintf("(%d, %d, NULL)", i, i%3))
			continue
		case 6:
			vals = append(vals, fmt.Sprintf("(%d, %d, '[]')", i, i%3))
			continue
		}
		m := make([][]float64, 2+rng.IntN(4))
		for j := range m {
			m[j] = make([]float64, 4)
			for k := range m[j] {
				m[j][k] = float64(float32(rng.Float64()*2 - 1))
			}
		}
		rows[i] = m
		vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", i, i%3, multiVectorText(m)))
	}
	f.exec("INSERT INTO mv VALUES " + strings.Join(vals, ", "))
	f.exec("DELETE FROM mv WHERE id = 17")
	delete(rows, 17)
	query := [][]float64{{0.5, -0.25, 1, 0}, {-1, 0.5, 0.25, 0.75}, {0, 0, 1, 1}}
	qtext := multiVectorText(query)
	for _, tt := range []struct {
		fn     string
		cosine bool
		where  string
		keep   func(id int64) bool
	}{
		{"VEC_MAXSIM_COSINE_DISTANCE", true, "", func(int64) bool { return true }},
		{"VEC_MAXSIM_DOT_DISTANCE", false, "", func(int64) bool { return true }},
		{"VEC_MAXSIM_COSINE_DISTANCE", true, " WHERE cat = 2", func(id int64) bool { return id%3 == 2 }},
	} {
		var ids []int64
		for id := range rows {
			if tt.keep(id) {
				ids = append(ids, id)
			}
		}
		dist := func(id int64) float64 { return maxSimByHand(rows[id], query, tt.cosine) }
		slices.SortFunc(ids, func(a, b int64) int { return compareFloat(dist(a), dist(b)) })
		sql := fmt.Sprintf("SELECT id, %s(m, '%s') AS d FROM mv%s ORDER BY d LIMIT 10", tt.fn, qtext, tt.where)
		got := f.rows(sql)
		if len(got) != 10 {
			t.Fatalf("%s: %d rows", sql, len(got))
		}
		for i, r := range got {
			if r[0] != ids[i] || math.Abs(r[1].(float64)-dist(ids[i])) > 1e-9 {
				t.Errorf("%s: row %d = %v, want id %d distance %v", sql, i, r, ids[i], dist(ids[i]))
			}
		}
		if plan := fmt.Sprint(f.rows("EXPLAIN " + sql)); !strings.Contains(plan, "ExactVectorSearch") {
			t.Errorf("EXPLAIN: %s", plan)
		}
	}
	// the function anywhere an expression goes: NULL for NULL and empty rows
	got := f.rows(fmt.Sprintf("SELECT id, VEC_MAXSIM_DOT_DISTANCE(m, '%s') FROM mv WHERE id IN (4, 5, 6) ORDER BY id", qtext))
	if len(got) != 3 || got[1][1] != nil || got[2][1] != nil || math.Abs(got[0][1].(float64)-maxSimByHand(rows[4], query, false)) > 1e-9 {
		t.Errorf("in the select list: %v", got)
	}
	f.fails("SELECT id FROM mv ORDER BY VEC_MAXSIM_COSINE_DISTANCE(m, '[[1, 2, 3]]') LIMIT 3", catalog.CodeInvalidInput, "dimension 3")
	f.fails("SELECT id FROM mv ORDER BY VEC_MAXSIM_COSINE_DISTANCE(m, '[]') LIMIT 3", catalog.CodeInvalidInput, "empty multivector")
	f.fails("SELECT id FROM mv ORDER BY VEC_MAXSIM_COSINE_DISTANCE(m, '[[1, 2, 3, NaN]]') LIMIT 3", catalog.CodeInvalidInput, "is not a multivector")
	f.fails("SELECT id FROM mv ORDER BY VEC_MAXSIM_COSINE_DISTANCE(m, '[1, 2, 3, 4]') LIMIT 3", catalog.CodeInvalidInput, "not a vector")
	f.fails("SELECT id FROM mv ORDER BY VEC_MAXSIM_COSINE_DISTANCE(cat, '[[1, 2, 3, 4]]') LIMIT 3", catalog.CodeInvalidInput, "not a multivector column")
	f.fails("SELECT id FROM mv ORDER BY VEC_L2_DISTANCE(m, '[1, 2, 3, 4]') LIMIT 3", catalog.CodeInvalidInput, "not a vector column")
	f.fails("CREATE TABLE mvpk (m MULTIVECTOR(2) NOT NULL, PRIMARY KEY (m))", catalog.CodeInvalidInput, "cannot be part of the primary key")
}
