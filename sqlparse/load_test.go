package sqlparse

import (
	"reflect"
	"testing"
)

// TestParseLoadDataAndImportInto: LOAD DATA's duplicate handling, @variables and SET, and
// TiDB's IMPORT INTO with its column list, SET, FORMAT and WITH options.
func TestParseLoadDataAndImportInto(t *testing.T) {
	one := func(q string) Statement {
		t.Helper()
		sts, err := Parse(q)
		if err != nil || len(sts) != 1 {
			t.Fatalf("%s: %v", q, err)
		}
		return sts[0]
	}
	ld := one("LOAD DATA INFILE 'f.csv' REPLACE INTO TABLE s.t LINES STARTING BY 'x' (a, @B) SET c = @b + 1").(*LoadData)
	if !ld.Replace || ld.Ignore || !ld.LinesStartingSet || ld.LinesStarting != "x" ||
		!reflect.DeepEqual(ld.Targets, []LoadTarget{{Column: "a"}, {Var: "b"}}) || len(ld.Set) != 1 || ld.Set[0].Column.Column != "c" {
		t.Fatalf("LOAD DATA: %+v", ld)
	}
	if ld := one("LOAD DATA INFILE 'f.csv' IGNORE INTO TABLE t").(*LoadData); !ld.Ignore || ld.Replace {
		t.Fatalf("LOAD DATA IGNORE: %+v", ld)
	}
	im := one("IMPORT INTO t (a, @v) SET b = @v FROM '/d/*.csv' WITH skip_rows=1, fields_terminated_by=';', detached").(*ImportInto)
	want := map[string]any{"skip_rows": int64(1), "fields_terminated_by": ";", "detached": true}
	if im.Path != "/d/*.csv" || im.Format != "csv" || !reflect.DeepEqual(im.Options, want) ||
		!reflect.DeepEqual(im.Targets, []LoadTarget{{Column: "a"}, {Var: "v"}}) || len(im.Set) != 1 {
		t.Fatalf("IMPORT INTO: %+v", im)
	}
	if im := one("IMPORT INTO t FROM 'x.parquet' FORMAT 'PARQUET'").(*ImportInto); im.Format != "parquet" || len(im.Options) != 0 {
		t.Fatalf("IMPORT INTO parquet: %+v", im)
	}
	if _, err := Parse("IMPORT INTO t FROM SELECT 1"); err == nil {
		t.Fatal("IMPORT INTO ... FROM SELECT parsed")
	}
}
