package main

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// vectorConfig configures the vector suite.
type vectorConfig struct {
	Sets    []vecShape // data sets, rows x dimension
	Types   []string   // index types (vecTypes' names)
	Queries int        // queries per measurement
	NProbes int        // partitions probed, both sides
	Refine  int        // refine factor, both sides (0: none)
	Ef      int        // HNSW beam width, both sides (0: each side's default, k x refine x 1.5 after the reference)
	WorkDir string
	Peer    bool
	Log     func(format string, args ...any)
}

// vecShape is one data set's size.
type vecShape struct{ N, Dim int }

func (s vecShape) label() string { return sizeLabel(s.N) + " x " + strconv.Itoa(s.Dim) }

// parseShapes parses "1000000x128,100000x768".
func parseShapes(s string) ([]vecShape, error) {
	var out []vecShape
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		a, b, ok := strings.Cut(f, "x")
		n, err1 := strconv.Atoi(a)
		d, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < vecK || d < 1 || d > 65536 {
			return nil, fmt.Errorf("bad vector set %q (want ROWSxDIM, rows at least %d)", f, vecK)
		}
		out = append(out, vecShape{n, d})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no vector set in %q", s)
	}
	return out, nil
}

type vecType struct {
	name string
	peer string // the peer's lancedb.Index factory, "" if none
	pq   bool   // takes num_sub_vectors
	hnsw bool   // takes m and ef_construction
}

// vecTypes are the index types of the suite; peer is false for those the
// peer's node API cannot build (they get a lancecat-only row).
var vecTypes = []vecType{
	{"IVF_FLAT", "ivfFlat", false, false},
	{"IVF_PQ", "ivfPq", true, false},
	{"IVF_SQ", "", false, false},
	{"IVF_HNSW_SQ", "hnswSq", false, true},
	{"IVF_HNSW_PQ", "hnswPq", true, true},
	{"IVF_HNSW_FLAT", "", false, true},
}

const (
	vecK         = 10       // top k of every query
	vecClusters  = 32       // Gaussian clusters of the data
	vecNoise     = 0.4      // their standard deviation per coordinate (centres are N(0, 1))
	vecFilterCat = 3        // the prefilter is cat = 3: 10% of the rows (cat = id % 10)
	vecHNSWM     = 20       // both sides' HNSW m (the reference's default)
	vecHNSWEfc   = 150      // both sides' ef_construction (Rust Lance's default; the node docs say 300)
	vecSeed      = 20261206 // the data's seed; the queries use vecSeed+1
)

// vecPartitions is the IVF partition count both sides build: sqrt(rows),
// the usual rule, at least 2.
func vecPartitions(n int) int { return max(2, int(math.Round(math.Sqrt(float64(n))))) }

// vecSubVectors is PQ's sub-vector count: dim/8 (16 for 128, 96 for 768)
// when it divides, else the largest divisor of dim up to that.
func vecSubVectors(dim int) int {
	for m := max(1, dim/8); m > 1; m-- {
		if dim%m == 0 {
			return m
		}
	}
	return 1
}

// vecData returns n seeded rows of dimension dim, row-major: vecClusters
// centres drawn N(0, 1) per coordinate, then each row a uniformly chosen
// centre plus N(0, vecNoise) noise. Row i does not depend on n (a larger
// set extends a smaller one), and every run draws the same rows.
func vecData(n, dim int) []float32 {
	r := vecRand(dim)
	centres := vecCentres(r, dim)
	out := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		c := centres[r.IntN(vecClusters)]
		row := out[i*dim : (i+1)*dim]
		for j := range row {
			row[j] = float32(c[j] + r.NormFloat64()*vecNoise)
		}
	}
	return out
}

// vecRand is the data's generator: the centres, then the rows.
func vecRand(dim int) *rand.Rand { return rand.New(rand.NewPCG(vecSeed, uint64(dim))) }

// vecCentres draws the cluster centres, the first values of vecRand.
func vecCentres(r *rand.Rand, dim int) [][]float64 {
	centres := make([][]float64, vecClusters)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for j := range centres[c] {
			centres[c][j] = r.NormFloat64()
		}
	}
	return centres
}

