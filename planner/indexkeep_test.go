package planner

import (
	"fmt"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestRowChangesKeepIndices: issue 19 finding 4. Two row changes that
// include an UPDATE (each emptying and removing a fragment) used to drop the
// table's UNIQUE index created with the empty table: SHOW INDEX lost it and
// the column still claimed to be unique. The index stays (covering no live
// fragment), still enforces uniqueness, and serves the query.
func TestRowChangesKeepIndices(t *testing.T) {
	for _, seq := range [][2]string{
		{"UPDATE t SET v = 5 WHERE id = 1", "UPDATE t SET v = 6 WHERE id = 2"},
		{"UPDATE t SET v = 5 WHERE id = 1", "DELETE FROM t WHERE id = 2"},
		{"DELETE FROM t WHERE id = 2", "UPDATE t SET v = 5 WHERE id = 1"},
	} {
		t.Run(seq[0]+"; "+seq[1], func(t *testing.T) {
			f := newDataFixture(t, Options{})
			f.exec("CREATE TABLE t (id INT NOT NULL, u VARCHAR(8) UNIQUE, v INT, PRIMARY KEY (id))")
			f.exec("INSERT INTO t VALUES (1, 'a', 1)")
			f.exec("INSERT INTO t VALUES (2, 'b', 2)")
			f.exec(seq[0])
			f.exec(seq[1])
			var keys []string
			for _, r := range f.rows("SHOW INDEX FROM t") {
				keys = append(keys, fmt.Sprint(r[2]))
			}
			if fmt.Sprint(keys) != "[PRIMARY u]" {
				t.Fatalf("SHOW INDEX keys %v, want [PRIMARY u]", keys)
			}
			if got := fmt.Sprint(f.rows("SELECT id FROM t WHERE u = 'a'")); got != "[[1]]" {
				t.Errorf("SELECT through the kept index: %s", got)
			}
			f.fails("INSERT INTO t VALUES (9, 'a', 9)", catalog.CodeInvalidInput, "duplicate entry")
		})
	}
}
