package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/lancecat/lancecat/driver" // database/sql driver "lancecat"
)

// ftsConfig configures the fts suite.
type ftsConfig struct {
	Docs    []int // corpus sizes
	Queries int   // queries of each kind per size
	WorkDir string
	Peer    bool
	// NoPositions builds both indices without positions (and drops the
	// phrase queries, which need them): the peer's build with positions
	// stalls past about 7,000 documents of this corpus, so larger sizes
	// compare without.
	NoPositions bool
	Log         func(format string, args ...any)
}

// kinds are the query kinds the configuration runs.
func (c ftsConfig) kinds() []struct{ key, label string } {
	if !c.NoPositions {
		return ftsKinds
	}
	var out []struct{ key, label string }
	for _, k := range ftsKinds {
		if k.key != "phrase" {
			out = append(out, k)
		}
	}
	return out
}

// ftsKinds are the query kinds of the suite, in order, with their labels.
var ftsKinds = []struct{ key, label string }{
	{"one", "one-word query, top 10"},
	{"multi", "three-word query (any term), top 10"},
	{"phrase", "two-word phrase query, top 10"},
}

// ftsVocabulary is the corpus's word list, most frequent first: common
// English words, then pseudo-words built from syllables so the long tail of
// a Zipf distribution has distinct terms (a real corpus has tens of
// thousands).
func ftsVocabulary() []string {
	common := strings.Fields(`time year people way day man thing woman life child world school state
	family student group country problem hand part place case week company system program question
	work government number night point home water room mother area money story fact month lot right
	study book eye job word business issue side kind head house service friend father power hour game
	line end member law car city community name president team minute idea kid body information back
	parent face others level office door health person art war history party result change morning
	reason research girl guy moment air teacher force education foot boy age policy music market sense
	nation plan college interest death experience effect class control care field development role
	effort rate heart drug show leader light voice wife police mind price report decision son view
	relationship town road arm difference value building action model season society tax director
	position player record paper space ground form event official matter center couple site project
	activity star table need court oil situation cost industry figure street image phone data picture
	practice piece land product doctor wall patient worker news test movie north love support
	technology step baby computer type attention film tree source organization hair window evidence
	population truth song energy run walk write read build open close move serve fall grow lead
	stand understand watch follow stop create speak spend allow offer remember consider appear buy
	wait send expect stay die reach kill remain suggest raise pass sell require decide return explain
	hope develop carry break receive agree support hit produce eat cover catch draw choose cause`)
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dor", "fen", "gal", "hix", "jur", "bel", "cor"}
	r := rand.New(rand.NewSource(7))
	seen := map[string]bool{}
	var words []string
	for _, w := range common {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for len(words) < 20000 {
		n := 2 + r.Intn(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syll[r.Intn(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// ftsCorpus returns n deterministic documents of 20 to 80 words drawn from
// ftsVocabulary with a Zipf distribution (s = 1.1), the same for every run.
func ftsCorpus(n int) []string {
	vocab := ftsVocabulary()
	r := rand.New(rand.NewSource(1))
	z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	docs := make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		m := 20 + r.Intn(61)
		for j := 0; j < m; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[z.Uint64()])
		}
		docs[i] = b.String()
	}
	return docs
}

// ftsQueries returns q deterministic queries of each kind over docs: words
// of middling frequency (vocabulary ranks 20 to 2,000: neither stop-word-like
// nor absent) and two-word phrases taken from the documents, so every phrase
// matches at least one row.
func ftsQueries(docs []string, q int) map[string][]string {
	vocab := ftsVocabulary()
	r := rand.New(rand.NewSource(2))
	word := func() string { return vocab[20+r.Intn(1980)] }
	out := map[string][]string{}
	for i := 0; i < q; i++ {
		out["one"] = append(out["one"], word())
		out["multi"] = append(out["multi"], word()+" "+word()+" "+word())
		f := strings.Fields(docs[r.Intn(len(docs))])
		k := r.Intn(len(f) - 1)
		out["phrase"] = append(out["phrase"], f[k]+" "+f[k+1])
	}
	return out
}

// ftsRun is one side's result at one size.
// CPU times are the process's (user + system, every thread): on this shared
// machine wall time is mostly waiting for a core.
type ftsRun struct {
	LoadNs     int64              `json:"loadNs"`
	LoadCPUNs  int64              `json:"loadCpuNs"`
	BuildNs    int64              `json:"buildNs"`
	BuildCPUNs int64              `json:"buildCpuNs"`
	IndexBytes int64              `json:"indexBytes"`
	Ns         map[string][]int64 `json:"ns"`
	CPUNs      map[string]int64   `json:"cpuNs"` // over all queries of a kind, warm-up excluded
	Hits       map[string][]int   `json:"hits"`  // rows returned per query
}

// indexBytes sums the files under every _indices directory below root.
func indexBytes(root string) (int64, error) {
	var n int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.Contains(filepath.ToSlash(p), "/_indices/") {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// lancecatFTS loads docs into table docs of a fresh catalog in dir with LOAD
// DATA from a tab-separated file (written beforehand, untimed, as the peer's
// JSONL), builds the index with CREATE FULLTEXT INDEX (with_position unless
// cfg.NoPositions, as the peer's) and runs the queries through database/sql:
// what an application sees, SQL parsing and planning included.
func lancecatFTS(ctx context.Context, cfg ftsConfig, dir string, docs []string, qs map[string][]string) (*ftsRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tsv := filepath.Join(cfg.WorkDir, fmt.Sprintf("fts-%d.tsv", len(docs)))
	if err := writeTSV(tsv, docs); err != nil {
		return nil, err
	}
	defer os.Remove(tsv)
	db, err := sql.Open("lancecat", filepath.ToSlash(dir)+"?load_data_dir="+url.QueryEscape(cfg.WorkDir))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	run := &ftsRun{Ns: map[string][]int64{}, CPUNs: map[string]int64{}, Hits: map[string][]int{}}
	t0, cpu0 := time.Now(), processCPU()
	if _, err := db.ExecContext(ctx, "CREATE TABLE docs (id BIGINT NOT NULL, text TEXT)"); err != nil {
		return nil, err
	}
	// One statement, one Append version: the file is parsed in batches and
	// written fragment by fragment, not row by row.
	if _, err := db.ExecContext(ctx, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE docs (id, text)", filepath.Base(tsv))); err != nil {
		return nil, fmt.Errorf("load %s: %w", tsv, err)
	}
	run.LoadNs, run.LoadCPUNs = time.Since(t0).Nanoseconds(), processCPU()-cpu0
	t0, cpu0 = time.Now(), processCPU()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE FULLTEXT INDEX text_idx ON docs (text) WITH PROPERTIES (with_position = %t)", !cfg.NoPositions)); err != nil {
		return nil, err
	}
	run.BuildNs, run.BuildCPUNs = time.Since(t0).Nanoseconds(), processCPU()-cpu0
	if run.IndexBytes, err = indexBytes(dir); err != nil {
		return nil, err
	}
	query := func(kind, q string) (int, error) {
		against := "'" + q + "'"
		if kind == "phrase" {
			against = `'"` + q + `"' IN BOOLEAN MODE`
		}
		m := "MATCH (text) AGAINST (" + against + ")"
		rows, err := db.QueryContext(ctx, "SELECT id, "+m+" AS s FROM docs WHERE "+m+" ORDER BY s DESC LIMIT 10")
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id int64
			var s float64
			if err := rows.Scan(&id, &s); err != nil {
				return 0, err
			}
			n++
		}
		return n, rows.Err()
	}
	for _, k := range cfg.kinds() {
		// One untimed warm-up query per kind (opens the index), as on the
		// peer's side.
		if _, err := query(k.key, qs[k.key][0]); err != nil {
			return nil, fmt.Errorf("%s %q: %w", k.key, qs[k.key][0], err)
		}
		kindCPU0 := processCPU()
		for _, q := range qs[k.key] {
			t := time.Now()
			n, err := query(k.key, q)
			run.Ns[k.key] = append(run.Ns[k.key], time.Since(t).Nanoseconds())
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", k.key, q, err)
			}
			run.Hits[k.key] = append(run.Hits[k.key], n)
		}
		run.CPUNs[k.key] = processCPU() - kindCPU0
	}
	return run, nil
}

// writeTSV writes docs as LOAD DATA's default format (tab-separated id and
// text, one row a line). The corpus has only lower-case letters and spaces:
// nothing needs escaping.
func writeTSV(path string, docs []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, d := range docs {
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\t')
		w.WriteString(d)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSONL(path string, docs []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i, d := range docs {
		if err := enc.Encode(map[string]any{"id": i, "text": d}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runFTS runs the fts suite and returns its rows.
func runFTS(ctx context.Context, cfg ftsConfig) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var rows []Row
	for _, n := range cfg.Docs {
		label := sizeLabel(n) + " docs"
		docs := ftsCorpus(n)
		qs := ftsQueries(docs, cfg.Queries)
		logf("fts: lancecat at %s, %d queries of each kind", label, cfg.Queries)
		dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("lancecat-fts-%d", n))
		if cfg.NoPositions {
			delete(qs, "phrase")
		}
		lc, err := lancecatFTS(ctx, cfg, dir, docs, qs)
		if err != nil {
			return nil, fmt.Errorf("lancecat fts at %d docs: %w", n, err)
		}
		if err := removeAll(dir); err != nil {
			return nil, err
		}
		var pr *ftsRun
		if cfg.Peer {
			logf("fts: peer at %s", label)
			jsonl := filepath.Join(cfg.WorkDir, fmt.Sprintf("fts-%d.jsonl", n))
			if err := writeJSONL(jsonl, docs); err != nil {
				return nil, err
			}
			pdir := filepath.Join(cfg.WorkDir, fmt.Sprintf("peer-fts-%d", n))
			pr = &ftsRun{}
			if err := runPeer(ctx, "fts", map[string]any{"dir": pdir, "rows": jsonl, "queries": qs, "withPosition": !cfg.NoPositions}, pr); err != nil {
				return nil, err
			}
			// Same corpus, same tokenizer: the same number of rows per query
			// (a benchmark of different answers is worthless).
			for _, k := range cfg.kinds() {
				for i := range qs[k.key] {
					if i >= len(pr.Hits[k.key]) || pr.Hits[k.key][i] != lc.Hits[k.key][i] {
						return nil, fmt.Errorf("%s query %q: lancecat returned %d rows, the peer %v", k.key, qs[k.key][i], lc.Hits[k.key][i], pr.Hits[k.key])
					}
				}
			}
			if err := removeAll(pdir); err != nil {
				return nil, err
			}
			if err := os.Remove(jsonl); err != nil {
				return nil, err
			}
		}
		peerOne := func(f func(*ftsRun) float64) *Stat {
			if pr == nil {
				return nil
			}
			return one(f(pr))
		}
		buildLabel := "build FTS index (with positions)"
		if cfg.NoPositions {
			buildLabel = "build FTS index (no positions)"
		}
		rows = append(rows,
			Row{Suite: "fts", Operation: "load table (setup)", Size: label, Unit: UnitNanos, Lancecat: one(float64(lc.LoadNs)),
				Peer: peerOne(func(r *ftsRun) float64 { return float64(r.LoadNs) }), Note: "lancecat: LOAD DATA from TSV through database/sql; peer: createTable from Arrow"},
			Row{Suite: "fts", Operation: "load table, CPU time", Size: label, Unit: UnitNanos, Lancecat: one(float64(lc.LoadCPUNs)),
				Peer: peerOne(func(r *ftsRun) float64 { return float64(r.LoadCPUNs) })},
			Row{Suite: "fts", Operation: buildLabel, Size: label, Unit: UnitNanos, Lancecat: one(float64(lc.BuildNs)),
				Peer: peerOne(func(r *ftsRun) float64 { return float64(r.BuildNs) }), Note: fmt.Sprintf("CREATE FULLTEXT INDEX; peer: createIndex(Index.fts({withPosition: %t}))", !cfg.NoPositions)},
			Row{Suite: "fts", Operation: buildLabel + ", CPU time", Size: label, Unit: UnitNanos, Lancecat: one(float64(lc.BuildCPUNs)),
				Peer: peerOne(func(r *ftsRun) float64 { return float64(r.BuildCPUNs) })},
			Row{Suite: "fts", Operation: "index bytes on disk", Size: label, Unit: UnitBytes, Lancecat: one(float64(lc.IndexBytes)),
				Peer: peerOne(func(r *ftsRun) float64 { return float64(r.IndexBytes) })},
		)
		for _, k := range cfg.kinds() {
			r := Row{Suite: "fts", Operation: k.label, Size: label, Unit: UnitNanos, Lancecat: summarize(nanos(lc.Ns[k.key]))}
			if pr != nil {
				r.Peer = summarize(nanos(pr.Ns[k.key]))
			}
			cpu := Row{Suite: "fts", Operation: k.label + ", CPU per query", Size: label, Unit: UnitNanos,
				Lancecat: one(float64(lc.CPUNs[k.key]) / float64(len(qs[k.key])))}
			if pr != nil {
				cpu.Peer = one(float64(pr.CPUNs[k.key]) / float64(len(qs[k.key])))
			}
			rows = append(rows, r, cpu)
		}
	}
	return finish(rows), nil
}
