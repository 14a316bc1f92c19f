package planner

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/storage"
)

// readCountingStore records the table data files (under a dataset's data/
// directory) read through it.
type readCountingStore struct {
	storage.Store
	mu    sync.Mutex
	files map[string]bool
}

func (s *readCountingStore) note(path string) {
	if strings.Contains(path, "data/") && !strings.Contains(path, "__manifest") {
		s.mu.Lock()
		s.files[path] = true
		s.mu.Unlock()
	}
}

func (s *readCountingStore) Read(ctx context.Context, path string) ([]byte, error) {
	s.note(path)
	return s.Store.Read(ctx, path)
}

func (s *readCountingStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	s.note(path)
	return s.Store.ReadRange(ctx, path, off, n)
}

// reset forgets the files read so far.
func (s *readCountingStore) reset() {
	s.mu.Lock()
	s.files = map[string]bool{}
	s.mu.Unlock()
}

func (s *readCountingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}

// TestDeleteUpdateReadThroughIndex: DELETE ... WHERE and UPDATE ... WHERE
// find their rows through the pushed-down scan: with a BTREE on id, a
// point or range predicate reads only the data file of the fragment holding
// the rows (and of fragments no index covers); without indices the same statement reads every fragment's
// file. The rows changed are the same either way.
func TestDeleteUpdateReadThroughIndex(t *testing.T) {
	ctx := context.Background()
	base, err := storage.Open(ctx, fmt.Sprintf("memory://planner-dml-%d/lake", dataSeq.Add(1)), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = base.DeletePrefix(context.Background(), "")
		base.Close()
	})
	st := &readCountingStore{Store: base, files: map[string]bool{}}
	cat, err := catalog.Open(ctx, catalog.Options{Root: catalog.StoreDir(st), Manifest: manifest.NewManifestTable(st), Datasets: manifest.NewDatasets(st)})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, s: NewSession(cat, Options{Store: st})}
	plain := &fixture{t: t, s: NewSession(cat, Options{Store: st, NoIndexes: true})}
	f.exec("CREATE TABLE t (id BIGINT NOT NULL, v VARCHAR(8), k INT)")
	for frag := range 4 { // four fragments of 50 rows: ids frag*50 .. frag*50+49
		var rows []string
		for i := range 50 {
			rows = append(rows, fmt.Sprintf("(%d, 'v%d', %d)", frag*50+i, i, i%5))
		}
		f.exec("INSERT INTO t VALUES " + strings.Join(rows, ", "))
	}
	f.exec("CREATE INDEX id_idx ON t (id); CREATE INDEX k_bm ON t (k) USING BITMAP")

	for _, c := range []struct {
		fx       *fixture
		sql      string
		affected int64
		files    int
	}{
		{f, "DELETE FROM t WHERE id = 120", 1, 1},
		{f, "UPDATE t SET v = 'x' WHERE id BETWEEN 10 AND 12", 3, 1},
		// The UPDATE appended a fragment no index covers: it is read too.
		{f, "DELETE FROM t WHERE id >= 160 AND k = 3", 8, 2},
		{f, "UPDATE t SET v = 'y' WHERE 61 > id AND id > 55 AND v LIKE 'v%'", 5, 2},
		// Without indices the same kind of statement reads every fragment
		// (the two UPDATEs appended two more).
		{plain, "DELETE FROM t WHERE id = 130", 1, 6},
		{plain, "UPDATE t SET v = 'z' WHERE id = 20", 1, 6},
	} {
		st.reset()
		res := c.fx.exec(c.sql)
		if res.RowsAffected != c.affected {
			t.Errorf("%s: %d rows affected, want %d", c.sql, res.RowsAffected, c.affected)
		}
		if got := st.count(); got != c.files {
			t.Errorf("%s: read %d data files, want %d", c.sql, got, c.files)
		}
	}
	got := f.rows("SELECT id, v FROM t WHERE id IN (10, 11, 12, 20, 56, 60, 61, 120, 130, 163, 168) ORDER BY id")
	want := [][]any{{int64(10), "x"}, {int64(11), "x"}, {int64(12), "x"}, {int64(20), "z"},
		{int64(56), "y"}, {int64(60), "y"}, {int64(61), "v11"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows after the changes:\n got %v\nwant %v", got, want)
	}
}

// TestExplainDeleteUpdate: EXPLAIN DELETE/UPDATE prints the plan of the
// scan that finds their rows.
func TestExplainDeleteUpdate(t *testing.T) {
	f := whereTable(t, Options{})
	f.exec(`CREATE INDEX id_idx ON w (id)`)
	explain := func(q string) string {
		var lines []string
		for _, r := range f.rows("EXPLAIN " + q) {
			lines = append(lines, r[0].(string))
		}
		return strings.Join(lines, "\n")
	}
	if got, want := explain("DELETE FROM w WHERE id BETWEEN 2 AND 3 AND score > 0"), `Delete w (version 5): the matching rows by row address
  Filter id BETWEEN 2 AND 3 AND score > 0
    TableScan with row addresses
      index BTREE "id_idx" answers id >= 2 AND id <= 3
      covered fragments [0 1 2], read [0 1]
      uncovered fragments scanned none
      estimated rows 2
      not pushed: score > 0`; got != want {
		t.Errorf("EXPLAIN DELETE:\n got:\n%s\nwant:\n%s", got, want)
	}
	if got := explain("UPDATE w SET name = 'x'"); got != "Update w (version 5): the matching rows by row address\n  TableScan with row addresses\n    full scan of fragments [0 1 2]\n    estimated rows 6" {
		t.Errorf("EXPLAIN UPDATE:\n%s", got)
	}
	if got := f.rows("SELECT COUNT(*) FROM w"); got[0][0] != int64(6) {
		t.Errorf("EXPLAIN changed rows: %v", got)
	}
}
