package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// TestAggregatesOverPeerRowsPeer: the peer appends random rows (with
// NULLs, in several fragments); lancecat's GROUP BY aggregates equal a Go
// computation over the rows the peer itself reads back.
func TestAggregatesOverPeerRowsPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT NOT NULL, g VARCHAR(8), x BIGINT)"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	id := 0
	for range 3 { // three appends: three fragments
		var rows []map[string]any
		for range 200 {
			row := map[string]any{"id": id, "g": nil, "x": nil}
			if r.IntN(8) > 0 {
				row["g"] = fmt.Sprintf("k%d", r.IntN(5))
			}
			if r.IntN(6) > 0 {
				row["x"] = r.IntN(1000) - 500
			}
			rows = append(rows, row)
			id++
		}
		if err := peer.Op(ctx, t, "add", map[string]any{"uri": root, "name": "t", "rows": rows}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var q struct {
		Rows []struct {
			G *string      `json:"g"`
			X *json.Number `json:"x"`
		} `json:"rows"`
	}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "t", "columns": []string{"g", "x"}}, &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Rows) != id {
		t.Fatalf("peer reads %d rows, wrote %d", len(q.Rows), id)
	}
	type agg struct {
		n, nx, sum int64
		min, max   sql.NullInt64
		distinct   map[int64]bool
	}
	groups := map[string]*agg{}
	for _, row := range q.Rows {
		key := "NULL"
		if row.G != nil {
			key = *row.G
		}
		a := groups[key]
		if a == nil {
			a = &agg{distinct: map[int64]bool{}}
			groups[key] = a
		}
		a.n++
		if row.X == nil {
			continue
		}
		x, err := row.X.Int64()
		if err != nil {
			t.Fatal(err)
		}
		a.nx++
		a.sum += x
		a.distinct[x] = true
		if !a.min.Valid || x < a.min.Int64 {
			a.min = sql.NullInt64{Int64: x, Valid: true}
		}
		if !a.max.Valid || x > a.max.Int64 {
			a.max = sql.NullInt64{Int64: x, Valid: true}
		}
	}
	var want []string
	for key, a := range groups {
		// AVG of an integer is MySQL's DECIMAL at 4 decimals, rounded
		// half away from zero (as FloatString rounds).
		avg := new(big.Rat).SetFrac64(a.sum, a.nx).FloatString(4)
		want = append(want, fmt.Sprintf("%s n=%d nx=%d nd=%d sum=%d avg=%s min=%d max=%d",
			key, a.n, a.nx, len(a.distinct), a.sum, avg, a.min.Int64, a.max.Int64))
	}
	sort.Strings(want)

	rows, err := db.QueryContext(ctx, "SELECT g, COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY g")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var g sql.NullString
		var n, nx, nd, sum, lo, hi int64
		var avg string
		if err := rows.Scan(&g, &n, &nx, &nd, &sum, &avg, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		key := "NULL"
		if g.Valid {
			key = g.String
		}
		got = append(got, fmt.Sprintf("%s n=%d nx=%d nd=%d sum=%d avg=%s min=%d max=%d", key, n, nx, nd, sum, avg, lo, hi))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lancecat's aggregates\n%v\nwant (from the peer's rows)\n%v", got, want)
	}
	var maxID int64
	if err := db.QueryRowContext(ctx, "SELECT MAX(id) FROM t").Scan(&maxID); err != nil || maxID != int64(id-1) {
		t.Errorf("MAX(id) = %d (%v), want %d", maxID, err, id-1)
	}
}
