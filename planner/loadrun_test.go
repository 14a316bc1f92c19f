package planner

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

// dataFileSums is the SHA-256 of each data file of table name, in
// fragment order: two loads wrote the same bytes when these are equal.
func dataFileSums(t *testing.T, f *fixture, name string) []string {
	t.Helper()
	ctx := context.Background()
	_, ds, err := f.s.openTableData(ctx, sqlparse.Name{name})
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, fr := range ds.Manifest().Fragments {
		for _, df := range fr.Files {
			b, err := ds.Store().Read(ctx, path.Join(ds.Dir(), "data", df.Path))
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, fmt.Sprintf("%x", sha256.Sum256(b)))
		}
	}
	return sums
}

// runTypesDDL is a table whose every column the columnar load parses
// itself, so its records go in runs (loadrun.go).
const runTypesDDL = "CREATE TABLE t (k INT NOT NULL, i INT, b BIGINT, u INT UNSIGNED, ti TINYINT, ub BIGINT UNSIGNED, d DOUBLE, fl FLOAT, s VARCHAR(40), dt DATE, bo BOOLEAN, bl BLOB, sm SMALLINT, us SMALLINT UNSIGNED)"

// runFields are the fields of record k of runTypesDDL's test file: every
// type, NULLs now and then, quoted and escaped text.
func runFields(k int) []string {
	fields := []string{
		fmt.Sprint(k), fmt.Sprint(k*7 - 5000), fmt.Sprint(int64(k) * -1234567891), fmt.Sprint(k * 3), fmt.Sprint(k%256 - 128),
		fmt.Sprint(uint64(k) * 1e12), fmt.Sprintf("%d.%02d", k%1000, k%100), fmt.Sprintf("-%d.5", k%77),
		fmt.Sprintf(`"name %d, \"x\""`, k%97), fmt.Sprintf("20%02d-%02d-%02d", k%30, k%12+1, k%28+1), fmt.Sprint(k % 2),
		fmt.Sprintf(`b\t%d`, k), fmt.Sprint(k%60000 - 30000), fmt.Sprint(k % 65536),
	}
	if k%17 == 3 {
		for i := 1; i < len(fields); i += 3 {
			fields[i] = `\N`
		}
	}
	if k%29 == 0 {
		fields[8] = `""` // empty, not NULL
	}
	return fields
}

// TestLoadRunsMatchRowPath: records appended in runs store what the row
// path stores, in the same fragments, byte for byte the same data files;
// a record that does not parse (in the middle of a chunk, at any batch
// size) fails the statement on its line and column as the row path does.
func TestLoadRunsMatchRowPath(t *testing.T) {
	n := 3*splitChunkRecords + 123
	var good, bad strings.Builder
	for k := 1; k <= n; k++ {
		fields := runFields(k)
		good.WriteString(strings.Join(fields, ",") + "\n")
		switch k {
		case splitChunkRecords + 500:
			fields[1] = "12x"
		case 2*splitChunkRecords + 3:
			fields[4] = "300" // out of TINYINT's range
		}
		bad.WriteString(strings.Join(fields, ",") + "\n")
	}
	query := "SELECT k, i, b, u, ti, ub, d, fl, s, dt, bo, bl, sm, us FROM t ORDER BY k"
	stmt := `LOAD DATA INFILE 'a.csv' %sINTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`
	defer func(rows int) { loadBatchRows = rows }(loadBatchRows)
	for _, batch := range []int{1 << 20, 1000, 7} {
		loadBatchRows = batch
		for _, rc := range []struct {
			c    loadCase
			runs bool // records go in runs (IGNORE reads one at a time: its lenient values warn per field)
		}{
			{loadCase{name: "runs", ok: true, files: map[string]string{"a.csv": good.String()}, stmt: fmt.Sprintf(stmt, "")}, true},
			{loadCase{name: "runs, bad records", files: map[string]string{"a.csv": bad.String()}, stmt: fmt.Sprintf(stmt, "")}, true},
			{loadCase{name: "bad records ignore", ok: true, files: map[string]string{"a.csv": bad.String()}, stmt: fmt.Sprintf(stmt, "IGNORE ")}, false},
		} {
			c := rc.c
			c.name = fmt.Sprintf("%s, batches of %d", c.name, batch)
			c.setup, c.query, c.columnar = []string{runTypesDDL}, query, true
			before := loadRunRows.Load()
			checkLoadCase(t, c)
			if ran := loadRunRows.Load() > before; ran != rc.runs {
				t.Fatalf("%s: records in runs %v, want %v", c.name, ran, rc.runs)
			}
		}
		// The same data files, byte for byte.
		var sums [2][]string
		for k, rowOnly := range []bool{true, false} {
			f, write := loadFixture(t)
			f.exec(runTypesDDL)
			write("a.csv", good.String())
			loadRowPathOnly = rowOnly
			f.exec(fmt.Sprintf(stmt, ""))
			loadRowPathOnly = false
			sums[k] = dataFileSums(t, f, "t")
		}
		if len(sums[0]) == 0 || !reflect.DeepEqual(sums[0], sums[1]) {
			t.Fatalf("batches of %d: data files differ: row path %v, runs %v", batch, sums[0], sums[1])
		}
	}
	// The bad records are where the row path says they are.
	out, _ := runLoad(t, false, []string{runTypesDDL}, map[string]string{"a.csv": bad.String()}, fmt.Sprintf(stmt, ""), query)
	if want := fmt.Sprintf("line %d, column 2", splitChunkRecords+500); !strings.Contains(out.err, want) {
		t.Fatalf("bad record: %q, want it to name %s", out.err, want)
	}
}

// FuzzLoadRunsMatchRowPath: any file loaded into runTypesDDL's table
// through the columnar path (records in runs wherever they parse) stores
// what the row path stores, or fails with the same error.
func FuzzLoadRunsMatchRowPath(f *testing.F) {
	var seed strings.Builder
	for k := 1; k <= 40; k++ {
		seed.WriteString(strings.Join(runFields(k), ",") + "\n")
	}
	f.Add(seed.String())
	f.Add(strings.Replace(seed.String(), "\n5,", "\n5,x", 1))
	f.Add("1,2,3,4,5,6,7,8,s,2024-01-01,1,b,1,1\n2,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N\n3,1,1,1,1,1,1e5,1,\"a\"\"b\",2024-02-29,0,,1,1\n")
	query := "SELECT k, i, b, u, ti, ub, d, fl, s, dt, bo, bl, sm, us FROM t ORDER BY k, i, s"
	stmt := `LOAD DATA INFILE 'a.csv' INTO TABLE t FIELDS TERMINATED BY ',' ENCLOSED BY '"'`
	f.Fuzz(func(t *testing.T, file string) {
		files := map[string]string{"a.csv": file}
		row, _ := runLoad(t, true, []string{runTypesDDL}, files, stmt, query)
		fast, ran := runLoad(t, false, []string{runTypesDDL}, files, stmt, query)
		if !ran {
			t.Fatal("the columnar path did not run")
		}
		if !reflect.DeepEqual(row, fast) {
			t.Fatalf("the paths differ on %q\nrow path: %+v\ncolumnar: %+v", file, row, fast)
		}
	})
}
