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

// peerRows reads id and name of every row of table t through the peer,
// sorted by id.
func peerRows(ctx context.Context, t *testing.T, root string) []string {
	t.Helper()
	var q struct {
		Rows []struct {
			ID   json.Number `json:"id"`
			Name *string     `json:"name"`
			N    json.Number `json:"n"`
		} `json:"rows"`
	}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "t", "columns": []string{"id", "name", "n"}}, &q); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range q.Rows {
		name := "NULL"
		if r.Name != nil {
			name = *r.Name
		}
		out = append(out, r.ID.String()+":"+name+":"+r.N.String())
	}
	sort.Strings(out)
	return out
}

// lancecatRows reads the same through lancecat.
func lancecatRows(ctx context.Context, t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT id, name, n FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, n int64
		var name sql.NullString
		if err := rows.Scan(&id, &name, &n); err != nil {
			t.Fatal(err)
		}
		s := "NULL"
		if name.Valid {
			s = name.String
		}
		out = append(out, json.Number(itoa64(id)).String()+":"+s+":"+itoa64(n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestDeleteUpdatePeer: the peer reads the rows lancecat's DELETE and
// UPDATE leave exactly as lancecat does; lancecat's UPDATE and DELETE see
// the rows the peer appended and not the ones it deleted (SET n = n + id
// and a WHERE with an IN subquery over them); the peer appends after
// lancecat's Update version.
func TestDeleteUpdatePeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10), n BIGINT NOT NULL, PRIMARY KEY (id))",
		"INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, NULL, 40), (5, 'e', 50)",
		"CREATE INDEX t_name ON t (name)",
		"DELETE FROM t WHERE id = 2 OR name IS NULL",
		"UPDATE t SET n = 99, name = 'cc' WHERE id = 3",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := []string{"1:a:10", "3:cc:99", "5:e:50"}
	if got := peerRows(ctx, t, root); !reflect.DeepEqual(got, want) {
		t.Errorf("peer reads after lancecat's DELETE/UPDATE %v, want %v", got, want)
	}
	if got := lancecatRows(ctx, t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("lancecat reads %v, want %v", got, want)
	}
	// The peer's index filter agrees too (its index plus the deletion files).
	var n struct {
		Rows json.Number `json:"rows"`
	}
	if err := peer.Op(ctx, t, "countRows", map[string]any{"uri": root, "name": "t", "where": "name = 'c' OR name = 'cc'"}, &n); err != nil || n.Rows.String() != "1" {
		t.Errorf("peer count name in (c, cc): %v %v", n.Rows, err)
	}
	// The peer changes rows; lancecat's UPDATE/DELETE see its version.
	if err := peer.Op(ctx, t, "add", map[string]any{"uri": root, "name": "t", "rows": []map[string]any{{"id": 6, "name": "f", "n": 60}, {"id": 7, "name": "g", "n": 70}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := peer.Op(ctx, t, "delete", map[string]any{"uri": root, "name": "t", "where": "id = 1"}, nil); err != nil {
		t.Fatal(err)
	}
	// SET arithmetic reads each row's values, the peer's appended ones too.
	res, err := db.ExecContext(ctx, "UPDATE t SET n = n + id WHERE id >= 1")
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := res.RowsAffected(); k != 4 {
		t.Errorf("UPDATE after the peer's changes affected %d rows, want 4 (3, 5, 6, 7)", k)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM t WHERE name IN (SELECT name FROM t WHERE n = 77)"); err != nil {
		t.Fatal(err)
	}
	if err := peer.Op(ctx, t, "add", map[string]any{"uri": root, "name": "t", "rows": []map[string]any{{"id": 8, "name": "h", "n": 80}}}, nil); err != nil {
		t.Fatal(err)
	}
	want = []string{"3:cc:102", "5:e:55", "6:f:66", "8:h:80"}
	if got := peerRows(ctx, t, root); !reflect.DeepEqual(got, want) {
		t.Errorf("peer reads %v, want %v", got, want)
	}
	if got := lancecatRows(ctx, t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("lancecat reads %v, want %v", got, want)
	}
}
