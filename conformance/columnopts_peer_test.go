package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
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
