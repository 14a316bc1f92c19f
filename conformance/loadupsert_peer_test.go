package conformance

// The peer reads what a streamed LOAD DATA REPLACE / IGNORE commits (new
// fragments with deletion files from their first version, deletions of
// the replaced stored rows) and appends on top of it.

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestLoadDataReplaceIgnorePeer: after LOAD DATA REPLACE (duplicates in
// the file and against stored rows) and IGNORE (the same), each one
// version, the peer sees exactly lancecat's rows (no replaced, superseded
// or skipped row), counts the same, and its own append lands on top.
func TestLoadDataReplaceIgnorePeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, files := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(files, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rep.csv", "2,r2\n7,r7\n7,r7b\n9,r9\n4,r4\n")
	write("ign.csv", "3,i3\n10,i10\n10,i10b\n11,i11\n9,i9\n")
	db, err := sql.Open("lancecat", root+"?load_data_dir="+files)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), PRIMARY KEY (id))")
	mustExec(ctx, t, db, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')")
	for _, st := range []struct {
		sql      string
		affected int64
	}{
		{`LOAD DATA INFILE 'rep.csv' REPLACE INTO TABLE t FIELDS TERMINATED BY ','`, 5 + 1 + 2},
		{`LOAD DATA INFILE 'ign.csv' IGNORE INTO TABLE t FIELDS TERMINATED BY ','`, 2},
	} {
		res, err := db.ExecContext(ctx, st.sql)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != st.affected {
			t.Fatalf("%s: %d rows affected, want %d", st.sql, n, st.affected)
		}
	}
	// REPLACE deletes stored rows: an Update; IGNORE only drops rows of
	// its new fragment (the second 10): an Append whose fragment has a
	// deletion file.
	if _, ops := sqlVersions(ctx, t, db, "t"); len(ops) != 4 || ops[2] != "Update" || ops[3] != "Append" {
		t.Fatalf("versions %v: want create, insert, the REPLACE's Update and the IGNORE's Append", ops)
	}
	want := []string{"1|a", "10|i10", "11|i11", "2|r2", "3|c", "4|r4", "5|e", "7|r7b", "9|r9"}
	sort.Strings(want)
	peerRows := func() []string {
		var q struct {
			Rows []struct {
				ID   json.Number `json:"id"`
				Name string      `json:"name"`
			} `json:"rows"`
		}
		if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "t", "columns": []string{"id", "name"}}, &q); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range q.Rows {
			got = append(got, r.ID.String()+"|"+r.Name)
		}
		sort.Strings(got)
		return got
	}
	ours := func() []string {
		rows, err := db.QueryContext(ctx, "SELECT id, name FROM t")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var id, name string
			if err := rows.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			got = append(got, id+"|"+name)
		}
		sort.Strings(got)
		return got
	}
	if got := peerRows(); !reflect.DeepEqual(got, want) {
		t.Fatalf("peer reads %q, want %q", got, want)
	}
	if got := ours(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lancecat reads %q, want %q", got, want)
	}
	var added struct{ Rows json.Number }
	if err := peer.Op(ctx, t, "add", map[string]any{"uri": root, "name": "t", "rows": []map[string]any{{"id": 20, "name": "peer"}}}, &added); err != nil {
		t.Fatal(err)
	}
	if added.Rows.String() != "10" {
		t.Fatalf("peer counts %s rows after its append, want 10", added.Rows)
	}
	want = append(want, "20|peer")
	sort.Strings(want)
	if got := ours(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the peer's append lancecat reads %q, want %q", got, want)
	}
}
