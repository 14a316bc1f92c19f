package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// sqlStrings runs a query and renders every row as its columns joined by |.
func sqlStrings(ctx context.Context, t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, v.String)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// showIndexKeys lists SHOW INDEX's Key_name column, sorted.
func showIndexKeys(ctx context.Context, t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	var keys []string
	for _, r := range sqlStrings(ctx, t, db, "SHOW INDEX FROM "+table) {
		keys = append(keys, strings.Split(r, "|")[2])
	}
	sort.Strings(keys)
	return keys
}

// TestRowChangesKeepIndicesPeer: issue 19 finding 4, both directions. Row
// changes that remove fragments (UPDATE+UPDATE, UPDATE+DELETE,
// DELETE+UPDATE) keep the table's indices, as the reference does: the peer
// lists the indices of a table lancecat changed so and answers an indexed
// query; lancecat lists (SHOW INDEX) and uses (EXPLAIN) the indices of a
// table the peer changed so.
func TestRowChangesKeepIndicesPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	seqs := [][2]string{
		{"UPDATE %s SET v = 9 WHERE id = 4", "UPDATE %s SET v = 9 WHERE id = 5"},
		{"UPDATE %s SET v = 9 WHERE id = 4", "DELETE FROM %s WHERE id = 5"},
		{"DELETE FROM %s WHERE id = 5", "UPDATE %s SET v = 9 WHERE id = 4"},
	}
	// lancecat's sequences; u's UNIQUE index is built on the empty table,
	// w_idx covers fragment 0, which the sequences leave alone.
	var ops []peer.BatchOp
	for i, seq := range seqs {
		tn := fmt.Sprintf("l%d", i)
		exec("CREATE TABLE " + tn + " (id INT NOT NULL, u VARCHAR(8) UNIQUE, w INT, v INT, PRIMARY KEY (id))")
		exec("INSERT INTO " + tn + " VALUES (1, 'a', 10, 1), (2, 'b', 20, 2), (3, 'c', 30, 3)")
		exec("CREATE INDEX w_idx ON " + tn + " (w)")
		exec("INSERT INTO " + tn + " VALUES (4, 'd', 40, 4)")
		exec("INSERT INTO " + tn + " VALUES (5, 'e', 50, 5)")
		exec(fmt.Sprintf(seq[0], tn))
		exec(fmt.Sprintf(seq[1], tn))
		if got := showIndexKeys(ctx, t, db, tn); !reflect.DeepEqual(got, []string{"PRIMARY", "u", "w_idx"}) {
			t.Errorf("%s: lancecat SHOW INDEX %v after %v", tn, got, seq)
		}
		ops = append(ops,
			peer.BatchOp{Op: "listIndices", Args: map[string]any{"uri": root, "name": tn}},
			peer.BatchOp{Op: "explainPlan", Args: map[string]any{"uri": root, "name": tn, "where": "w = 20"}},
			peer.BatchOp{Op: "query", Args: map[string]any{"uri": root, "name": tn, "where": "w = 20", "columns": []string{"id"}}},
			peer.BatchOp{Op: "query", Args: map[string]any{"uri": root, "name": tn, "where": "u = 'd'", "columns": []string{"id", "v"}}},
		)
	}
	res, err := peer.Batch(ctx, t, ops...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range seqs {
		r := res[4*i:]
		var li struct {
			Indices []struct {
				Name string `json:"name"`
			} `json:"indices"`
		}
		if err := r[0].Decode(&li); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ix := range li.Indices {
			names = append(names, ix.Name)
		}
		sort.Strings(names)
		if !reflect.DeepEqual(names, []string{"u", "w_idx"}) {
			t.Errorf("l%d (%v): peer lists indices %v, want [u w_idx]", i, seqs[i], names)
		}
		var plan struct {
			Plan string `json:"plan"`
		}
		if err := r[1].Decode(&plan); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.Plan, "ScalarIndexQuery") {
			t.Errorf("l%d: the peer's plan for w = 20 does not use w_idx:\n%s", i, plan.Plan)
		}
		var q struct {
			Rows []map[string]json.Number `json:"rows"`
		}
		if err := r[2].Decode(&q); err != nil {
			t.Fatal(err)
		}
		if len(q.Rows) != 1 || q.Rows[0]["id"] != "2" {
			t.Errorf("l%d: peer w = 20 rows %v", i, q.Rows)
		}
		if err := r[3].Decode(&q); err != nil {
			t.Fatal(err)
		}
		if len(q.Rows) != 1 || q.Rows[0]["id"] != "4" || q.Rows[0]["v"] != "9" {
			t.Errorf("l%d: peer u = 'd' rows %v", i, q.Rows)
		}
	}

	// The peer's sequences (its update is an Update transaction, its
	// delete a Delete) on a table it built: u_idx on the empty table,
	// w_idx over fragment 0.
	ops = nil
	for i, seq := range seqs {
		tn := fmt.Sprintf("p%d", i)
		a := func(extra map[string]any) map[string]any {
			m := map[string]any{"uri": root, "name": tn}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		ops = append(ops,
			peer.BatchOp{Op: "createEmptyTable", Args: a(map[string]any{"schema": map[string]any{"fields": []map[string]any{
				{"name": "id", "type": "int32", "nullable": false}, {"name": "u", "type": "utf8"}, {"name": "w", "type": "int32"}, {"name": "v", "type": "int32"}}}})},
			peer.BatchOp{Op: "createIndex", Args: a(map[string]any{"column": "u", "kind": "btree"})},
			peer.BatchOp{Op: "add", Args: a(map[string]any{"rows": []map[string]any{{"id": 1, "u": "a", "w": 10, "v": 1}, {"id": 2, "u": "b", "w": 20, "v": 2}, {"id": 3, "u": "c", "w": 30, "v": 3}}})},
			peer.BatchOp{Op: "createIndex", Args: a(map[string]any{"column": "w", "kind": "btree"})},
			peer.BatchOp{Op: "add", Args: a(map[string]any{"rows": []map[string]any{{"id": 4, "u": "d", "w": 40, "v": 4}}})},
			peer.BatchOp{Op: "add", Args: a(map[string]any{"rows": []map[string]any{{"id": 5, "u": "e", "w": 50, "v": 5}}})},
		)
		for _, st := range seq {
			if strings.HasPrefix(st, "UPDATE") {
				id := st[strings.LastIndex(st, " ")+1:]
				ops = append(ops, peer.BatchOp{Op: "update", Args: a(map[string]any{"where": "id = " + id, "valuesSql": map[string]string{"v": "9"}})})
			} else {
				ops = append(ops, peer.BatchOp{Op: "delete", Args: a(map[string]any{"where": "id = 5"})})
			}
		}
	}
	res, err = peer.Batch(ctx, t, ops...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if err := r.Decode(nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, seq := range seqs {
		tn := fmt.Sprintf("p%d", i)
		if got := showIndexKeys(ctx, t, db, tn); !reflect.DeepEqual(got, []string{"u_idx", "w_idx"}) {
			t.Errorf("%s: lancecat SHOW INDEX %v after the peer's %v", tn, got, seq)
		}
		plan := strings.Join(sqlStrings(ctx, t, db, "EXPLAIN SELECT id FROM "+tn+" WHERE w = 20"), "\n")
		if !strings.Contains(plan, `index BTREE "w_idx"`) || !strings.Contains(plan, "covered fragments [0]") {
			t.Errorf("%s: lancecat's plan for w = 20 does not use w_idx over fragment 0:\n%s", tn, plan)
		}
		if got := sqlStrings(ctx, t, db, "SELECT id FROM "+tn+" WHERE w = 20"); !reflect.DeepEqual(got, []string{"2"}) {
			t.Errorf("%s: w = 20 rows %v", tn, got)
		}
		if got := sqlStrings(ctx, t, db, "SELECT id, v FROM "+tn+" WHERE u = 'd'"); !reflect.DeepEqual(got, []string{"4|9"}) {
			t.Errorf("%s: u = 'd' rows %v", tn, got)
		}
	}
}
