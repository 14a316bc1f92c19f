package mariadb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/lancecat/lancecat/driver"
)

// TestDifferential runs generated queries (gen.go) in MariaDB and in
// lancecat over the same table and compares the answers: numbers exactly
// where both are exact (integers, DECIMAL), floats to a relative 1e-9,
// strings and times exactly, NULL as NULL; an error on one side only is a
// discrepancy. The seed is printed; LANCECAT_DIFF_SEED=N replays a run,
// LANCECAT_DIFF_CASES=N sets the number of queries (default 4000).
func TestDifferential(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LANCECAT_DIFF_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("LANCECAT_DIFF_SEED: %v", err)
		}
	}
	cases := 4000
	if s := os.Getenv("LANCECAT_DIFF_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("LANCECAT_DIFF_CASES: %q", s)
		}
		cases = n
	}
	t.Logf("seed %d (replay: LANCECAT_DIFF_SEED=%d), %d queries", seed, seed, cases)

	ctx := context.Background()
	my := startMariaDB(t)
	lc, err := sql.Open("lancecat", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	lc.SetMaxOpenConns(1)

	g := NewGen(seed)
	setup := append([]string{TableDDL}, g.Rows(40)...)
	for _, db := range []*sql.DB{my, lc} {
		// One multi-row INSERT per engine: lancecat writes one fragment.
		if _, err := db.ExecContext(ctx, setup[0]); err != nil {
			t.Fatalf("%s: %v", setup[0], err)
		}
		var values []string
		for _, ins := range setup[1:] {
			values = append(values, strings.TrimPrefix(ins, "INSERT INTO t VALUES "))
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(values, ", ")); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}

	if one := os.Getenv("LANCECAT_DIFF_SQL"); one != "" {
		// Debugging aid: run one statement in both and show the answers.
		q := Query{SQL: one, Ordered: strings.Contains(one, "ORDER BY"), JSON: strings.Contains(one, "JSON_")}
		want, werr := run(ctx, my, q)
		got, gerr := run(ctx, lc, q)
		t.Logf("MariaDB: %v %v\nlancecat: %v %v\ncompare: %s", want, werr, got, gerr, compareResults(q, want, got))
		return
	}
	start := time.Now()
	var fails []string
	agreeErr, excluded := 0, 0
	for n := 0; n < cases; n++ {
		q := g.Query()
		if why := knownGap(q.SQL); why != "" {
			excluded++
			continue
		}
		want, werr := run(ctx, my, q)
		got, gerr := run(ctx, lc, q)
		switch {
		case werr != nil && gerr != nil:
			agreeErr++
			continue
		case werr != nil && knownErrorGap(werr) != "":
			excluded++
			continue
		case werr != nil:
			fails = append(fails, fmt.Sprintf("%s\n  MariaDB: error %v\n  lancecat: %v", q.SQL, werr, got))
			continue
		case gerr != nil && knownLancecatErrorGap(gerr) != "":
			excluded++
			continue
		case gerr != nil:
			fails = append(fails, fmt.Sprintf("%s\n  MariaDB: %v\n  lancecat: error %v", q.SQL, want, gerr))
			continue
		}
		if q.JSON {
			normJSON(want)
			normJSON(got)
		}
		if msg := compareResults(q, want, got); msg != "" {
			fails = append(fails, fmt.Sprintf("%s\n  %s", q.SQL, msg))
		}
	}
	t.Logf("%d queries in %v: %d agree on an error, %d skipped as known gaps, %d discrepancies",
		cases, time.Since(start).Round(time.Millisecond), agreeErr, excluded, len(fails))
	for i, f := range fails {
		if i == maxReported() {
			t.Errorf("... and %d more", len(fails)-i)
			break
		}
		t.Errorf("discrepancy (seed %d):\n%s", seed, f)
	}
}

