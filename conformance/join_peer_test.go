package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// TestJoinOverPeerTablePeer: the peer writes a table of orders (NULL and
// duplicate keys, a BTREE on the key); lancecat joins it with a table it
// wrote itself. INNER and LEFT JOIN answers equal a Go nested loop over
// the generated rows, and EXPLAIN shows the hash join and the peer's index
// answering the pushed-down filter.
func TestJoinOverPeerTablePeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	r := rand.New(rand.NewPCG(15, 2))
	type order struct {
		oid  int
		cust *int
		amt  int
	}
	var orders []order
	var rows []map[string]any
	for i := range 300 {
		o := order{oid: i, amt: r.IntN(100)}
		row := map[string]any{"oid": i, "cust": nil, "amt": o.amt}
		if r.IntN(10) > 0 {
			c := r.IntN(40) // customers 0..29 exist: some orders match none
			o.cust = &c
			row["cust"] = c
		}
		orders = append(orders, o)
		rows = append(rows, row)
	}
	schema := map[string]any{"fields": []map[string]any{
		{"name": "oid", "type": "int64", "nullable": false},
		{"name": "cust", "type": "int64", "nullable": true},
		{"name": "amt", "type": "int64", "nullable": true},
	}}
	res, err := peer.Batch(ctx, t,
		peer.BatchOp{Op: "createTable", Args: map[string]any{"uri": root, "name": "orders", "schema": schema, "rows": rows}},
		peer.BatchOp{Op: "createIndex", Args: map[string]any{"uri": root, "name": "orders", "column": "cust", "kind": "btree", "indexName": "cust_bt"}},
	)
	if err != nil {
		t.Fatalf("the peer writes the table: %v", err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("peer op %d: %v", i, r.Err)
		}
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE customers (id BIGINT NOT NULL, name VARCHAR(8))"); err != nil {
		t.Fatal(err)
	}
	var values []string
	for i := range 30 {
		values = append(values, fmt.Sprintf("(%d, 'n%d')", i, i%7))
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO customers VALUES "+strings.Join(values, ", ")); err != nil {
		t.Fatal(err)
	}
	query := func(q string) []string {
		t.Helper()
		rs, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var a, b sql.NullInt64
			if err := rs.Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%v/%v", a, b))
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}
	n := func(v int, ok bool) sql.NullInt64 { return sql.NullInt64{Int64: int64(v), Valid: ok} }
	var inner, left []string
	for c := range 30 {
		matched := false
		for _, o := range orders {
			if o.cust != nil && *o.cust == c && o.amt >= 50 {
				inner = append(inner, fmt.Sprintf("%v/%v", n(c, true), n(o.oid, true)))
				left = append(left, fmt.Sprintf("%v/%v", n(c, true), n(o.oid, true)))
				matched = true
			}
		}
		if !matched {
			left = append(left, fmt.Sprintf("%v/%v", n(c, true), n(0, false)))
		}
	}
	sort.Strings(inner)
	sort.Strings(left)
	if got := query("SELECT c.id, o.oid FROM customers c JOIN orders o ON c.id = o.cust WHERE o.amt >= 50"); !reflect.DeepEqual(got, inner) {
		t.Errorf("INNER JOIN: got %d rows, want %d\n got  %v\n want %v", len(got), len(inner), got, inner)
	}
	if got := query("SELECT c.id, o.oid FROM customers c LEFT JOIN orders o ON c.id = o.cust AND o.amt >= 50"); !reflect.DeepEqual(got, left) {
		t.Errorf("LEFT JOIN: got %d rows, want %d", len(got), len(left))
	}
	// A filter on the peer table's indexed key, pushed into its scan.
	rs, err := db.QueryContext(ctx, "EXPLAIN SELECT c.name, o.oid FROM customers c JOIN orders o ON c.id = o.cust WHERE o.cust = 3")
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rs.Next() {
		var l string
		if err := rs.Scan(&l); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, l)
	}
	rs.Close()
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "HashJoin INNER") || !strings.Contains(text, "cust_bt") {
		t.Errorf("EXPLAIN names neither the hash join nor the peer's index:\n%s", text)
	}
}