// vecQueries returns q seeded query vectors drawn from the data's
// distribution (the same centres, fresh noise): near the data, not in it.
func vecQueries(q, dim int) [][]float32 {
	centres := vecCentres(vecRand(dim), dim)
	r := rand.New(rand.NewPCG(vecSeed+1, uint64(dim)))
	out := make([][]float32, q)
	for i := range out {
		c := centres[r.IntN(vecClusters)]
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = float32(c[j] + r.NormFloat64()*vecNoise)
		}
	}
	return out
}

// vecCat is row id's category, the prefilter's column.
func vecCat(id int) int { return id % 10 }

// distHeap is a max-heap of (squared distance, id): the current top k.
type distHeap []struct {
	d  float64
	id int
}

func (h distHeap) Len() int { return len(h) }
func (h distHeap) Less(i, j int) bool {
	return h[i].d > h[j].d || (h[i].d == h[j].d && h[i].id > h[j].id)
}
func (h distHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any) {
	*h = append(*h, x.(struct {
		d  float64
		id int
	}))
}
func (h *distHeap) Pop() any { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

func (h *distHeap) offer(d float64, id int) {
	if h.Len() < vecK {
		heap.Push(h, struct {
			d  float64
			id int
		}{d, id})
	} else if d < (*h)[0].d {
		(*h)[0].d, (*h)[0].id = d, id
		heap.Fix(h, 0)
	}
}

func (h distHeap) ids() []int64 {
	s := slices.Clone(h)
	slices.SortFunc(s, func(a, b struct {
		d  float64
		id int
	}) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return a.id - b.id
	})
	out := make([]int64, len(s))
	for i, e := range s {
		out[i] = int64(e.id)
	}
	return out
}

// vecTruth is the exact top k (L2, in float64) of every query over all rows
// and over the prefiltered rows, computed here once: the recall reference
// for both sides, independent of either.
func vecTruth(ctx context.Context, data []float32, dim int, qs [][]float32) (all, filtered [][]int64, err error) {
	all, filtered = make([][]int64, len(qs)), make([][]int64, len(qs))
	n := len(data) / dim
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qi := range next {
				q := qs[qi]
				var a, f distHeap
				for i := 0; i < n; i++ {
					if i%65536 == 0 && ctx.Err() != nil {
						return
					}
					row := data[i*dim : (i+1)*dim]
					var s float64
					for j, x := range row {
						d := float64(x) - float64(q[j])
						s += d * d
					}
					a.offer(s, i)
					if vecCat(i) == vecFilterCat {
						f.offer(s, i)
					}
				}
				all[qi], filtered[qi] = a.ids(), f.ids()
			}
		}()
	}
	for qi := range qs {
		next <- qi
	}
	close(next)
	wg.Wait()
	return all, filtered, ctx.Err()
}

