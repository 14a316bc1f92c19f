package clients

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// openCatalog opens a fresh on-disk catalog in a temporary directory.
func openCatalog(t *testing.T) (*sql.DB, string) {
	t.Helper()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, root
}

// peerQuery reads columns of the table name in namespace ns through the peer,
// one map per row (numbers as json.Number), sorted by the first column.
func peerQuery(ctx context.Context, t *testing.T, root string, ns []string, name string, columns ...string) []map[string]any {
	t.Helper()
	var q struct {
		Rows []map[string]any `json:"rows"`
	}
	args := map[string]any{"uri": root, "namespace": ns, "name": name, "columns": columns}
	if err := peer.Op(ctx, t, "query", args, &q); err != nil {
		t.Fatalf("peer query %v %s: %v", ns, name, err)
	}
	sort.Slice(q.Rows, func(i, j int) bool {
		return jsonString(q.Rows[i][columns[0]]) < jsonString(q.Rows[j][columns[0]])
	})
	return q.Rows
}

// peerTables lists the tables of namespace ns through the peer, sorted.
func peerTables(ctx context.Context, t *testing.T, root string, ns []string) []string {
	t.Helper()
	var r struct {
		Tables []string `json:"tables"`
	}
	if err := peer.Op(ctx, t, "tableNames", map[string]any{"uri": root, "namespace": ns}, &r); err != nil {
		t.Fatalf("peer tableNames %v: %v", ns, err)
	}
	sort.Strings(r.Tables)
	return r.Tables
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
