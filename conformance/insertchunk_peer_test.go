package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// TestChunkedInsertPeer: an INSERT larger than a write chunk (300 rows
// with a NULL VECTOR(65536), about 79 MB of rows) is written as several
// data files in one Append version; the peer reads every row of it, the
// vectors as NULL, as lancecat does.
func TestChunkedInsertPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10), n BIGINT NOT NULL, v VECTOR(65536))"); err != nil {
		t.Fatal(err)
	}
	var rows, want []string
	for i := 1; i <= 300; i++ {
		rows = append(rows, fmt.Sprintf("(%d, 'r%d', %d, NULL)", i, i, 10*i))
		want = append(want, fmt.Sprintf("%d:r%d:%d", i, i, 10*i))
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(rows, ", ")); err != nil {
		t.Fatal(err)
	}
	var files int
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "data" && strings.HasSuffix(p, ".lance") {
			files++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 2 {
		t.Fatalf("the INSERT wrote %d data files, want several (one per chunk)", files)
	}
	sort.Strings(want) // as peerRows and lancecatRows sort
	if got := peerRows(ctx, t, root); !reflect.DeepEqual(got, want) {
		t.Errorf("peer reads %d rows (%v ...), want %d (%v ...)", len(got), got[:min(3, len(got))], len(want), want[:3])
	}
	if got := lancecatRows(ctx, t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("lancecat reads %d rows (%v ...), want %d (%v ...)", len(got), got[:min(3, len(got))], len(want), want[:3])
	}
	var n struct {
		Rows json.Number `json:"rows"`
	}
	if err := peer.Op(ctx, t, "countRows", map[string]any{"uri": root, "name": "t", "where": "v IS NULL"}, &n); err != nil || n.Rows.String() != "300" {
		t.Errorf("peer count of v IS NULL: %v %v, want 300", n.Rows, err)
	}
}
