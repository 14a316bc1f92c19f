package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestAlterTableIndexes: ALTER TABLE ADD INDEX / KEY / UNIQUE / FULLTEXT and
// DROP INDEX / KEY, as MySQL migrations write them, alone and combined with
// column changes; names of unnamed indices follow MySQL (the column, then
// _2, _3 ...); a statement that names a missing column or a taken name
// changes nothing.
func TestAlterTableIndexes(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE t (id INT NOT NULL, name VARCHAR(20), body TEXT)`)
	f.exec(`INSERT INTO t VALUES (1, 'a', 'the puppy runs'), (2, 'b', 'a cat sleeps')`)
	f.exec(`ALTER TABLE t ADD INDEX (id), ADD KEY (id), ADD UNIQUE KEY uname (name)`)
	f.exec(`ALTER TABLE t ADD COLUMN z INT, ADD INDEX zi (z), ADD FULLTEXT KEY ft (body)`)
	keys := func() [][]any {
		var out [][]any
		for _, r := range f.rows(`SHOW INDEX FROM t`) {
			out = append(out, []any{r[1], r[2], r[4], r[6]})
		}
		return out
	}
	want := [][]any{
		{int64(1), "id", "id", "BTREE"},
		{int64(1), "id_2", "id", "BTREE"},
		{int64(0), "uname", "name", "BTREE"},
		{int64(1), "zi", "z", "BTREE"},
		{int64(1), "ft", "body", "INVERTED"},
	}
	if got := keys(); !reflect.DeepEqual(got, want) {
		t.Fatalf("SHOW INDEX after ADD:\n got %v\nwant %v", got, want)
	}
	// The UNIQUE index is enforced and the full-text index answers.
	f.fails(`INSERT INTO t (id, name) VALUES (3, 'a')`, catalog.CodeInvalidInput, "duplicate entry")
	if got := f.rows(`SELECT id FROM t WHERE MATCH(body) AGAINST('puppy')`); !reflect.DeepEqual(got, [][]any{{int64(1)}}) {
		t.Fatalf("MATCH over the ALTER-built index: %v", got)
	}

	// Errors change nothing, even when an earlier action of the statement was valid.
	f.fails(`ALTER TABLE t ADD INDEX ok1 (name), ADD INDEX (nosuch)`, catalog.CodeTableColumnNotFound, "no column nosuch")
	f.fails(`ALTER TABLE t ADD INDEX ok2 (name), ADD INDEX zi (name)`, catalog.CodeTableIndexAlreadyExists, "already has an index named zi")
	f.fails(`ALTER TABLE t ADD COLUMN w INT, DROP INDEX nosuch`, catalog.CodeTableIndexNotFound, "no index named nosuch")
	if _, err := f.try(`ALTER TABLE t ADD INDEX (id, name)`); err == nil || !strings.Contains(err.Error(), "several columns") {
		t.Fatalf("a two-column index: %v", err) // a parse-time refusal (sqlparse.ErrNotSupported)
	}
	f.fails(`ALTER TABLE t DROP COLUMN z, ADD INDEX zz (z)`, catalog.CodeTableColumnNotFound, "no column z")
	if got := keys(); !reflect.DeepEqual(got, want) {
		t.Fatalf("SHOW INDEX after failed ALTERs:\n got %v\nwant %v", got, want)
	}
	if got := f.rows(`SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 't' AND column_name = 'w'`); !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Fatalf("a failed ALTER added column w: %v", got)
	}
	f.fails(`BEGIN; ALTER TABLE t ADD INDEX i9 (id)`, catalog.CodeInvalidInput, "transaction")
	f.exec(`ROLLBACK`)

	// DROP INDEX / KEY, IF EXISTS, and a dropped name is free again in the same statement.
	f.exec(`ALTER TABLE t DROP INDEX id_2, DROP KEY IF EXISTS nosuch, DROP INDEX zi, ADD INDEX zi (name)`)
	f.exec(`ALTER TABLE t DROP INDEX uname`)
	f.exec(`INSERT INTO t (id, name) VALUES (3, 'a')`) // UNIQUE ended with its index
	want = [][]any{
		{int64(1), "id", "id", "BTREE"},
		{int64(1), "ft", "body", "INVERTED"},
		{int64(1), "zi", "name", "BTREE"},
	}
	if got := keys(); !reflect.DeepEqual(got, want) {
		t.Fatalf("SHOW INDEX after DROP:\n got %v\nwant %v", got, want)
	}
}
