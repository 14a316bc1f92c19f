package planner

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestFuseRRF: the fusion's scores (1 / (rank + k), rank from 0, summed
// over the lists a row is in), its order (score descending; ties keep the
// first list's order, then the second's), rows in one list only, and k.
func TestFuseRRF(t *testing.T) {
	// The reference's own RRF example (k = 1): vector 1 4 2 5 3, full-text
	// 4 5 3 -> 4 (1/2 + 1/1), 1 (1/1), 5 (1/4 + 1/2), 3 (1/5 + 1/3), 2 (1/3).
	got := fuseRRF([]uint64{1, 4, 2, 5, 3}, []uint64{4, 5, 3}, 1)
	want := []rrfHit{{4, 1.5}, {1, 1}, {5, 0.75}, {3, float32(1.0/5) + float32(1.0/3)}, {2, float32(1.0 / 3)}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("k=1: %v, want %v", got, want)
	}
	// k = 60, disjoint lists: equal ranks tie, and the vector row comes
	// first at each rank.
	got = fuseRRF([]uint64{10, 11, 12}, []uint64{20, 21}, 60)
	order := []uint64{10, 20, 11, 21, 12}
	for i, h := range got {
		if h.Row != order[i] {
			t.Fatalf("ties: %v, want rows %v", got, order)
		}
	}
	if got[0].Score != float32(1)/60 || got[1].Score != float32(1)/60 || got[4].Score != 1/(float32(2)+60) {
		t.Errorf("scores: %v", got)
	}
	// A row ranked 2 in both lists beats rows ranked 0 in one list only
	// when k is large, and loses to them when k is small.
	if got := fuseRRF([]uint64{1, 3, 2}, []uint64{4, 5, 2}, 60); got[0].Row != 2 || got[0].Score != 1/(float32(2)+60)+1/(float32(2)+60) {
		t.Errorf("k=60: %v", got)
	}
	if got := fuseRRF([]uint64{1, 3, 2}, []uint64{4, 5, 2}, 0.5); got[0].Row != 1 || got[1].Row != 4 {
		t.Errorf("k=0.5: %v", got)
	}
	// Empty legs.
	if got := fuseRRF(nil, []uint64{7, 8}, 60); len(got) != 2 || got[0].Row != 7 || got[1].Score != 1/(float32(1)+60) {
		t.Errorf("no vector rows: %v", got)
	}
	if got := fuseRRF(nil, nil, 60); len(got) != 0 {
		t.Errorf("nothing: %v", got)
	}
}

