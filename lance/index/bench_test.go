package index

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

// catalogLookups are the catalog's two hot lookups: one object by id, and
// every object under a namespace (an id prefix).
func catalogLookups(t testing.TB, ds *dataset.Dataset) (key, prefix string) {
	rows := rowsFromScan(t, ds, "object_id")
	key = rows[len(rows)/2].vals["object_id"].(string)
	ns := strings.SplitN(rows[0].vals["object_id"].(string), "$", 2)[0]
	return key, ns + "$"
}

// BenchmarkCatalogLookup measures lancecat's one-key and prefix lookups
// through object_id_btree on the peer's 100,000-entry __manifest (cold: open
// the index and search; warm: search an opened index), reporting bytes read
// and index rows decoded per lookup, and prints the peer's time for the same
// queries side by side.
func BenchmarkCatalogLookup(b *testing.B) {
	dir := filepath.Join(peer.Fixture(b, "catalog-100000"), "__manifest")
	ds := openDataset(b, dir)
	ctx := context.Background()
	key, prefix := catalogLookups(b, ds)
	queries := []struct {
		name  string
		q     Query
		where string
	}{
		{"one-key", Eq(key), fmt.Sprintf("object_id = '%s'", key)},
		{"prefix", Prefix(prefix), fmt.Sprintf("starts_with(object_id, '%s')", prefix)},
	}
	type result struct {
		coldNs, warmNs  float64
		coldStats, warm Stats
		rows            uint64
	}
	results := map[string]*result{}
	for _, qc := range queries {
		r := &result{}
		results[qc.name] = r
		b.Run(qc.name+"/cold", func(b *testing.B) {
			var st Stats
			for i := 0; i < b.N; i++ {
				ix, err := Open(ctx, ds, "object_id_btree")
				if err != nil {
					b.Fatal(err)
				}
				res, err := ix.Search(ctx, qc.q)
				if err != nil {
					b.Fatal(err)
				}
				r.rows, _ = res.Rows.Len()
				st = ix.Stats()
			}
			r.coldNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			r.coldStats = st
			b.ReportMetric(float64(st.BytesRead), "bytes/op")
			b.ReportMetric(float64(st.RowsDecoded), "rows-decoded/op")
		})
		b.Run(qc.name+"/warm", func(b *testing.B) {
			ix, err := Open(ctx, ds, "object_id_btree")
			if err != nil {
				b.Fatal(err)
			}
			before := ix.Stats()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ix.Search(ctx, qc.q); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			d := ix.Stats().Sub(before)
			r.warmNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			r.warm = Stats{BytesRead: d.BytesRead / int64(b.N), RowsDecoded: d.RowsDecoded / int64(b.N)}
			b.ReportMetric(float64(r.warm.BytesRead), "bytes/op")
			b.ReportMetric(float64(r.warm.RowsDecoded), "rows-decoded/op")
		})
	}
	// The peer, same machine, same dataset, same queries (warm, in-process).
	var qs []map[string]string
	for _, qc := range queries {
		qs = append(qs, map[string]string{"name": qc.name, "where": qc.where})
	}
	qj, _ := json.Marshal(qs)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := peer.Run(pctx, b, "../../lance/index/testdata/peer_lookup_bench.mjs", dir, string(qj), "20")
	if err != nil {
		b.Fatalf("peer benchmark: %v", err)
	}
	var pr map[string]struct {
		MsPerQuery float64
		Rows       uint64
		Plan       string
	}
	if err := json.Unmarshal(out, &pr); err != nil {
		b.Fatalf("peer benchmark output %q: %v", out, err)
	}
	fmt.Printf("\ncatalog-100000 __manifest, object_id_btree (%d-entry)\n", 100000)
	fmt.Printf("%-8s %10s %12s %14s %16s %10s %12s %s\n", "lookup", "rows", "lancecat cold", "lancecat warm", "cold bytes/rows", "warm rows", "peer (warm)", "peer plan uses")
	for _, qc := range queries {
		r, p := results[qc.name], pr[qc.name]
		use := "scan"
		if strings.Contains(p.Plan, "ScalarIndexQuery") {
			use = "btree"
		}
		fmt.Printf("%-8s %10d %11.3fms %13.3fms %9d/%-6d %10d %11.3fms %s\n", qc.name, r.rows, r.coldNs/1e6, r.warmNs/1e6,
			r.coldStats.BytesRead, r.coldStats.RowsDecoded, r.warm.RowsDecoded, p.MsPerQuery, use)
		if p.Rows != r.rows {
			b.Errorf("%s: peer returned %d rows, lancecat %d", qc.name, p.Rows, r.rows)
		}
	}
}
