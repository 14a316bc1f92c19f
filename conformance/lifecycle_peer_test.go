package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/driver"
)

// This file tests table versions and lifecycle (issue 18) both ways with the peer: lancecat's
// versions, tags, restored, optimized and truncated tables read in the peer, and the peer's
// versions, tags, restores and optimizes read in lancecat.

type peerStep map[string]any

type peerStepResult struct {
	OK    json.RawMessage `json:"ok"`
	Error string          `json:"error"`
}

// lifecyclePeer runs steps of testdata/lifecycle_peer.mjs on table ns.name of the catalog at root.
func lifecyclePeer(ctx context.Context, t *testing.T, root string, ns []string, name string, steps ...peerStep) []peerStepResult {
	t.Helper()
	args, err := json.Marshal(map[string]any{"uri": root, "namespace": ns, "name": name, "steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := peer.Run(ctx, t, "../testdata/lifecycle_peer.mjs", string(args))
	if err != nil {
		t.Fatalf("peer: %v\n%s", err, stdout)
	}
	var out struct {
		Results []peerStepResult `json:"results"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("peer output %q: %v", stdout, err)
	}
	if len(out.Results) != len(steps) {
		t.Fatalf("peer ran %d of %d steps: %s", len(out.Results), len(steps), stdout)
	}
	return out.Results
}

func stepOK(t *testing.T, r peerStepResult, what string, into any) {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("peer %s: %s", what, r.Error)
	}
	if into != nil {
		if err := json.Unmarshal(r.OK, into); err != nil {
			t.Fatalf("peer %s: %s: %v", what, r.OK, err)
		}
	}
}

type peerIDs struct {
	Version int64   `json:"version"`
	IDs     []int64 `json:"ids"`
}

func sqlIDs(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) []int64 {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func mustExec(ctx context.Context, t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func sqlVersions(ctx context.Context, t *testing.T, db *sql.DB, table string) (versions []int64, ops []string) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SHOW VERSIONS FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var v, n int64
		var ts time.Time
		var op string
		var tags sql.NullString
		if err := rows.Scan(&v, &ts, &op, &n, &tags); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return versions, ops
}

// TestLifecyclePeerReadsLancecat: the peer lists lancecat's versions and tags, checks out a tag
// lancecat created and a version by number, reads an OPTIMIZEd table (every index covering every
// row), a restored one and a truncated one (its index kept); tags the peer creates are read by
// lancecat's AS OF and table_tags; vacuum_table keeps the tagged and the latest version only,
// and a vacuumed version is TableVersionNotFound in lancecat while the peer still reads the
// tagged one.
func TestLifecyclePeerReadsLancecat(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(ctx, t, db,
		"CREATE SCHEMA s",
		"CREATE TABLE s.t (id BIGINT NOT NULL, name VARCHAR(10), PRIMARY KEY (id))",
		"INSERT INTO s.t VALUES (1,'a'),(2,'b')", // v2
		"CREATE INDEX id_idx ON s.t (id)",        // v3
		"INSERT INTO s.t VALUES (3,'c')",         // v4
		"CALL create_tag('s.t', 'gold')",         // -> v4
		"DELETE FROM s.t WHERE id = 2",           // v5
		"INSERT INTO s.t VALUES (4,'d')",         // v6
		"OPTIMIZE TABLE s.t",
	)
	versions, ops := sqlVersions(ctx, t, db, "s.t")
	if want := []string{"Overwrite", "Append", "CreateIndex", "Append", "Delete", "Append", "ReserveFragments", "Rewrite"}; !reflect.DeepEqual(ops, want) {
		t.Fatalf("SHOW VERSIONS operations %v, want %v", ops, want)
	}
	latest := versions[len(versions)-1]
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t WHERE id >= 1"); !reflect.DeepEqual(got, []int64{1, 3, 4}) {
		t.Fatalf("lancecat after OPTIMIZE: %v", got)
	}

	r := lifecyclePeer(ctx, t, root, []string{"s"}, "t",
		peerStep{"op": "versions"},
		peerStep{"op": "tags"},
		peerStep{"op": "indices"},
		peerStep{"op": "rows", "where": "id = 4"},
		peerStep{"op": "checkout", "ref": "gold"},
		peerStep{"op": "checkout", "ref": 2},
		peerStep{"op": "latest"},
		peerStep{"op": "createTag", "tag": "silver", "version": 2},
		peerStep{"op": "add", "rows": []map[string]any{{"id": 5, "name": "e"}}},
	)
	var pv []struct {
		Version int64 `json:"version"`
	}
	stepOK(t, r[0], "versions", &pv)
	if len(pv) != len(versions) || pv[len(pv)-1].Version != latest {
		t.Fatalf("peer lists versions %v, lancecat %v", pv, versions)
	}
	var tags map[string]int64
	stepOK(t, r[1], "tags", &tags)
	if !reflect.DeepEqual(tags, map[string]int64{"gold": 4}) {
		t.Fatalf("peer tags %v", tags)
	}
	var ixs []struct {
		Name          string `json:"name"`
		IndexedRows   int64  `json:"indexedRows"`
		UnindexedRows int64  `json:"unindexedRows"`
	}
	stepOK(t, r[2], "indices", &ixs)
	if len(ixs) != 1 || ixs[0].Name != "id_idx" || ixs[0].IndexedRows != 3 || ixs[0].UnindexedRows != 0 {
		t.Fatalf("peer index stats after OPTIMIZE: %+v (want id_idx covering all 3 rows)", ixs)
	}
	for i, want := range []peerIDs{{latest, []int64{4}}, {4, []int64{1, 2, 3}}, {2, []int64{1, 2}}, {latest, []int64{1, 3, 4}}} {
		var got peerIDs
		stepOK(t, r[3+i], "read", &got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("peer read %d: %+v, want %+v", i, got, want)
		}
	}
	stepOK(t, r[7], "createTag", nil)
	stepOK(t, r[8], "add", nil)

	// lancecat reads the peer's tag and append, by tag, number and instant.
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t AS OF TIMESTAMP table_tag('silver')"); !reflect.DeepEqual(got, []int64{1, 2}) {
		t.Fatalf("AS OF the peer's tag: %v", got)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t AS OF TIMESTAMP table_version(4)"); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("AS OF version 4: %v", got)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t"); !reflect.DeepEqual(got, []int64{1, 3, 4, 5}) {
		t.Fatalf("latest after the peer's add: %v", got)
	}
	var ts time.Time
	if err := db.QueryRowContext(ctx, "SELECT TIMESTAMP FROM information_schema.table_versions WHERE TABLE_SCHEMA = 's' AND TABLE_NAME = 't' AND VERSION = 5").Scan(&ts); err != nil {
		t.Fatal(err)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t AS OF TIMESTAMP ?", ts.Format("2006-01-02 15:04:05.999999999")); !reflect.DeepEqual(got, []int64{1, 3}) {
		t.Fatalf("AS OF TIMESTAMP of version 5: %v", got)
	}
	var tagRows int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.table_tags WHERE TABLE_SCHEMA = 's'").Scan(&tagRows); err != nil || tagRows != 2 {
		t.Fatalf("table_tags: %d rows, %v", tagRows, err)
	}

	// update_tag / delete_tag show in the peer.
	mustExec(ctx, t, db, "CALL update_tag('s.t', 'silver', 5)", "CALL delete_tag('s.t', 'gold')")
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.table_tags WHERE TABLE_SCHEMA = 's'").Scan(&tagRows); err != nil || tagRows != 1 {
		t.Fatalf("table_tags after delete_tag: %d rows, %v", tagRows, err)
	}
	r = lifecyclePeer(ctx, t, root, []string{"s"}, "t", peerStep{"op": "tags"})
	tags = nil
	stepOK(t, r[0], "tags", &tags)
	if !reflect.DeepEqual(tags, map[string]int64{"silver": 5}) {
		t.Fatalf("peer tags after update/delete: %v", tags)
	}

	// Restore the peer sees; then TRUNCATE keeping the index; the peer appends and its
	// filter reads through the kept index.
	mustExec(ctx, t, db, "CALL restore_table('s.t', 'silver')")
	r = lifecyclePeer(ctx, t, root, []string{"s"}, "t", peerStep{"op": "rows"})
	var got peerIDs
	stepOK(t, r[0], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{1, 3}) {
		t.Fatalf("peer after restore_table to version 5: %+v", got)
	}
	mustExec(ctx, t, db, "TRUNCATE TABLE s.t")
	r = lifecyclePeer(ctx, t, root, []string{"s"}, "t",
		peerStep{"op": "rows"}, peerStep{"op": "indices"},
		peerStep{"op": "add", "rows": []map[string]any{{"id": 9, "name": "z"}}}, peerStep{"op": "rows", "where": "id = 9"})
	stepOK(t, r[0], "rows", &got)
	if len(got.IDs) != 0 {
		t.Fatalf("peer after TRUNCATE: %+v", got)
	}
	stepOK(t, r[1], "indices", &ixs)
	if len(ixs) != 1 || ixs[0].Name != "id_idx" {
		t.Fatalf("peer indices after TRUNCATE: %+v", ixs)
	}
	stepOK(t, r[3], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{9}) {
		t.Fatalf("peer after TRUNCATE and add: %+v", got)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t WHERE id = 9"); !reflect.DeepEqual(got, []int64{9}) {
		t.Fatalf("lancecat after TRUNCATE and the peer's add: %v", got)
	}

	// vacuum_table keeps the latest and the tagged version (5).
	var removed, files, bytes, oldest int64
	if err := db.QueryRowContext(ctx, "CALL vacuum_table('s.t', '0s')").Scan(&removed, &files, &bytes, &oldest); err != nil {
		t.Fatal(err)
	}
	versions, _ = sqlVersions(ctx, t, db, "s.t")
	if len(versions) != 2 || versions[0] != 5 || removed == 0 {
		t.Fatalf("after vacuum_table: versions %v, %d removed", versions, removed)
	}
	_, err = db.QueryContext(ctx, "SELECT id FROM s.t AS OF TIMESTAMP table_version(3)")
	if !errors.Is(err, driver.ErrTableVersionNotFound) || !strings.Contains(err.Error(), "vacuum") {
		t.Fatalf("AS OF a vacuumed version: %v, want TableVersionNotFound naming vacuum", err)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM s.t AS OF TIMESTAMP table_tag('silver')"); !reflect.DeepEqual(got, []int64{1, 3}) {
		t.Fatalf("tagged version after vacuum: %v", got)
	}
	r = lifecyclePeer(ctx, t, root, []string{"s"}, "t", peerStep{"op": "versions"}, peerStep{"op": "checkout", "ref": "silver"}, peerStep{"op": "latest"})
	stepOK(t, r[0], "versions", &pv)
	if len(pv) != 2 {
		t.Fatalf("peer versions after vacuum: %v", pv)
	}
	stepOK(t, r[1], "checkout silver", &got)
	if !reflect.DeepEqual(got.IDs, []int64{1, 3}) {
		t.Fatalf("peer checkout of the tagged version after vacuum: %+v", got)
	}
	stepOK(t, r[2], "latest", &got)
	if !reflect.DeepEqual(got.IDs, []int64{9}) {
		t.Fatalf("peer latest after vacuum: %+v", got)
	}
}

// TestLifecycleLancecatReadsPeer: lancecat's SHOW VERSIONS names the operations of the peer's
// versions (its merge_insert, optimize and restore), its AS OF reads the peer's tags and
// versions, restore_table restores a peer version the peer reads, and a version the peer's
// cleanup removed is TableVersionNotFound.
func TestLifecycleLancecatReadsPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10))", "INSERT INTO t VALUES (1,'a'),(2,'b')", "CREATE INDEX id_idx ON t (id)")
	r := lifecyclePeer(ctx, t, root, nil, "t",
		peerStep{"op": "add", "rows": []map[string]any{{"id": 3, "name": "c"}}},                                 // v4
		peerStep{"op": "createTag", "tag": "gold", "version": 4},                                                //
		peerStep{"op": "delete", "where": "id = 1"},                                                             // v5
		peerStep{"op": "mergeInsert", "rows": []map[string]any{{"id": 2, "name": "B"}, {"id": 7, "name": "g"}}}, // v6
		peerStep{"op": "optimize"},
	)
	for i, s := range r {
		stepOK(t, s, "step", nil)
		_ = i
	}
	_, ops := sqlVersions(ctx, t, db, "t")
	if len(ops) < 8 || ops[3] != "Append" || ops[4] != "Delete" || ops[5] != "Update" || !containsAll(ops[6:], "Rewrite", "CreateIndex") {
		t.Fatalf("lancecat's SHOW VERSIONS of the peer's history: %v", ops)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM t AS OF TIMESTAMP table_tag('gold')"); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("AS OF the peer's tag: %v", got)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM t WHERE id IN (2, 7)"); !reflect.DeepEqual(got, []int64{2, 7}) {
		t.Fatalf("lancecat after the peer's merge_insert and optimize: %v", got)
	}
	var name string
	if err := db.QueryRowContext(ctx, "SELECT name FROM t WHERE id = 2").Scan(&name); err != nil || name != "B" {
		t.Fatalf("row 2 after the peer's merge_insert: %q, %v", name, err)
	}
	// lancecat restores a peer version; the peer reads it.
	mustExec(ctx, t, db, "CALL restore_table('t', 5)")
	// The peer's cleanup refuses while an old version is tagged (Lance's
	// error_if_tagged_old_versions); lancecat's vacuum_table skips it instead.
	r = lifecyclePeer(ctx, t, root, nil, "t", peerStep{"op": "rows"}, peerStep{"op": "optimize", "cleanup": true},
		peerStep{"op": "deleteTag", "tag": "gold"}, peerStep{"op": "optimize", "cleanup": true})
	var got peerIDs
	stepOK(t, r[0], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{2, 3}) {
		t.Fatalf("peer after lancecat's restore of version 5: %+v", got)
	}
	if r[1].Error == "" || !strings.Contains(r[1].Error, "tagged") {
		t.Fatalf("peer cleanup with a tagged old version: %+v", r[1])
	}
	stepOK(t, r[2], "deleteTag", nil)
	stepOK(t, r[3], "optimize with cleanup", nil)
	_, err = db.QueryContext(ctx, "SELECT id FROM t AS OF TIMESTAMP table_version(5)")
	if !errors.Is(err, driver.ErrTableVersionNotFound) || !strings.Contains(err.Error(), "vacuum") {
		t.Fatalf("AS OF a version the peer's cleanup removed: %v", err)
	}
	_, err = db.QueryContext(ctx, "SELECT id FROM t AS OF TIMESTAMP table_tag('gold')")
	if !errors.Is(err, driver.ErrTableTagNotFound) {
		t.Fatalf("AS OF a tag the peer deleted: %v", err)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM t"); !reflect.DeepEqual(got, []int64{2, 3}) {
		t.Fatalf("lancecat after the peer's cleanup: %v", got)
	}
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestUpsertPeerAndRaces: INSERT ... ON DUPLICATE KEY UPDATE, REPLACE and INSERT IGNORE report
// MySQL's affected rows (1 insert, 2 update, 0 unchanged) and commit one version each, which the
// peer reads; lancecat's upserts see the peer's merge_insert; four connections racing upserts of
// one key while the peer appends other keys lose no increment and duplicate no key.
func TestUpsertPeerAndRaces(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10), n BIGINT, PRIMARY KEY (id))", "INSERT INTO t VALUES (1,'a',1),(2,'b',1)")
	affected := func(q string) int64 {
		t.Helper()
		res, err := db.ExecContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		n, _ := res.RowsAffected()
		return n
	}
	before, _ := sqlVersions(ctx, t, db, "t")
	for _, c := range []struct {
		q    string
		want int64
	}{
		{"INSERT INTO t VALUES (1,'A',5),(3,'c',1) ON DUPLICATE KEY UPDATE name = VALUES(name), n = n + VALUES(n)", 3},
		{"INSERT INTO t VALUES (2,'b',1) ON DUPLICATE KEY UPDATE name = VALUES(name)", 0},
		{"REPLACE INTO t VALUES (2,'B',9)", 2},
		{"INSERT IGNORE INTO t VALUES (2,'x',0),(4,'d',4)", 1},
		{"INSERT INTO t VALUES (4,'d',4) AS new ON DUPLICATE KEY UPDATE n = t.n + new.n", 2},
	} {
		if got := affected(c.q); got != c.want {
			t.Fatalf("%s: %d rows affected, MySQL says %d", c.q, got, c.want)
		}
	}
	after, ops := sqlVersions(ctx, t, db, "t")
	if len(after)-len(before) != 4 || ops[len(ops)-4] != "Update" || ops[len(ops)-3] != "Update" || ops[len(ops)-2] != "Append" || ops[len(ops)-1] != "Update" {
		t.Fatalf("upserts wrote versions %v (%v); want one Update, Update, Append, Update (the unchanged one writes none)", after[len(before):], ops[len(before):])
	}
	r := lifecyclePeer(ctx, t, root, nil, "t", peerStep{"op": "rows"}, peerStep{"op": "rows", "where": "name = 'A' AND n = 6"},
		peerStep{"op": "mergeInsert", "rows": []map[string]any{{"id": 4, "name": "D"}, {"id": 5, "name": "e"}}})
	var got peerIDs
	stepOK(t, r[0], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{1, 2, 3, 4}) {
		t.Fatalf("peer reads lancecat's upserts: %+v", got)
	}
	stepOK(t, r[1], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{1}) {
		t.Fatalf("peer reads the updated row: %+v", got)
	}
	stepOK(t, r[2], "mergeInsert", nil)
	if n := affected("INSERT INTO t (id, name) VALUES (5,'E') ON DUPLICATE KEY UPDATE name = VALUES(name)"); n != 2 {
		t.Fatalf("upsert of the peer's merge_insert row: %d affected", n)
	}
	var name string
	var n4 int64
	if err := db.QueryRowContext(ctx, "SELECT name, n FROM t WHERE id = 4").Scan(&name, &n4); err != nil || name != "D" || n4 != 8 {
		t.Fatalf("the peer's merge_insert update of row 4 (n 8 from the row alias upsert): %q %d %v", name, n4, err)
	}

	// Races: 4 connections x 5 increments of key 100 while the peer appends keys 1000+.
	const workers, rounds = 4, 5
	errs := make(chan error, workers+1)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < rounds; i++ {
				if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (100, 'race', 1) ON DUPLICATE KEY UPDATE n = n + 1"); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	go func() {
		var steps []peerStep
		for i := 0; i < 5; i++ {
			steps = append(steps, peerStep{"op": "add", "rows": []map[string]any{{"id": 1000 + i, "name": "p"}}})
		}
		for _, s := range lifecyclePeer(ctx, t, root, nil, "t", steps...) {
			if s.Error != "" {
				errs <- errors.New(s.Error)
				return
			}
		}
		errs <- nil
	}()
	for i := 0; i < workers+1; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var n, count int64
	if err := db.QueryRowContext(ctx, "SELECT n FROM t WHERE id = 100").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE id = 100 OR id >= 1000").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if n != workers*rounds || count != 6 {
		t.Fatalf("after racing upserts: n = %d (want %d), %d rows of key 100 and the peer's keys (want 6)", n, workers*rounds, count)
	}
}

// TestOptimizeRacesAppends: OPTIMIZE of a 24-fragment indexed table while the peer and another
// lancecat connection append: nothing is lost, every row is found through the index filter by
// lancecat and the peer, and the compaction left fewer fragments.
func TestOptimizeRacesAppends(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(10), PRIMARY KEY (id))")
	for i := 0; i < 24; i++ {
		mustExec(ctx, t, db, "INSERT INTO t VALUES ("+itoa64(int64(2*i))+", 'x'), ("+itoa64(int64(2*i+1))+", 'y')")
	}
	mustExec(ctx, t, db, "CREATE INDEX id_idx ON t (id)", "DELETE FROM t WHERE id = 5")
	errs := make(chan error, 3)
	go func() {
		_, err := db.ExecContext(ctx, "OPTIMIZE TABLE t")
		errs <- err
	}()
	go func() {
		for i := 0; i < 5; i++ {
			if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES ("+itoa64(int64(500+i))+", 'l')"); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	go func() {
		var steps []peerStep
		for i := 0; i < 5; i++ {
			steps = append(steps, peerStep{"op": "add", "rows": []map[string]any{{"id": 900 + i, "name": "p"}}})
		}
		args, _ := json.Marshal(map[string]any{"uri": root, "name": "t", "steps": steps})
		out, err := peer.Run(ctx, t, "../testdata/lifecycle_peer.mjs", string(args))
		if err == nil && strings.Contains(string(out), `"error"`) {
			err = errors.New(string(out))
		}
		errs <- err
	}()
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var want []int64
	for i := int64(0); i < 48; i++ {
		if i != 5 {
			want = append(want, i)
		}
	}
	for i := int64(0); i < 5; i++ {
		want = append(want, 500+i)
	}
	for i := int64(0); i < 5; i++ {
		want = append(want, 900+i)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM t"); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows after OPTIMIZE raced appends: %v", got)
	}
	for _, k := range []int64{0, 7, 47, 502, 903} {
		if got := sqlIDs(ctx, t, db, "SELECT id FROM t WHERE id = ?", k); !reflect.DeepEqual(got, []int64{k}) {
			t.Fatalf("WHERE id = %d through the index: %v", k, got)
		}
	}
	r := lifecyclePeer(ctx, t, root, nil, "t", peerStep{"op": "rows"}, peerStep{"op": "rows", "where": "id = 7 OR id = 903 OR id = 502"})
	var got peerIDs
	stepOK(t, r[0], "rows", &got)
	if !reflect.DeepEqual(got.IDs, want) {
		t.Fatalf("peer rows after the race: %v", got.IDs)
	}
	stepOK(t, r[1], "rows", &got)
	if !reflect.DeepEqual(got.IDs, []int64{7, 502, 903}) {
		t.Fatalf("peer filter after the race: %v", got.IDs)
	}
	_, ops := sqlVersions(ctx, t, db, "t")
	if !containsAll(ops, "ReserveFragments", "Rewrite") {
		t.Fatalf("no compaction among %v", ops)
	}
}

// TestOptimizeKeepsPeerVectorIndex: OPTIMIZE leaves the fragments a vector or full-text index of
// the peer covers alone (lancecat cannot rebuild those) and compacts the rest; the peer's vector
// and full-text searches answer the same after it.
func TestOptimizeKeepsPeerVectorIndex(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root := t.TempDir()
	if out, err := peer.Run(ctx, t, "vector-fts.mjs", "create", root); err != nil {
		t.Fatalf("peer create: %v\n%s", err, out)
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db,
		"INSERT INTO vt (id, v, text) VALUES (1000, '[9,9,9,9,9,9,9,9]', 'banana one')",
		"INSERT INTO vt (id, v, text) VALUES (1001, '[8,8,8,8,8,8,8,8]', 'banana two')",
		"INSERT INTO vt (id, text) VALUES (1002, 'plain')",
		"DELETE FROM vt WHERE id = 5", // the peer's fragment has a deletion to materialize
	)
	search := func() string {
		out, err := peer.Run(ctx, t, "vector-fts.mjs", "search", root)
		if err != nil {
			t.Fatalf("peer search: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	before := search()
	var table, op, typ, msg string
	if err := db.QueryRowContext(ctx, "OPTIMIZE TABLE vt").Scan(&table, &op, &typ, &msg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "3 fragments compacted into 1") {
		t.Fatalf("OPTIMIZE: %s (want the three small fragments the peer's indices do not cover compacted)", msg)
	}
	if after := search(); after != before {
		t.Fatalf("peer searches after OPTIMIZE: %s, before %s", after, before)
	}
	if got := sqlIDs(ctx, t, db, "SELECT id FROM vt WHERE id >= 1000"); !reflect.DeepEqual(got, []int64{1000, 1001, 1002}) {
		t.Fatalf("rows after OPTIMIZE: %v", got)
	}
}

// TestLoadDataPeer: LOAD DATA streams a CSV (header skipped, quoted fields with the separator
// and doubled quotes, \N as NULL, an omitted column taking its DEFAULT) into one Append version
// the peer reads; a bad value fails naming its line and column and commits nothing; without
// load_data_dir, or for a path outside it, LOAD DATA is PermissionDenied.
func TestLoadDataPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, files := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(files, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.csv", "id,name\n1,plain\n2,\"with, comma\"\n3,\"say \"\"hi\"\"\"\n4,\\N\n")
	write("bad.csv", "1,a\n2,b\nthree,c\n")
	db, err := sql.Open("lancecat", root+"?load_data_dir="+files)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(20), n BIGINT DEFAULT 7)")
	res, err := db.ExecContext(ctx, `LOAD DATA LOCAL INFILE 'ok.csv' INTO TABLE t FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\n' IGNORE 1 LINES (id, name)`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 4 {
		t.Fatalf("LOAD DATA: %d rows affected", n)
	}
	_, ops := sqlVersions(ctx, t, db, "t")
	if len(ops) != 2 || ops[1] != "Append" {
		t.Fatalf("LOAD DATA versions: %v (want one Append)", ops)
	}
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
	var got []string
	for _, r := range q.Rows {
		name := "NULL"
		if r.Name != nil {
			name = *r.Name
		}
		got = append(got, r.ID.String()+"|"+name+"|"+r.N.String())
	}
	sort.Strings(got)
	if want := []string{"1|plain|7", "2|with, comma|7", `3|say "hi"|7`, "4|NULL|7"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("peer reads the loaded rows %q, want %q", got, want)
	}
	_, err = db.ExecContext(ctx, `LOAD DATA INFILE 'bad.csv' INTO TABLE t FIELDS TERMINATED BY ',' (id, name)`)
	if !errors.Is(err, driver.ErrInvalidInput) || !strings.Contains(err.Error(), "line 3, column 1") {
		t.Fatalf("bad row: %v, want InvalidInput naming line 3, column 1", err)
	}
	if _, after := sqlVersions(ctx, t, db, "t"); len(after) != 2 {
		t.Fatalf("a failed LOAD DATA committed: %v", after)
	}
	_, err = db.ExecContext(ctx, `LOAD DATA INFILE '../x.csv' INTO TABLE t`)
	if !errors.Is(err, driver.ErrPermissionDenied) && !errors.Is(err, driver.ErrInvalidInput) {
		t.Fatalf("a path outside load_data_dir: %v", err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(files, "link.csv")); err == nil {
		_, err = db.ExecContext(ctx, `LOAD DATA INFILE 'link.csv' INTO TABLE t`)
		if !errors.Is(err, driver.ErrPermissionDenied) {
			t.Fatalf("a symbolic link out of load_data_dir: %v", err)
		}
	}
	plain, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.ExecContext(ctx, `LOAD DATA INFILE '`+filepath.Join(files, "ok.csv")+`' INTO TABLE t`); !errors.Is(err, driver.ErrPermissionDenied) {
		t.Fatalf("LOAD DATA without load_data_dir: %v", err)
	}
}

// TestLoadDataKeyedPeer: LOAD DATA of more rows than planner.Options.MaxRows (1,000,000)
// into a table with a PRIMARY KEY and a UNIQUE column holding many NULLs succeeds as one
// Append the peer reads; a duplicate on the file's last line, of a key the table holds,
// fails naming the line and commits nothing the peer sees.
func TestLoadDataKeyedPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, files := t.TempDir(), t.TempDir()
	const n = 1_200_000
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, "%d,c%d\n", i, i)
		} else {
			fmt.Fprintf(&b, "%d,\\N\n", i)
		}
	}
	if err := os.WriteFile(filepath.Join(files, "big.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(files, "dup.csv"), []byte("2000000,x\n2000001,y\n1199999,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("lancecat", root+"?load_data_dir="+files)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE TABLE t (id BIGINT NOT NULL, code VARCHAR(20) UNIQUE, PRIMARY KEY (id))")
	res, err := db.ExecContext(ctx, `LOAD DATA INFILE 'big.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.RowsAffected(); got != n {
		t.Fatalf("LOAD DATA: %d rows affected, want %d", got, n)
	}
	count := func(where string) int64 {
		t.Helper()
		var c struct {
			Rows int64 `json:"rows"`
		}
		args := map[string]any{"uri": root, "name": "t"}
		if where != "" {
			args["where"] = where
		}
		if err := peer.Op(ctx, t, "countRows", args, &c); err != nil {
			t.Fatal(err)
		}
		return c.Rows
	}
	if all, nulls, last := count(""), count("code IS NULL"), count("id = 1199999"); all != n || nulls != n/2 || last != 1 {
		t.Fatalf("peer counts %d rows, %d NULL codes, %d of id 1199999; want %d, %d, 1", all, nulls, last, n, n/2)
	}
	_, before := sqlVersions(ctx, t, db, "t")
	_, err = db.ExecContext(ctx, `LOAD DATA INFILE 'dup.csv' INTO TABLE t FIELDS TERMINATED BY ','`)
	if !errors.Is(err, driver.ErrInvalidInput) || !strings.Contains(err.Error(), "line 3: Duplicate entry '1199999' for key 'PRIMARY' (the table already holds it)") {
		t.Fatalf("duplicate of a stored key: %v", err)
	}
	if _, ops := sqlVersions(ctx, t, db, "t"); len(ops) != len(before) || before[len(before)-1] != "Append" {
		t.Fatalf("versions %v, want %v ending with the load's Append", ops, before)
	}
	if all := count(""); all != n {
		t.Fatalf("after the failed load the peer counts %d rows, want %d", all, n)
	}
}