// TestHybridSearchSQL: HYBRID_RRF over a table with a full-text index (the
// vector leg exact) returns the RRF fusion of the two legs each query form
// returns on its own, with and without a prefilter and with its k; a
// deleted row never comes back; EXPLAIN
// shows both legs and the fusion; bad forms are typed errors.
func TestHybridSearchSQL(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE h (id BIGINT NOT NULL, cat BIGINT, v VECTOR(2), body TEXT, PRIMARY KEY (id), FULLTEXT KEY ft (body))")
	words := []string{"red", "green", "blue", "apple", "pear"}
	var vals []string
	for i := range 120 {
		body := fmt.Sprintf("%s %s %s", words[i%5], words[(i/5)%5], strings.Repeat("filler ", i%7))
		vals = append(vals, fmt.Sprintf("(%d, %d, '[%d, %d]', '%s')", i, i%3, i%11, i/11, body))
	}
	f.exec("INSERT INTO h VALUES " + strings.Join(vals, ", "))

	ids := func(rows [][]any) []int64 {
		var out []int64
		for _, r := range rows {
			out = append(out, r[0].(int64))
		}
		return out
	}
	for _, tc := range []struct {
		where string
		k     string
		n     int
	}{{"", "", 10}, {"WHERE cat = 1", "", 10}, {"WHERE id < 60", ", 5", 7}, {"", "", 1}} {
		vecIDs := ids(f.rows(fmt.Sprintf("SELECT id FROM h %s ORDER BY VEC_L2_DISTANCE(v, '[3.2, 4.1]') LIMIT %d", tc.where, tc.n)))
		ftsWhere := "WHERE MATCH (body) AGAINST ('apple green')"
		if tc.where != "" {
			ftsWhere += " AND " + strings.TrimPrefix(tc.where, "WHERE ")
		}
		ftsIDs := ids(f.rows(fmt.Sprintf("SELECT id, MATCH (body) AGAINST ('apple green') AS s FROM h %s ORDER BY s DESC LIMIT %d", ftsWhere, tc.n)))
		k := 60.0
		if tc.k != "" {
			k = 5
		}
		// the expected fusion, computed here from the two legs
		score := map[int64]float64{}
		var order []int64
		for _, leg := range [][]int64{vecIDs, ftsIDs} {
			for r, id := range leg {
				if _, ok := score[id]; !ok {
					order = append(order, id)
				}
				score[id] += 1 / (float64(r) + k)
			}
		}
		q := fmt.Sprintf("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[3.2, 4.1]'), MATCH (body) AGAINST ('apple green')%s) AS score FROM h %s ORDER BY score DESC LIMIT %d", tc.k, tc.where, tc.n)
		got := f.rows(q)
		if len(got) != min(tc.n, len(order)) {
			t.Fatalf("%s: %d rows %v, want %d", q, len(got), got, min(tc.n, len(order)))
		}
		seen := map[int64]bool{}
		for i, r := range got {
			id, s := r[0].(int64), r[1].(float64)
			if _, ok := score[id]; !ok || seen[id] {
				t.Fatalf("%s: row %d id %d is not in either leg once: %v", q, i, id, got)
			}
			seen[id] = true
			if math.Abs(s-score[id]) > 1e-6 {
				t.Errorf("%s: id %d score %v, want %v", q, id, s, score[id])
			}
			if i > 0 {
				prev := got[i-1][1].(float64)
				if prev < s {
					t.Errorf("%s: not descending at %d: %v", q, i, got)
				}
			}
		}
		if tc.where == "WHERE cat = 1" {
			for _, r := range f.rows(fmt.Sprintf("SELECT cat FROM h WHERE id IN (%s)", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ids(got))), ", "), "[]"))) {
				if r[0] != int64(1) {
					t.Errorf("prefilter: a row of cat %v", r[0])
				}
			}
		}
	}
	// Ties keep the vector leg's order first: with disjoint legs the
	// vector's nearest and the full-text's best score the same.
	got := f.rows("SELECT id, HYBRID_RRF(MATCH (body) AGAINST ('pear'), VEC_L2_DISTANCE(v, '[0, 0]')) s FROM h WHERE id <> 0 ORDER BY 2 DESC LIMIT 2")
	vec0 := f.rows("SELECT id FROM h WHERE id <> 0 ORDER BY VEC_L2_DISTANCE(v, '[0, 0]') LIMIT 1")[0][0]
	if len(got) != 2 || got[0][0] != vec0 || got[0][1] != got[1][1] {
		t.Errorf("tie order: %v (vector's nearest %v)", got, vec0)
	}
	// Other columns and expressions over the score.
	got = f.rows("SELECT body, cat, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue')) * 60 AS x FROM h ORDER BY HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue')) DESC LIMIT 3")
	if len(got) != 3 || got[0][2].(float64) <= 1 {
		t.Errorf("expressions: %v", got)
	}

	// A deleted row never comes back; the next rows take its place.
	top := f.rows("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[3.2, 4.1]'), MATCH (body) AGAINST ('apple green')) AS s FROM h ORDER BY s DESC LIMIT 10")
	f.exec(fmt.Sprintf("DELETE FROM h WHERE id = %d", top[0][0]))
	after := f.rows("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[3.2, 4.1]'), MATCH (body) AGAINST ('apple green')) AS s FROM h ORDER BY s DESC LIMIT 10")
	if len(after) != 10 {
		t.Errorf("after DELETE: %d rows", len(after))
	}
	for _, r := range after {
		if r[0] == top[0][0] {
			t.Errorf("deleted row %v returned: %v", r[0], after)
		}
	}

	plan := fmt.Sprint(f.rows("EXPLAIN SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[3.2, 4.1]'), MATCH (body) AGAINST ('apple')) AS s FROM h WHERE cat = 2 ORDER BY s DESC LIMIT 5"))
	for _, want := range []string{"HybridSearch", "1 / (rank + 60)", "top 5 of each leg", "leg 1: ExactVectorSearch", "leg 2: FullTextSearch", "index ft (INVERTED)", "prefilter: cat = 2", "Prefilter"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q: %s", want, plan)
		}
	}

	hy := "HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue'))"
	f.fails("SELECT id, "+hy+" s FROM h ORDER BY s DESC", catalog.CodeInvalidInput, "LIMIT n is required")
	f.fails("SELECT id, "+hy+" s FROM h ORDER BY s LIMIT 3", catalog.CodeInvalidInput, "descending")
	f.fails("SELECT id, "+hy+" s FROM h LIMIT 3", catalog.CodeInvalidInput, "descending")
	f.fails("SELECT id, "+hy+" s FROM h ORDER BY s DESC LIMIT 3 OFFSET 1", catalog.CodeUnsupported, "OFFSET")
	f.fails("SELECT id FROM h WHERE "+hy+" > 0 ORDER BY "+hy+" DESC LIMIT 3", catalog.CodeInvalidInput, "WHERE")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]')) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "2 or 3 arguments")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), id) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "neither")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, v), MATCH (body) AGAINST ('blue')) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "constant vector")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue'), 0) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "positive number")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue'), id) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "positive number")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1, 1]'), MATCH (body) AGAINST ('blue')) s FROM h ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "dimension 3")
	f.fails("SELECT HYBRID_RRF(1, 2)", catalog.CodeUnsupported, "over one table")
	f.fails("SELECT a.id FROM h a JOIN h b ON a.id = b.id ORDER BY HYBRID_RRF(VEC_L2_DISTANCE(a.v, '[1, 1]'), MATCH (a.body) AGAINST ('red')) DESC LIMIT 2", catalog.CodeUnsupported, "join")
	f.fails("SELECT id, "+hy+" s, MATCH (body) AGAINST ('red') FROM h ORDER BY s DESC LIMIT 3", catalog.CodeUnsupported, "MATCH outside HYBRID_RRF")
	f.fails("SELECT id FROM h WHERE MATCH (body) AGAINST ('red') ORDER BY "+hy+" DESC LIMIT 3", catalog.CodeUnsupported, "MATCH in the WHERE")
	// a derived table and IN subquery over the hybrid search
	if got := f.rows("SELECT id FROM (SELECT id, " + hy + " s FROM h ORDER BY s DESC LIMIT 4) x"); len(got) != 4 {
		t.Errorf("derived: %v", got)
	}
	f.exec("CREATE TABLE h2 (id BIGINT NOT NULL, v VECTOR(2), body TEXT, PRIMARY KEY (id))")
	f.fails("SELECT id, HYBRID_RRF(VEC_L2_DISTANCE(v, '[1, 1]'), MATCH (body) AGAINST ('blue')) s FROM h2 ORDER BY s DESC LIMIT 3", catalog.CodeInvalidInput, "CREATE FULLTEXT INDEX")
}
