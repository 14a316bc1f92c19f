package planner

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/storage"
)

// TestCreateTableAsSelect: CREATE TABLE ... [AS] SELECT takes its columns'
// types from the query (stored types of table columns, value types of
// computed ones), merges declared columns by name, builds declared keys,
// and publishes the table only with its rows: a failing statement leaves
// no table.
func TestCreateTableAsSelect(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE g (a DECIMAL(10,2), dt DATETIME(3), s VARCHAR(5), i INT NOT NULL DEFAULT 7 UNIQUE)`)
	f.exec(`INSERT INTO g (a, dt, s, i) VALUES (1.5, '2024-01-02 03:04:05.123', 'ab', 3), (NULL, NULL, NULL, 4)`)
	f.exec(`CREATE TABLE h AS SELECT a, dt, DATE(dt) AS d, s, UPPER(s) AS us, i, i + 1 AS i1, 2.25 AS lit, 1e0 AS dbl FROM g`)
	var desc [][]any
	for _, r := range f.rows(`DESCRIBE h`) {
		desc = append(desc, r[:5])
	}
	want := [][]any{
		{"a", "DECIMAL(10,2)", "YES", "", nil},
		{"dt", "DATETIME(3)", "YES", "", nil},
		{"d", "DATE", "YES", "", nil},
		{"s", "VARCHAR(5)", "YES", "", nil},
		{"us", "TEXT", "YES", "", nil},
		{"i", "INT", "NO", "", "7"}, // NOT NULL and DEFAULT kept; UNIQUE not, as in MySQL
		{"i1", "BIGINT", "YES", "", nil},
		{"lit", "DECIMAL(3,2)", "YES", "", nil},
		{"dbl", "DOUBLE", "YES", "", nil},
	}
	if !reflect.DeepEqual(desc, want) {
		t.Fatalf("DESCRIBE h:\n got %v\nwant %v", desc, want)
	}
	if got := f.rows(`SELECT a, s, us, i, i1, lit FROM h ORDER BY i`); !reflect.DeepEqual(got, [][]any{
		{"1.50", "ab", "AB", int64(3), int64(4), "2.25"},
		{nil, nil, nil, int64(4), int64(5), "2.25"},
	}) {
		t.Fatalf("rows of h: %v", got)
	}
	if got := f.rows(`SELECT COUNT(*) FROM h WHERE dt = '2024-01-02 03:04:05.123'`); !reflect.DeepEqual(got, [][]any{{int64(1)}}) {
		t.Fatalf("DATETIME(3) value copied: %v", got)
	}

	// Declared columns first, merged by name; keys over query columns.
	f.exec(`CREATE TABLE k (id BIGINT NOT NULL, extra INT DEFAULT 5, PRIMARY KEY (id), KEY (s)) SELECT i AS id, s FROM g`)
	if got := f.rows(`SELECT id, extra, s FROM k ORDER BY id`); !reflect.DeepEqual(got, [][]any{{int64(3), int64(5), "ab"}, {int64(4), int64(5), nil}}) {
		t.Fatalf("rows of k: %v", got)
	}
	var keys [][]any
	for _, r := range f.rows(`SHOW INDEX FROM k`) {
		keys = append(keys, []any{r[2], r[4], r[6]})
	}
	if !reflect.DeepEqual(keys, [][]any{{"PRIMARY", "id", "UNENFORCED"}, {"s", "s", "BTREE"}}) {
		t.Fatalf("keys of k: %v", keys)
	}

	// An empty result still creates the table with the query's columns.
	f.exec(`CREATE TABLE empty AS SELECT i, s FROM g WHERE i > 100`)
	if got := f.rows(`SELECT COUNT(*) FROM empty`); !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Fatalf("empty CTAS: %v", got)
	}
	f.exec(`CREATE TABLE IF NOT EXISTS empty AS SELECT 1 AS x`) // exists: nothing happens
	if got := f.rows(`SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'empty'`); !reflect.DeepEqual(got, [][]any{{int64(2)}}) {
		t.Fatalf("IF NOT EXISTS changed the table: %v", got)
	}

	// Failures leave no table.
	for _, c := range []struct {
		sql, contains string
		code          catalog.Code
	}{
		{`CREATE TABLE bad1 (UNIQUE KEY (s)) AS SELECT 'x' AS s FROM g`, "duplicate entry 'x'", catalog.CodeInvalidInput},
		{`CREATE TABLE bad2 (n INT NOT NULL) AS SELECT a AS n FROM g WHERE a IS NULL`, "NOT NULL", catalog.CodeInvalidInput},
		{`CREATE TABLE bad3 AS SELECT i, i FROM g`, "duplicate column name", catalog.CodeInvalidInput},
		{`CREATE TABLE bad4 (PRIMARY KEY (nope)) AS SELECT i FROM g`, "primary key column nope", catalog.CodeInvalidInput},
		{`CREATE TABLE bad5 AS SELECT nope FROM g`, "nope", catalog.CodeInvalidInput},
		{`CREATE TABLE h AS SELECT 1 AS x`, "already exists", catalog.CodeTableAlreadyExists},
	} {
		f.fails(c.sql, c.code, c.contains)
	}
	if got := f.rows(`SELECT COUNT(*) FROM information_schema.tables WHERE table_name LIKE 'bad%'`); !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Fatalf("a failed CREATE TABLE ... SELECT left a table: %v", got)
	}
}

// TestCreateTableAsSelectSwap: the atomic table swap of a transaction
// (CREATE TABLE t_new AS SELECT; RENAME t TO t_old, t_new TO t; DROP
// t_old; COMMIT) is seen by a concurrent reader as the old table or the new
// one, never as a missing or empty table.
func TestCreateTableAsSelectSwap(t *testing.T) {
	ctx := context.Background()
	uri := fmt.Sprintf("memory://planner-data-%d/lake", dataSeq.Add(1))
	lc, err := manifest.OpenCatalog(ctx, uri, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	opts := Options{Store: lc.Store}
	writer := &fixture{t: t, s: NewSession(lc.Catalog, opts)}
	writer.exec(`CREATE TABLE t (id BIGINT, v INT)`)
	writer.exec(`INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)`)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var seen sync.Map
	var cut atomic.Int64
	errs := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		reader := &fixture{t: t, s: NewSession(lc.Catalog, opts)}
		for !stop.Load() {
			res, err := reader.try(`SELECT COUNT(*), SUM(v) FROM t`)
			if code, _ := catalog.CodeOf(err); err != nil && code != catalog.CodeTableNotFound && (errors.Is(err, storage.ErrNotFound) || strings.Contains(err.Error(), "is missing")) {
				// A scan in flight over the old table when COMMIT's DROP
				// deletes its files: DROP does not wait for readers (Lance
				// has no read locks). The table itself never went missing.
				cut.Add(1)
				continue
			}
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
			seen.Store(fmt.Sprint(res.Rows[0]), true)
		}
	}()
	for round := 0; round < 5; round++ {
		writer.exec(`BEGIN`)
		writer.exec(`CREATE TABLE t_new AS SELECT id, v + 1 AS v FROM t`)
		writer.exec(`RENAME TABLE t TO t_old, t_new TO t`)
		writer.exec(`DROP TABLE t_old`)
		writer.exec(`COMMIT`)
	}
	stop.Store(true)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("a reader during the swaps failed: %v", err)
	default:
	}
	if got := writer.rows(`SELECT id, v FROM t ORDER BY id`); !reflect.DeepEqual(got, [][]any{{int64(1), int64(15)}, {int64(2), int64(25)}, {int64(3), int64(35)}}) {
		t.Fatalf("after 5 swaps: %v", got)
	}
	t.Logf("%d reads were cut by the DROP of the old table's files", cut.Load())
	seen.Range(func(k, _ any) bool {
		switch k {
		case "[3 60]", "[3 63]", "[3 66]", "[3 69]", "[3 72]", "[3 75]":
		default:
			t.Errorf("a reader saw %v: neither the old nor a new table", k)
		}
		return true
	})
	if got := writer.rows(`SELECT COUNT(*) FROM information_schema.tables WHERE table_name LIKE 't_%'`); !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Fatalf("swap left tables behind: %v", got)
	}
}
