package planner

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestCreateVectorIndexSQL: CREATE VECTOR INDEX (lancecat's and TiDB's
// forms) and ALTER TABLE ADD VECTOR INDEX build indices that SELECT's
// nearest-neighbour search then uses (EXPLAIN names them, the nearest row
// comes back), SHOW INDEX lists them, DROP INDEX removes them, and bad
// statements fail with typed errors.
func TestCreateVectorIndexSQL(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vi (id BIGINT NOT NULL, cat BIGINT, v VECTOR(8), PRIMARY KEY (id))")
	r := rand.New(rand.NewPCG(3, 4))
	var vals []string
	for i := range 600 {
		var xs []string
		c := float64(i % 6 * 10)
		for range 8 {
			xs = append(xs, fmt.Sprintf("%.3f", c+r.Float64()))
		}
		vals = append(vals, fmt.Sprintf("(%d, %d, '[%s]')", i, i%3, strings.Join(xs, ",")))
	}
	f.exec("INSERT INTO vi VALUES " + strings.Join(vals, ", "))
	q := "'[20.5,20.5,20.5,20.5,20.5,20.5,20.5,20.5]'"
	exact := f.rows("SELECT id FROM vi IGNORE INDEX (x) ORDER BY VEC_L2_DISTANCE(v, " + q + ") LIMIT 5")

	f.exec("CREATE VECTOR INDEX vpq ON vi (v) USING IVF_PQ WITH PROPERTIES (num_partitions = 6, num_sub_vectors = 2, metric = 'l2')")
	plan := fmt.Sprint(f.rows("EXPLAIN SELECT id FROM vi ORDER BY VEC_L2_DISTANCE(v, " + q + ") LIMIT 5"))
	if !strings.Contains(plan, "vpq") {
		t.Errorf("EXPLAIN does not use vpq: %s", plan)
	}
	f.exec("SET lancecat_nprobes = 6")
	f.exec("SET lancecat_refine_factor = 10")
	got := f.rows("SELECT id FROM vi ORDER BY VEC_L2_DISTANCE(v, " + q + ") LIMIT 5")
	if fmt.Sprint(got) != fmt.Sprint(exact) {
		t.Errorf("IVF_PQ search with refine %v, exact %v", got, exact)
	}
	f.exec("CREATE VECTOR INDEX IF NOT EXISTS vpq ON vi (v)")
	f.fails("CREATE VECTOR INDEX vpq ON vi (v)", catalog.CodeTableIndexAlreadyExists, "already has an index")

	// TiDB's form: the metric from the function
	f.exec("CREATE VECTOR INDEX vcos ON vi ((VEC_COSINE_DISTANCE(v))) USING IVF_FLAT WITH PROPERTIES (num_partitions = 4)")
	plan = fmt.Sprint(f.rows("EXPLAIN SELECT id FROM vi ORDER BY VEC_COSINE_DISTANCE(v, " + q + ") LIMIT 5"))
	if !strings.Contains(plan, "vcos") || !strings.Contains(plan, "cosine") {
		t.Errorf("EXPLAIN does not use vcos: %s", plan)
	}
	f.exec("ALTER TABLE vi ADD VECTOR INDEX vdot ((VEC_NEGATIVE_INNER_PRODUCT(v))) USING IVF_FLAT WITH PROPERTIES (num_partitions = 2)")
	show := fmt.Sprint(f.rows("SHOW INDEX FROM vi"))
	for _, want := range []string{"vpq", "IVF_PQ", "vcos", "IVF_FLAT", "vdot"} {
		if !strings.Contains(show, want) {
			t.Errorf("SHOW INDEX lacks %s: %s", want, show)
		}
	}
	f.exec("DROP INDEX vpq ON vi")
	plan = fmt.Sprint(f.rows("EXPLAIN SELECT id FROM vi ORDER BY VEC_L2_DISTANCE(v, " + q + ") LIMIT 5"))
	if strings.Contains(plan, "vpq") {
		t.Errorf("dropped vpq still used: %s", plan)
	}

	f.fails("CREATE VECTOR INDEX bad ON vi (cat)", catalog.CodeInvalidInput, "VECTOR column")
	f.fails("CREATE VECTOR INDEX bad ON vi (nope)", catalog.CodeTableColumnNotFound, "no column")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) USING IVF_PQ WITH PROPERTIES (num_sub_vectors = 3)", catalog.CodeInvalidInput, "divide")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) WITH PROPERTIES (metric = 'hamming')", catalog.CodeInvalidInput, "metric")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) WITH PROPERTIES (colour = 3)", catalog.CodeInvalidInput, "unknown vector index property")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) WITH PROPERTIES (num_partitions = 0)", catalog.CodeInvalidInput, "positive integer")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) WITH PROPERTIES (num_partitions = 601)", catalog.CodeInvalidInput, "exceeds")
	f.fails("CREATE VECTOR INDEX bad ON vi ((VEC_COSINE_DISTANCE(v))) WITH PROPERTIES (metric = 'l2')", catalog.CodeInvalidInput, "contradicts")
	f.fails("CREATE VECTOR INDEX bad ON vi (v) USING NOPE", catalog.CodeInvalidInput, "unknown vector index type")
}