// recall is the mean fraction of each query's exact top k that got[i]
// holds.
func recall(got, truth [][]int64) float64 {
	hit, total := 0, 0
	for i, t := range truth {
		set := map[int64]bool{}
		for _, id := range t {
			set[id] = true
		}
		for _, id := range got[i] {
			if set[id] {
				hit++
			}
		}
		total += len(t)
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// vecSearch is one side's timed pass over the queries.
type vecSearch struct {
	Ns  []int64   `json:"ns"`
	IDs [][]int64 `json:"ids"`
	// CPUNs is the process's CPU time (user + system, every thread) over
	// the timed queries: on a shared machine wall-clock latency is mostly
	// waiting for a core, CPU time is the work.
	CPUNs int64 `json:"cpuNs"`
}

// vecIndexRun is one side's results for one index type.
type vecIndexRun struct {
	BuildNs    int64     `json:"buildNs"`
	BuildCPUNs int64     `json:"buildCpuNs"` // the process's CPU time over the build`
	IndexBytes int64     `json:"indexBytes"`
	ANN        vecSearch `json:"ann"`
	Filtered   vecSearch `json:"filtered"`
}

// vecRun is one side's results at one size.
type vecRun struct {
	LoadNs        int64                   `json:"loadNs"`
	Exact         vecSearch               `json:"exact"`
	ExactFiltered vecSearch               `json:"exactFiltered"`
	Indices       map[string]*vecIndexRun `json:"indices"`
}

// indexDirSizes maps every directory directly under an _indices directory
// below root (one index version's files) to its bytes.
func indexDirSizes(root string) (map[string]int64, error) {
	out := map[string]int64{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		parent := filepath.Dir(p)
		if filepath.Base(filepath.Dir(parent)) != "_indices" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[parent] += info.Size()
		return nil
	})
	return out, err
}

// newIndexBytes is the bytes of the index directories in after that are not
// in before: what one build wrote (a dropped index's files stay on disk, so
// the sum of _indices would count every earlier type too).
func newIndexBytes(before, after map[string]int64) int64 {
	var n int64
	for d, b := range after {
		if _, ok := before[d]; !ok {
			n += b
		}
	}
	return n
}

// vecLiteral renders v as lancecat's vector text, float32's shortest
// round-tripping form, so the rows stored are exactly data's.
func vecLiteral(b []byte, v []float32) []byte {
	b = append(b, '[')
	for j, x := range v {
		if j > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']')
}

// lancecatVectorLoad creates table vec (id, cat, v VECTOR(dim)) in a fresh
// catalog at dir through database/sql and inserts data, then OPTIMIZE
// TABLE compacts the insert fragments into the reference's 1,048,576-row
// fragments, so both sides search the layout the reference would write.
func lancecatVectorLoad(ctx context.Context, db *sql.DB, data []float32, dim int) error {
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE vec (id BIGINT NOT NULL, cat BIGINT, v VECTOR(%d))", dim)); err != nil {
		return err
	}
	n := len(data) / dim
	// About 16 MiB of SQL text per statement: well under the 256 MiB
	// statement budget, few enough statements that parsing dominates little.
	per := max(1, (16<<20)/(dim*12))
	var b []byte
	for i := 0; i < n; i += per {
		b = append(b[:0], "INSERT INTO vec (id, cat, v) VALUES "...)
		for j := i; j < min(i+per, n); j++ {
			if j > i {
				b = append(b, ',')
			}
			b = append(b, '(')
			b = strconv.AppendInt(b, int64(j), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(vecCat(j)), 10)
			b = append(b, ",'"...)
			b = vecLiteral(b, data[j*dim:(j+1)*dim])
			b = append(b, "')"...)
		}
		if _, err := db.ExecContext(ctx, string(b)); err != nil {
			return fmt.Errorf("insert rows %d..: %w", i, err)
		}
	}
	if _, err := db.ExecContext(ctx, "OPTIMIZE TABLE vec"); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	return nil
}

