package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// Unit says what a Stat measures.
type Unit string

const (
	UnitNanos Unit = "ns"     // per-operation time
	UnitBytes Unit = "bytes"  // bytes (on disk or read)
	UnitRows  Unit = "rows"   // rows returned
	UnitCount Unit = "count"  // files, versions, ...
	UnitRate  Unit = "rows/s" // throughput (higher is better)
	// UnitRecall is a fraction of the exact answer found (recall@k).
	UnitRecall Unit = "recall"
)

// Stat summarizes one side's measurements of one operation. For one-shot
// values (bytes on disk, a total time) N is 1 and Median == P90 == the value.
type Stat struct {
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	N      int     `json:"n"`
}

// Row is one line of a suite's table: an operation at a size, both sides.
type Row struct {
	Suite     string `json:"suite"`
	Operation string `json:"operation"`
	Size      string `json:"size"`
	Unit      Unit   `json:"unit"`
	// Lancecat is lancecat like for like with the peer (in the catalog
	// suite: durability=none, as the reference never fsyncs).
	Lancecat *Stat `json:"lancecat"` // nil: not measured
	// Durable is lancecat with the durable default (catalog suite only).
	Durable *Stat `json:"lancecat_durable,omitempty"`
	Peer    *Stat `json:"peer"` // nil: not measured (no peer, or the peer has no such number)
	// DuckDB is DuckDB's number (ingest suite only).
	DuckDB *Stat `json:"duckdb,omitempty"`
	// Ratio is lancecat / peer (medians); 0 when either side is missing.
	Ratio float64 `json:"ratio,omitempty"`
	// DurableRatio is durable / peer (medians).
	DurableRatio float64 `json:"durable_ratio,omitempty"`
	// DuckDBRatio is lancecat / DuckDB (medians).
	DuckDBRatio float64 `json:"duckdb_ratio,omitempty"`
	Note        string  `json:"note,omitempty"`
}

// Report is what -json writes.
type Report struct {
	Date    string            `json:"date"`
	Machine map[string]string `json:"machine"`
	Rows    []Row             `json:"rows"`
}

// summarize returns the median and nearest-rank 90th and 99th percentiles of
// samples.
func summarize(samples []float64) *Stat {
	if len(samples) == 0 {
		return nil
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	var med float64
	if n := len(s); n%2 == 1 {
		med = s[n/2]
	} else {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	rank := func(p float64) float64 { return s[int(math.Ceil(p*float64(len(s))))-1] }
	return &Stat{Median: med, P90: rank(0.9), P99: rank(0.99), N: len(s)}
}

func one(v float64) *Stat { return &Stat{Median: v, P90: v, P99: v, N: 1} }

func nanos(ns []int64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = float64(v)
	}
	return out
}

// finish fills in the ratios.
func finish(rows []Row) []Row {
	for i := range rows {
		r := &rows[i]
		if r.Lancecat != nil && r.Peer != nil && r.Peer.Median > 0 {
			r.Ratio = r.Lancecat.Median / r.Peer.Median
		}
		if r.Durable != nil && r.Peer != nil && r.Peer.Median > 0 {
			r.DurableRatio = r.Durable.Median / r.Peer.Median
		}
		if r.Lancecat != nil && r.DuckDB != nil && r.DuckDB.Median > 0 {
			r.DuckDBRatio = r.Lancecat.Median / r.DuckDB.Median
		}
	}
	return rows
}

func formatStat(u Unit, s *Stat) string {
	if s == nil {
		return "-"
	}
	switch u {
	case UnitNanos:
		if s.N > 1 {
			return fmt.Sprintf("%s (p90 %s, p99 %s)", fmtDur(s.Median), fmtDur(s.P90), fmtDur(s.P99))
		}
		return fmtDur(s.Median)
	case UnitBytes:
		if s.N > 1 {
			return fmt.Sprintf("%s (p90 %s)", fmtBytes(s.Median), fmtBytes(s.P90))
		}
		return fmtBytes(s.Median)
	case UnitRate:
		return fmtRate(s.Median)
	case UnitRecall:
		return fmt.Sprintf("%.3f", s.Median)
	default:
		return fmt.Sprintf("%.0f", s.Median)
	}
}

func fmtDur(ns float64) string {
	switch {
	case ns >= 10e9:
		return fmt.Sprintf("%.1f s", ns/1e9)
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 100e6:
		return fmt.Sprintf("%.0f ms", ns/1e6)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.0f us", ns/1e3)
	}
}

func fmtRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M rows/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1f k rows/s", r/1e3)
	default:
		return fmt.Sprintf("%.0f rows/s", r)
	}
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", b)
	}
}

// printTable writes one aligned table per suite, in the order rows came.
func printTable(w io.Writer, rows []Row) error {
	var suites []string
	bySuite := map[string][]Row{}
	for _, r := range rows {
		if _, ok := bySuite[r.Suite]; !ok {
			suites = append(suites, r.Suite)
		}
		bySuite[r.Suite] = append(bySuite[r.Suite], r)
	}
	for i, s := range suites {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "suite %s\n", s)
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		durable := slices.ContainsFunc(bySuite[s], func(r Row) bool { return r.Durable != nil })
		duck := slices.ContainsFunc(bySuite[s], func(r Row) bool { return r.DuckDB != nil })
		ratio := func(x float64) string {
			if x > 0 {
				return fmt.Sprintf("%.2fx", x)
			}
			return "-"
		}
		switch {
		case durable:
			fmt.Fprintln(tw, "operation\tsize\tlancecat durability=none\tpeer\tratio\tlancecat durable (default)\tdurable/peer\tnote")
		case duck:
			fmt.Fprintln(tw, "operation\tsize\tlancecat\tpeer\tDuckDB\tratio\tlancecat/DuckDB\tnote")
		default:
			fmt.Fprintln(tw, "operation\tsize\tlancecat\tpeer\tratio\tnote")
		}
		for _, r := range bySuite[s] {
			if durable {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Operation, r.Size, formatStat(r.Unit, r.Lancecat), formatStat(r.Unit, r.Peer), ratio(r.Ratio),
					formatStat(r.Unit, r.Durable), ratio(r.DurableRatio), r.Note)
				continue
			}
			if duck {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Operation, r.Size, formatStat(r.Unit, r.Lancecat), formatStat(r.Unit, r.Peer),
					formatStat(r.Unit, r.DuckDB), ratio(r.Ratio), ratio(r.DuckDBRatio), r.Note)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Operation, r.Size, formatStat(r.Unit, r.Lancecat), formatStat(r.Unit, r.Peer), ratio(r.Ratio), r.Note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// An empty note column leaves padding behind.
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n"))); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeJSON(w io.Writer, rep Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// sizeLabel prints 5000 as "5,000".
func sizeLabel(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
