package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestPeerVectorAndFTSIndices: SHOW INDEX names the peer's IVF_PQ and FTS
// (INVERTED) indices, and rows appended through lancecat's INSERT leave
// both usable by the peer: its vector search and its full-text search find
// the new rows (the peer searches fragments its indices do not cover).
func TestPeerVectorAndFTSIndices(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	out, err := peer.Run(ctx, t, "vector-fts.mjs", "create", root)
	if err != nil {
		t.Fatal(err)
	}
	var made []struct{ Name, IndexType string }
	if err := json.Unmarshal(lastLine(out), &made); err != nil {
		t.Fatalf("peer create: %v: %s", err, out)
	}
	if len(made) != 2 {
		t.Fatalf("peer made indices %+v, want 2", made)
	}

	db, err := sql.Open("lancecat", filepath.ToSlash(root))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW INDEX FROM vt")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var table, key, col, null, typ, comment string
		var nonUnique, seq int64
		var covered, uncovered sql.NullString
		if err := rows.Scan(&table, &nonUnique, &key, &seq, &col, &null, &typ, &comment, &covered, &uncovered); err != nil {
			t.Fatal(err)
		}
		got[col] = typ
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"v": "IVF_PQ", "text": "INVERTED"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SHOW INDEX types by column: %v, want %v", got, want)
	}

	var vals []string
	for i := range 3 {
		vals = append(vals, fmt.Sprintf("(%d, '[9, 9, 9, 9, 9, 9, 9, %d]', 'a banana %d')", 1000+i, 9+i, i))
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO vt (id, v, text) VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	out, err = peer.Run(ctx, t, "vector-fts.mjs", "search", root)
	if err != nil {
		t.Fatal(err)
	}
	var found struct {
		Near []int64 `json:"near"`
		FTS  []int64 `json:"fts"`
	}
	if err := json.Unmarshal(lastLine(out), &found); err != nil {
		t.Fatalf("peer search: %v: %s", err, out)
	}
	want := []int64{1000, 1001, 1002}
	if !reflect.DeepEqual(found.Near, want) {
		t.Errorf("peer vector search nearest [9 x 8]: %v, want %v (the rows lancecat inserted)", found.Near, want)
	}
	if !reflect.DeepEqual(found.FTS, want) {
		t.Errorf("peer FTS search 'banana': %v, want %v", found.FTS, want)
	}
}

// lastLine is the last non-empty line of a peer's stdout.
func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}