// startMariaDB starts the oracle, skipping without mariadb-server unless
// the run requires it (CI).
func startMariaDB(t *testing.T) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, t.TempDir())
	if err != nil {
		if Required() {
			t.Fatalf("MariaDB is required (CI=true or LANCECAT_REQUIRE_MARIADB=1) but cannot run: %v", err)
		}
		t.Skipf("MariaDB not available: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	s.DB.SetMaxOpenConns(1)
	if _, err := s.DB.Exec("CREATE DATABASE diff"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec("USE diff"); err != nil {
		t.Fatal(err)
	}
	return s.DB
}

// cell is one value as compared: NULL, or its text with the type that
// says how to compare it.
type cell struct {
	null bool
	text string
	kind string // "int", "exact", "float", "string", "date", "datetime"
}

func (c cell) String() string {
	if c.null {
		return "NULL"
	}
	return strconv.Quote(c.text) + "/" + c.kind
}

func run(ctx context.Context, db *sql.DB, q Query) ([][]cell, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, q.SQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	var out [][]cell
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]cell, len(vals))
		for i, v := range vals {
			row[i] = toCell(v, strings.ToUpper(cts[i].DatabaseTypeName()))
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// toCell normalises a scanned value: MariaDB's text protocol gives []byte
// with a column type; lancecat gives typed Go values.
func toCell(v any, dbType string) cell {
	kind := "string"
	switch {
	case strings.Contains(dbType, "INT"):
		kind = "int"
	case strings.HasPrefix(dbType, "DECIMAL"):
		kind = "exact"
	case dbType == "DOUBLE" || dbType == "FLOAT":
		kind = "float"
	case dbType == "DATE":
		kind = "date"
	case strings.HasPrefix(dbType, "DATETIME") || strings.HasPrefix(dbType, "TIMESTAMP"):
		kind = "datetime"
	}
	switch x := v.(type) {
	case nil:
		return cell{null: true}
	case []byte:
		return cell{text: string(x), kind: kind}
	case string:
		return cell{text: x, kind: kind}
	case int64:
		return cell{text: strconv.FormatInt(x, 10), kind: "int"}
	case uint64:
		return cell{text: strconv.FormatUint(x, 10), kind: "int"}
	case float64:
		return cell{text: strconv.FormatFloat(x, 'g', -1, 64), kind: "float"}
	case bool:
		if x {
			return cell{text: "1", kind: "int"}
		}
		return cell{text: "0", kind: "int"}
	case time.Time:
		if kind == "date" {
			return cell{text: x.UTC().Format("2006-01-02"), kind: "date"}
		}
		return cell{text: x.UTC().Format("2006-01-02 15:04:05.999999"), kind: "datetime"}
	}
	return cell{text: fmt.Sprint(v), kind: kind}
}

func compareResults(q Query, want, got [][]cell) string {
	if len(want) != len(got) {
		return fmt.Sprintf("MariaDB %d rows, lancecat %d rows\n  MariaDB: %v\n  lancecat: %v", len(want), len(got), clip(want), clip(got))
	}
	if !q.Ordered {
		key := func(r []cell) string { return fmt.Sprint(r) }
		sortRows := func(rs [][]cell) {
			slices.SortFunc(rs, func(a, b []cell) int { return strings.Compare(normKey(a), normKey(b)) })
		}
		_ = key
		sortRows(want)
		sortRows(got)
	}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("row %d: %d columns vs %d", i, len(want[i]), len(got[i]))
		}
		for j := range want[i] {
			if !sameCell(want[i][j], got[i][j]) {
				return fmt.Sprintf("row %d column %d: MariaDB %v, lancecat %v\n  MariaDB row: %v\n  lancecat row: %v", i, j, want[i][j], got[i][j], want[i], got[i])
			}
		}
	}
	return ""
}