// lancecatVecSearches runs the queries through database/sql (SQL parsing
// and planning included, as an application sees it) after one untimed
// warm-up query, and checks each returns k rows.
func lancecatVecSearches(ctx context.Context, db *sql.DB, qs [][]float32, where, what string) (vecSearch, error) {
	query := "SELECT id FROM vec " + where + " ORDER BY VEC_L2_DISTANCE(v, ?) LIMIT " + strconv.Itoa(vecK)
	one := func(q []float32) ([]int64, error) {
		rows, err := db.QueryContext(ctx, query, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}
	var s vecSearch
	if _, err := one(qs[0]); err != nil {
		return s, fmt.Errorf("%s: %w", what, err)
	}
	cpu0 := processCPU()
	for i, q := range qs {
		t0 := time.Now()
		ids, err := one(q)
		s.Ns = append(s.Ns, time.Since(t0).Nanoseconds())
		if err != nil {
			return s, fmt.Errorf("%s, query %d: %w", what, i, err)
		}
		if len(ids) != vecK {
			return s, fmt.Errorf("%s, query %d: lancecat returned %d rows, want %d", what, i, len(ids), vecK)
		}
		s.IDs = append(s.IDs, ids)
	}
	s.CPUNs = processCPU() - cpu0
	return s, nil
}

func vecFilter() string { return "cat = " + strconv.Itoa(vecFilterCat) }

// vecProps is the WITH PROPERTIES list of a lancecat build of type typ.
func vecProps(typ string, sh vecShape) string {
	p := []string{"metric = 'l2'", "num_partitions = " + strconv.Itoa(vecPartitions(sh.N))}
	for _, t := range vecTypes {
		if t.name != typ {
			continue
		}
		if t.pq {
			p = append(p, "num_sub_vectors = "+strconv.Itoa(vecSubVectors(sh.Dim)))
		}
		if t.hnsw {
			p = append(p, "m = "+strconv.Itoa(vecHNSWM), "ef_construction = "+strconv.Itoa(vecHNSWEfc))
		}
	}
	return strings.Join(p, ", ")
}

// lancecatVector runs lancecat's side on the loaded table: exact searches
// (no index yet), then per type a build, its bytes and the ANN searches,
// then DROP INDEX.
func lancecatVector(ctx context.Context, db *sql.DB, dir string, cfg vectorConfig, sh vecShape, qs [][]float32, logf func(string, ...any)) (*vecRun, error) {
	run := &vecRun{Indices: map[string]*vecIndexRun{}}
	var err error
	if run.Exact, err = lancecatVecSearches(ctx, db, qs, "", "exact"); err != nil {
		return nil, err
	}
	if run.ExactFiltered, err = lancecatVecSearches(ctx, db, qs, "WHERE "+vecFilter(), "exact, prefiltered"); err != nil {
		return nil, err
	}
	// The session variables hold on the one connection the pool keeps.
	set := []string{"lancecat_nprobes = " + strconv.Itoa(cfg.NProbes)}
	if cfg.Refine > 0 {
		set = append(set, "lancecat_refine_factor = "+strconv.Itoa(cfg.Refine))
	}
	if cfg.Ef > 0 {
		set = append(set, "lancecat_ef = "+strconv.Itoa(cfg.Ef))
	}
	if _, err := db.ExecContext(ctx, "SET "+strings.Join(set, ", ")); err != nil {
		return nil, err
	}
	for _, typ := range cfg.Types {
		logf("vector: lancecat %s at %s", typ, sh.label())
		before, err := indexDirSizes(dir)
		if err != nil {
			return nil, err
		}
		t0, cpu0 := time.Now(), processCPU()
		if _, err := db.ExecContext(ctx, "CREATE VECTOR INDEX v_idx ON vec (v) USING "+typ+" WITH PROPERTIES ("+vecProps(typ, sh)+")"); err != nil {
			return nil, fmt.Errorf("build %s: %w", typ, err)
		}
		ir := &vecIndexRun{BuildNs: time.Since(t0).Nanoseconds(), BuildCPUNs: processCPU() - cpu0}
		after, err := indexDirSizes(dir)
		if err != nil {
			return nil, err
		}
		ir.IndexBytes = newIndexBytes(before, after)
		if ir.ANN, err = lancecatVecSearches(ctx, db, qs, "", typ); err != nil {
			return nil, err
		}
		if ir.Filtered, err = lancecatVecSearches(ctx, db, qs, "WHERE "+vecFilter(), typ+", prefiltered"); err != nil {
			return nil, err
		}
		run.Indices[typ] = ir
		if _, err := db.ExecContext(ctx, "DROP INDEX v_idx ON vec"); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// copyTree copies the regular files under src to dst (the peer's copy of
// the loaded catalog).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("copy %s: not a regular file", p)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, in); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// runVector runs the vector suite and returns its rows.
func runVector(ctx context.Context, cfg vectorConfig) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var rows []Row
	for _, sh := range cfg.Sets {
		label := sh.label()
		logf("vector: generating %s and the exact top %d of %d queries", label, vecK, cfg.Queries)
		data := vecData(sh.N, sh.Dim)
		qs := vecQueries(cfg.Queries, sh.Dim)
		truth, truthF, err := vecTruth(ctx, data, sh.Dim, qs)
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("lancecat-vector-%dx%d", sh.N, sh.Dim))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		db, err := sql.Open("lancecat", filepath.ToSlash(dir))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		logf("vector: lancecat loads %s", label)
		t0 := time.Now()
		err = lancecatVectorLoad(ctx, db, data, sh.Dim)
		loadNs := time.Since(t0).Nanoseconds()
		data = nil // the ground truth is computed: let the collector have it
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("lancecat load at %s: %w", label, err)
		}
		var pdir string
		if cfg.Peer {
			// The peer searches a copy of the catalog lancecat wrote, taken
			// before any index: the same bytes on both sides.
			pdir = filepath.Join(cfg.WorkDir, fmt.Sprintf("peer-vector-%dx%d", sh.N, sh.Dim))
			if err := copyTree(dir, pdir); err != nil {
				db.Close()
				return nil, err
			}
		}
		lc, err := lancecatVector(ctx, db, dir, cfg, sh, qs, logf)
		db.Close()
		if err != nil {
			return nil, fmt.Errorf("lancecat vector at %s: %w", label, err)
		}
		lc.LoadNs = loadNs
		if err := removeAll(dir); err != nil {
			return nil, err
		}
		var pr *vecRun
		if cfg.Peer {
			logf("vector: peer at %s", label)
			if pr, err = peerVector(ctx, cfg, sh, pdir, qs); err != nil {
				return nil, err
			}
			if err := removeAll(pdir); err != nil {
				return nil, err
			}
		}
		rows = append(rows, vecRows(cfg, sh, lc, pr, truth, truthF)...)
	}
	return finish(rows), nil
}

