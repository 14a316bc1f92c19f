package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// panicked reports whether err is the driver's recovered panic: what a
// fuzz target must never reach (the recover keeps the host alive; the bug
// is still a bug).
func panicked(err error) bool {
	var de *lancecat.Error
	return errors.As(err, &de) && de.Code == lancecat.ErrInternal.Code && strings.Contains(de.Message, "internal error (a bug")
}

// drain runs q and reads every row, returning the first error.
func drain(ctx context.Context, db *sql.DB, q string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

var fuzzSQLSeeds = []string{
	"SELECT * FROM ns.t",
	"INSERT INTO ns.t VALUES (1, '[1,2,3]', 1.5, 'x')",
	"INSERT INTO ns.t (id) VALUES (NULL), (2), (-9223372036854775808)",
	"CREATE TABLE ns.u (a VECTOR(65536)); INSERT INTO ns.u VALUES (NULL)",
	"CREATE TABLE ns.d (a DECIMAL(38,38)); INSERT INTO ns.d VALUES (0.1)",
	`CREATE TABLE ns.j (id INT, j JSON); INSERT INTO ns.j VALUES (1, '{"a": [1, {"b": null}], "c": "x"}'), (2, NULL); SELECT j->'$.a[1]', j->>'$.c', JSON_SEARCH(j, 'all', 'x') FROM ns.j WHERE JSON_CONTAINS(j, '1', '$.a')`,
	`SELECT JSON_SET(JSON_OBJECT('k', JSON_ARRAY(1, 2)), '$.k[last]', 3, '$.n', CAST('{"z": []}' AS JSON)), JSON_MERGE_PATCH('{"a": 1}', '{"a": null}')`,
	"ALTER TABLE ns.t ADD COLUMN c INT NULL; ALTER TABLE ns.t DROP COLUMN c",
	"DESCRIBE ns.t; SHOW CREATE TABLE ns.t; SELECT * FROM information_schema.columns",
	"CALL register_table('ns.m', '__manifest'); CALL vacuum_catalog('0s')",
	"SELECT id FROM ns.t WHERE id = 1 AND v IS NULL ORDER BY id LIMIT 1",
	"EXPLAIN SELECT * FROM ns.t WHERE id > 0",
	"DROP TABLE ns.t; DROP SCHEMA ns CASCADE",
	"CREATE SCHEMA `a\u200bb`; CREATE TABLE ns.`cafe\u0301` (a INT)",
}

var fuzzSeq atomic.Int64

// FuzzSQL drives SQL text through sqlparse, the planner and the driver on a
// memory:// catalog holding a small table: no statement may panic (reach
// the driver's recover).
func FuzzSQL(f *testing.F) {
	for _, s := range fuzzSQLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		ctx := context.Background()
		db, err := sql.Open("lancecat", fmt.Sprintf("memory://fuzzsql-%d?build_indices=false", fuzzSeq.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA ns; CREATE TABLE ns.t (id BIGINT, v VECTOR(3), d DOUBLE, s TEXT); INSERT INTO ns.t VALUES (1, '[1,2,3]', 0.5, 'a')"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, q); panicked(err) {
			t.Fatalf("Exec(%q) panicked: %v", q, err)
		}
		if err := drain(ctx, db, q); panicked(err) {
			t.Fatalf("Query(%q) panicked: %v", q, err)
		}
		// The catalog must still answer after whatever q did.
		if err := drain(ctx, db, "SELECT * FROM information_schema.columns"); err != nil {
			t.Fatalf("after %q: information_schema.columns: %v", q, err)
		}
	})
}

// FuzzHostileSchema writes a table manifest whose column has a fuzzed
// logical type (as a hostile or broken writer could) and inspects the table
// the ways a BI tool does: every answer is a typed error or a result, never
// a panic.
func FuzzHostileSchema(f *testing.F) {
	for _, lt := range []string{
		"fixed_size_list:float:0", "fixed_size_list:float:8", "fixed_size_list:float:2147483647",
		"decimal:128:5:2147483647", "decimal:128:5:-3", "decimal:256:76:76", "fixed_size_binary:0",
		"dict:string:int8:false", "timestamp:us:Mars/Base", "struct", "list", "large_list.struct",
		"fixed_size_list:fixed_size_list:float:2:2", "time64:ps", "",
	} {
		f.Add(lt)
	}
	f.Fuzz(func(t *testing.T, lt string) {
		ctx := context.Background()
		uri := fmt.Sprintf("memory://fuzzschema-%d", fuzzSeq.Add(1))
		db, err := sql.Open("lancecat", uri+"?build_indices=false") // indices are not under test: faster runs
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA ns; CREATE TABLE ns.t (id BIGINT, v VECTOR(4)); INSERT INTO ns.t VALUES (1, '[1,2,3,4]')"); err != nil {
			t.Fatal(err)
		}
		st, err := storage.Open(ctx, uri, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		objs, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var manifests []string
		for _, o := range objs {
			if strings.HasSuffix(o.Path, ".manifest") && !strings.HasPrefix(o.Path, "__manifest/") {
				manifests = append(manifests, o.Path)
			}
		}
		sort.Strings(manifests) // V2 naming: the newest sorts first
		if len(manifests) == 0 {
			t.Fatal("no table manifest")
		}
		raw, err := st.Read(ctx, manifests[0])
		if err != nil {
			t.Fatal(err)
		}
		m, err := dataset.DecodeManifest(raw)
		if err != nil {
			t.Fatal(err)
		}
		m.Schema.Field("v").LogicalType = lt
		out, err := dataset.EncodeManifest(m, m.HasIndexSection, nil)
		if err != nil {
			return
		}
		if err := st.Put(ctx, path.Clean(manifests[0]), out); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"DESCRIBE ns.t", "SHOW CREATE TABLE ns.t", "SELECT * FROM ns.t", "SELECT * FROM information_schema.columns", "INSERT INTO ns.t (id) VALUES (2)"} {
			if err := drain(ctx, db, q); panicked(err) {
				t.Fatalf("logical type %q: %s panicked: %v", lt, q, err)
			}
		}
	})
}