// normKey is a row's sort key for multiset comparison (numbers in a
// canonical form so that both engines' spellings sort alike).
func normKey(r []cell) string {
	var b strings.Builder
	for _, c := range r {
		switch {
		case c.null:
			b.WriteString("\x00NULL")
		case c.kind != "string" && c.kind != "date" && c.kind != "datetime":
			if f, err := strconv.ParseFloat(c.text, 64); err == nil {
				fmt.Fprintf(&b, "%.6e", f)
				break
			}
			b.WriteString(c.text)
		case c.kind == "date" || c.kind == "datetime":
			b.WriteString(strings.TrimSuffix(c.text, " 00:00:00"))
		default:
			b.WriteString(c.text)
		}
		b.WriteByte(0x1f)
	}
	return b.String()
}

func clip(rs [][]cell) string {
	s := fmt.Sprint(rs)
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

// sameCell compares one value: MariaDB's (w) against lancecat's (g).
func sameCell(w, g cell) bool {
	if w.null || g.null {
		return w.null == g.null
	}
	numeric := func(k string) bool { return k == "int" || k == "exact" || k == "float" }
	switch {
	case w.kind == "float" || g.kind == "float":
		if !numeric(w.kind) && !numeric(g.kind) {
			return w.text == g.text
		}
		a, err1 := strconv.ParseFloat(w.text, 64)
		b, err2 := strconv.ParseFloat(g.text, 64)
		if err1 != nil || err2 != nil {
			return w.text == g.text
		}
		if a == b {
			return true
		}
		tol := 1e-9 * math.Max(math.Abs(a), math.Abs(b))
		// MariaDB prints a DOUBLE with the decimals its type declares
		// (PI() is 3.141593, ROUND(x, 2) 1.00): lancecat's value must
		// round to what it printed.
		if i := strings.IndexByte(w.text, '.'); i >= 0 && w.kind == "float" && !strings.ContainsAny(w.text, "eE") {
			tol = math.Max(tol, 0.5*math.Pow10(-(len(w.text)-i-1))*(1+1e-9))
		}
		return math.Abs(a-b) <= tol
	case numeric(w.kind) && numeric(g.kind), numeric(w.kind) && g.kind == "string":
		a, ok1 := new(big.Rat).SetString(w.text)
		b, ok2 := new(big.Rat).SetString(g.text)
		if ok1 && ok2 {
			return a.Cmp(b) == 0
		}
		return w.text == g.text
	case (w.kind == "date" || w.kind == "datetime") || (g.kind == "date" || g.kind == "datetime"):
		// A DATETIME printed with its type's zero microseconds is the same
		// instant; a DATE equals its midnight.
		norm := func(s string) string {
			return strings.TrimSuffix(strings.TrimSuffix(s, ".000000"), " 00:00:00")
		}
		return norm(w.text) == norm(g.text)
	}
	if w.text != g.text && strings.Contains(w.text, ".") {
		// CAST(<double> AS CHAR): the two engines' math libraries may
		// differ in the last bit (LOG10); 15 significant digits agree.
		a, err1 := strconv.ParseFloat(w.text, 64)
		b, err2 := strconv.ParseFloat(g.text, 64)
		return err1 == nil && err2 == nil && math.Abs(a-b) <= 1e-14*math.Max(math.Abs(a), math.Abs(b))
	}
	return w.text == g.text
}

// normJSON rewrites the cells holding a JSON array or object as one
// canonical text: the value re-encoded, a top-level array's elements
// sorted (sortedJSON), numbers as float64 (MariaDB prints 2 for MySQL's
// 2.0, and no spaces after commas).
func normJSON(rows [][]cell) {
	for _, r := range rows {
		for i, c := range r {
			if c.null || c.text == "" || (c.text[0] != '[' && c.text[0] != '{') {
				continue
			}
			var v any
			if err := json.Unmarshal([]byte(c.text), &v); err != nil {
				continue
			}
			b, err := json.Marshal(sortedJSON(v))
			if err != nil {
				continue
			}
			r[i] = cell{text: string(b), kind: "string"}
		}
	}
}

// maxReported is how many discrepancies a run prints
// (LANCECAT_DIFF_SHOW=N, default 40).
func maxReported() int {
	if n, err := strconv.Atoi(os.Getenv("LANCECAT_DIFF_SHOW")); err == nil && n > 0 {
		return n
	}
	return 40
}