// peerVector runs the peer's side (bench-peer.mjs vector) on its copy at
// pdir. The queries go through a file: 100 x 768 numbers exceed what one
// command-line argument may hold.
func peerVector(ctx context.Context, cfg vectorConfig, sh vecShape, pdir string, qs [][]float32) (*vecRun, error) {
	idx := []map[string]any{} // not nil: the peer iterates it even with no index types (-types "")
	for _, typ := range cfg.Types {
		for _, t := range vecTypes {
			if t.name != typ || t.peer == "" {
				continue
			}
			o := map[string]any{"type": typ, "factory": t.peer, "numPartitions": vecPartitions(sh.N)}
			if t.pq {
				o["numSubVectors"] = vecSubVectors(sh.Dim)
			}
			if t.hnsw {
				o["m"], o["efConstruction"] = vecHNSWM, vecHNSWEfc
			}
			idx = append(idx, o)
		}
	}
	qfile := filepath.Join(cfg.WorkDir, fmt.Sprintf("vector-queries-%dx%d.json", sh.N, sh.Dim))
	qj, err := json.Marshal(qs)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(qfile, qj, 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(qfile)
	pr := &vecRun{}
	args := map[string]any{"dir": pdir, "table": "vec", "k": vecK, "queries": qfile, "where": vecFilter(),
		"nprobes": cfg.NProbes, "refine": cfg.Refine, "ef": cfg.Ef, "indices": idx}
	if err := runPeer(ctx, "vector", args, pr); err != nil {
		return nil, err
	}
	// Every query must come back with k rows (the table has far more than k
	// rows in the filter): a short answer is a wrong answer.
	check := func(what string, s vecSearch) error {
		if len(s.IDs) != len(qs) || len(s.Ns) != len(qs) {
			return fmt.Errorf("peer %s at %s: %d answers, %d times for %d queries", what, sh.label(), len(s.IDs), len(s.Ns), len(qs))
		}
		for i, ids := range s.IDs {
			if len(ids) != vecK {
				return fmt.Errorf("peer %s at %s, query %d: %d rows, want %d", what, sh.label(), i, len(ids), vecK)
			}
		}
		return nil
	}
	if err := check("exact", pr.Exact); err != nil {
		return nil, err
	}
	if err := check("exact, prefiltered", pr.ExactFiltered); err != nil {
		return nil, err
	}
	for _, o := range idx {
		typ := o["type"].(string)
		ir := pr.Indices[typ]
		if ir == nil {
			return nil, fmt.Errorf("peer at %s: no result for %s", sh.label(), typ)
		}
		if err := check(typ, ir.ANN); err != nil {
			return nil, err
		}
		if err := check(typ+", prefiltered", ir.Filtered); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// vecRows turns both sides' results into table rows.
func vecRows(cfg vectorConfig, sh vecShape, lc, pr *vecRun, truth, truthF [][]int64) []Row {
	label := sh.label()
	params := fmt.Sprintf("nprobes %d, refine %d", cfg.NProbes, cfg.Refine)
	if cfg.Ef > 0 {
		params += fmt.Sprintf(", ef %d", cfg.Ef)
	}
	filt := "prefilter " + vecFilter() + " (10%)"
	row := func(op string, unit Unit, l, p *Stat, note string) Row {
		return Row{Suite: "vector", Operation: op, Size: label, Unit: unit, Lancecat: l, Peer: p, Note: note}
	}
	rows := []Row{row("load table (setup)", UnitNanos, one(float64(lc.LoadNs)), nil,
		"lancecat: INSERT + OPTIMIZE TABLE through database/sql; the peer searches a copy")}
	perQuery := func(s *vecSearch) *Stat { return one(float64(s.CPUNs) / float64(len(s.Ns))) }
	searchRows := func(what string, l, p *vecSearch, t [][]int64, note string) {
		var pl, pc, pre *Stat
		if p != nil {
			pl, pc, pre = summarize(nanos(p.Ns)), perQuery(p), one(recall(p.IDs, t))
		}
		rows = append(rows,
			row(what+", top 10", UnitNanos, summarize(nanos(l.Ns)), pl, note),
			row(what+", CPU per query", UnitNanos, perQuery(l), pc, ""),
			row(what+", recall@10", UnitRecall, one(recall(l.IDs, t)), pre, ""))
	}
	var pe, pef *vecSearch
	if pr != nil {
		pe, pef = &pr.Exact, &pr.ExactFiltered
	}
	searchRows("exact", &lc.Exact, pe, truth, "no index; peer bypassVectorIndex")
	searchRows("exact, "+filt, &lc.ExactFiltered, pef, truthF, "")
	for _, typ := range cfg.Types {
		l := lc.Indices[typ]
		var p *vecIndexRun
		if pr != nil {
			p = pr.Indices[typ]
		}
		peerOne := func(f func(*vecIndexRun) float64) *Stat {
			if p == nil {
				return nil
			}
			return one(f(p))
		}
		note := ""
		if p == nil && pr != nil {
			note = "lancecat only: the peer's node API builds no " + typ
		}
		shape := fmt.Sprintf("%d partitions", vecPartitions(sh.N))
		if strings.Contains(typ, "PQ") {
			shape += fmt.Sprintf(", %d sub-vectors", vecSubVectors(sh.Dim))
		}
		rows = append(rows,
			row("build "+typ+" ("+shape+")", UnitNanos, one(float64(l.BuildNs)), peerOne(func(r *vecIndexRun) float64 { return float64(r.BuildNs) }), note),
			row("build "+typ+", CPU time", UnitNanos, one(float64(l.BuildCPUNs)), peerOne(func(r *vecIndexRun) float64 { return float64(r.BuildCPUNs) }), ""),
			row(typ+" index bytes", UnitBytes, one(float64(l.IndexBytes)), peerOne(func(r *vecIndexRun) float64 { return float64(r.IndexBytes) }), ""))
		var pa, pf *vecSearch
		if p != nil {
			pa, pf = &p.ANN, &p.Filtered
		}
		searchRows(typ+" ("+params+")", &l.ANN, pa, truth, note)
		searchRows(typ+", "+filt, &l.Filtered, pf, truthF, "")
	}
	return rows
}

// processCPU is this process's user + system CPU time so far, in
// nanoseconds (0 where getrusage fails).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// vectorFlags checks the vector suite's flags.
func vectorFlags(sets, types string, queries, nprobes, refine, ef int) (vectorConfig, error) {
	var cfg vectorConfig
	var err error
	if cfg.Sets, err = parseShapes(sets); err != nil {
		return cfg, err
	}
	for _, t := range strings.Split(types, ",") {
		t = strings.ToUpper(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		if !slices.ContainsFunc(vecTypes, func(v vecType) bool { return v.name == t }) {
			return cfg, fmt.Errorf("-types: unknown index type %q", t)
		}
		cfg.Types = append(cfg.Types, t)
	}
	switch {
	case queries < 1:
		return cfg, fmt.Errorf("-queries %d: want at least 1", queries)
	case nprobes < 1:
		return cfg, fmt.Errorf("-nprobes %d: want at least 1", nprobes)
	case refine < 0 || ef < 0:
		return cfg, fmt.Errorf("-refine %d, -ef %d: want 0 or more", refine, ef)
	}
	cfg.Queries, cfg.NProbes, cfg.Refine, cfg.Ef = queries, nprobes, refine, ef
	return cfg, nil
}
