package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// gormUsersDDL is what GORM's MySQL migrator sends for a model with
// gorm.Model, a unique index and a default (issue 9).
const gormUsersDDL = "CREATE TABLE `users` (`id` bigint unsigned AUTO_INCREMENT,`created_at` datetime(3) NULL," +
	"`updated_at` datetime(3) NULL,`deleted_at` datetime(3) NULL,`name` varchar(64) COMMENT 'full name'," +
	"`email` varchar(191) NOT NULL,`age` int DEFAULT 18,`joined` timestamp(3) NULL DEFAULT CURRENT_TIMESTAMP(3)," +
	"PRIMARY KEY (`id`),INDEX `idx_users_deleted_at` (`deleted_at`),UNIQUE INDEX `idx_users_email` (`email`))"

// TestColumnOptionsPeer: a table with AUTO_INCREMENT, DEFAULT, UNIQUE and
// index clauses, created by lancecat, opens in the peer with its field
// metadata and both indices; the peer appends rows and filters through the
// index; lancecat still shows the options after the peer's append.
func TestColumnOptionsPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, gormUsersDDL); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"uri": root, "name": "users"}
	var open struct {
		Schema peerSchema `json:"schema"`
	}
	if err := peer.Op(ctx, t, "openTable", args, &open); err != nil {
		t.Fatal(err)
	}
	meta := map[string]map[string]string{}
	for _, f := range open.Schema.Fields {
		meta[f.Name] = f.Metadata
	}
	for col, want := range map[string]map[string]string{
		"id":     {"lancecat:auto_increment": "true", "lance-schema:unenforced-primary-key:position": "0"},
		"email":  {"lancecat:unique": "idx_users_email"},
		"age":    {"lancecat:default": "18"},
		"joined": {"lancecat:default": "CURRENT_TIMESTAMP(3)"},
	} {
		for k, v := range want {
			if meta[col][k] != v {
				t.Errorf("peer sees %s metadata %v, want %s=%s", col, meta[col], k, v)
			}
		}
	}
	var ix struct {
		Indices []struct {
			Name    string   `json:"name"`
			Columns []string `json:"columns"`
		} `json:"indices"`
	}
	if err := peer.Op(ctx, t, "listIndices", args, &ix); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range ix.Indices {
		names = append(names, i.Name)
	}
	sort.Strings(names)
	if want := []string{"idx_users_deleted_at", "idx_users_email"}; !reflect.DeepEqual(names, want) {
		t.Errorf("peer lists indices %v, want %v", names, want)
	}
	add := map[string]any{"uri": root, "name": "users", "rows": []map[string]any{
		{"id": 1, "name": "ann", "email": "ann@x", "age": 30},
		{"id": 2, "name": "bob", "email": "bob@x", "age": 40},
	}}
	if err := peer.Op(ctx, t, "add", add, nil); err != nil {
		t.Fatal(err)
	}
	var q struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "users", "where": "email = 'bob@x'", "columns": []string{"id", "name"}}, &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Rows) != 1 || string(q.Rows[0]["name"]) != `"bob"` {
		t.Errorf("peer query email = 'bob@x': %v", q.Rows)
	}
	var extra, def sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT EXTRA, COLUMN_DEFAULT FROM information_schema.columns WHERE TABLE_NAME = 'users' AND COLUMN_NAME = 'id'").Scan(&extra, &def); err != nil {
		t.Fatal(err)
	}
	if extra.String != "auto_increment" || def.Valid {
		t.Errorf("after the peer's append: id EXTRA %v DEFAULT %v", extra, def)
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM users WHERE email = 'ann@x'").Scan(&n); err != nil || n != 1 {
		t.Errorf("lancecat reads the peer's rows through the index: %d, %v", n, err)
	}
}

// TestAutoIncrementWithPeerAppending: lancecat INSERTs assign AUTO_INCREMENT
// ids while the peer appends rows to the same table at the same time; the
// ids lancecat handed out are distinct and consecutive per statement,
// LastInsertId is each statement's first id, and the peer reads every row,
// DEFAULTs applied.
func TestAutoIncrementWithPeerAppending(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE ev (id BIGINT AUTO_INCREMENT, who VARCHAR(8) NOT NULL, n INT DEFAULT 5, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	const peerAdds, lcInserts = 4, 12
	peerDone := make(chan error, 1)
	go func() {
		for i := 0; i < peerAdds; i++ {
			add := map[string]any{"uri": root, "name": "ev", "rows": []map[string]any{{"id": -1 - i, "who": "peer", "n": i}}}
			if err := peer.Op(ctx, t, "add", add, nil); err != nil {
				peerDone <- err
				return
			}
		}
		peerDone <- nil
	}()
	var firsts []int64
	for i := 0; i < lcInserts; i++ {
		res, err := db.ExecContext(ctx, "INSERT INTO ev (who) VALUES ('lc'), ('lc')")
		if err != nil {
			t.Fatal(err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 2 {
			t.Errorf("RowsAffected %d, want 2", n)
		}
		firsts = append(firsts, id)
	}
	if err := <-peerDone; err != nil {
		t.Fatal(err)
	}
	var q struct {
		Rows []struct {
			ID  json.Number `json:"id"`
			Who string      `json:"who"`
			N   json.Number `json:"n"`
		} `json:"rows"`
	}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "ev"}, &q); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	lc := 0
	for _, r := range q.Rows {
		if r.Who != "lc" {
			continue
		}
		lc++
		if seen[r.ID.String()] {
			t.Errorf("id %s handed out twice", r.ID)
		}
		seen[r.ID.String()] = true
		if r.N.String() != "5" {
			t.Errorf("row %s: n = %s, want the DEFAULT 5", r.ID, r.N)
		}
	}
	if lc != 2*lcInserts || len(q.Rows) != 2*lcInserts+peerAdds {
		t.Errorf("peer reads %d rows (%d of lancecat's), want %d (%d)", len(q.Rows), lc, 2*lcInserts+peerAdds, 2*lcInserts)
	}
	for i, first := range firsts {
		if !seen[fmt.Sprint(first)] || !seen[fmt.Sprint(first+1)] {
			t.Errorf("statement %d: LastInsertId %d, but ids %d and %d are not both lancecat's rows", i, first, first, first+1)
		}
	}
}