// TestCreateVectorIndexSQHNSW: CREATE VECTOR INDEX ... USING IVF_SQ,
// IVF_HNSW_SQ (and TiDB's HNSW), IVF_HNSW_PQ and IVF_HNSW_FLAT build indices SELECT then
// searches through (EXPLAIN names them; with refinement the nearest rows
// are the exact ones), SHOW INDEX lists their types, HNSW properties reach
// the build and are refused on other types.
func TestCreateVectorIndexSQHNSW(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE vh (id BIGINT NOT NULL, v VECTOR(8), PRIMARY KEY (id))")
	r := rand.New(rand.NewPCG(5, 6))
	var vals []string
	for i := range 600 {
		var xs []string
		c := float64(i % 6 * 10)
		for range 8 {
			xs = append(xs, fmt.Sprintf("%.3f", c+r.Float64()))
		}
		vals = append(vals, fmt.Sprintf("(%d, '[%s]')", i, strings.Join(xs, ",")))
	}
	f.exec("INSERT INTO vh VALUES " + strings.Join(vals, ", "))
	q := "'[20.5,20.5,20.5,20.5,20.5,20.5,20.5,20.5]'"
	f.exec("SET lancecat_nprobes = 4")
	f.exec("SET lancecat_refine_factor = 20")
	for _, c := range []struct{ name, ddl, fn, typ string }{
		{"vsq", "CREATE VECTOR INDEX vsq ON vh (v) USING IVF_SQ WITH PROPERTIES (num_partitions = 4)", "VEC_L2_DISTANCE", "IVF_SQ"},
		{"vhsq", "CREATE VECTOR INDEX vhsq ON vh (v) USING IVF_HNSW_SQ WITH PROPERTIES (num_partitions = 4, m = 8, ef_construction = 40)", "VEC_L2_DISTANCE", "IVF_HNSW_SQ"},
		{"vtidb", "CREATE VECTOR INDEX vtidb ON vh ((VEC_COSINE_DISTANCE(v))) USING HNSW", "VEC_COSINE_DISTANCE", "IVF_HNSW_SQ"},
		{"vhpq", "CREATE VECTOR INDEX vhpq ON vh (v) USING IVF_HNSW_PQ WITH PROPERTIES (num_partitions = 4, num_sub_vectors = 2)", "VEC_L2_DISTANCE", "IVF_HNSW_PQ"},
		{"vhflat", "CREATE VECTOR INDEX vhflat ON vh ((VEC_NEGATIVE_INNER_PRODUCT(v))) USING IVF_HNSW_FLAT WITH PROPERTIES (num_partitions = 3)", "VEC_NEGATIVE_INNER_PRODUCT", "IVF_HNSW_FLAT"},
	} {
		exact := f.rows("SELECT id FROM vh IGNORE INDEX (x) ORDER BY " + c.fn + "(v, " + q + ") LIMIT 5")
		f.exec(c.ddl)
		plan := fmt.Sprint(f.rows("EXPLAIN SELECT id FROM vh ORDER BY " + c.fn + "(v, " + q + ") LIMIT 5"))
		if !strings.Contains(plan, c.name) {
			t.Errorf("%s: EXPLAIN does not use the index: %s", c.name, plan)
		}
		if show := fmt.Sprint(f.rows("SHOW INDEX FROM vh")); !strings.Contains(show, c.name) || !strings.Contains(show, c.typ) {
			t.Errorf("SHOW INDEX lacks %s %s: %s", c.name, c.typ, show)
		}
		if got := f.rows("SELECT id FROM vh ORDER BY " + c.fn + "(v, " + q + ") LIMIT 5"); fmt.Sprint(got) != fmt.Sprint(exact) {
			t.Errorf("%s search with refine %v, exact %v", c.name, got, exact)
		}
		f.exec("DROP INDEX " + c.name + " ON vh")
	}
	f.fails("CREATE VECTOR INDEX bad ON vh (v) USING IVF_SQ WITH PROPERTIES (m = 8)", catalog.CodeInvalidInput, "applies to HNSW")
	f.fails("CREATE VECTOR INDEX bad ON vh (v) USING IVF_HNSW_SQ WITH PROPERTIES (m = 1)", catalog.CodeInvalidInput, "HNSW m 1")
}
