package sqlparse

import (
	"github.com/lancecat/lancecat/sqltypes"
	"reflect"
	"testing"
)

func TestCreateTableColumnOptions(t *testing.T) {
	st, err := ParseOne("CREATE TABLE g (id SERIAL, v BIGINT DEFAULT -3, s VARCHAR(8) DEFAULT 'it''s', " +
		"ts TIMESTAMP NULL DEFAULT now(), c DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), b BOOL DEFAULT TRUE, " +
		"f DOUBLE DEFAULT 1.5, n INT DEFAULT NULL, u INT UNIQUE KEY, k BIGINT AUTO_INCREMENT, PRIMARY KEY (k), " +
		"INDEX idx_v (v), UNIQUE INDEX (s), CONSTRAINT uni_c UNIQUE (c), KEY (b) USING BTREE)")
	if err != nil {
		t.Fatal(err)
	}
	ct := st.(*CreateTable)
	col := func(name string) ColumnDef {
		for _, c := range ct.Columns {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no column %s", name)
		return ColumnDef{}
	}
	id := col("id")
	if !id.AutoIncrement || !id.Unique || id.Nullable || id.Type.Kind != sqltypes.KindUint {
		t.Errorf("SERIAL = %+v, want BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE", id)
	}
	if !col("k").AutoIncrement || col("v").AutoIncrement {
		t.Error("AUTO_INCREMENT not kept per column")
	}
	wantDefaults := map[string]string{
		"v": "-3", "s": "'it''s'", "ts": "CURRENT_TIMESTAMP", "c": "CURRENT_TIMESTAMP(3)", "b": "1", "f": "1.5", "n": "NULL",
	}
	for name, want := range wantDefaults {
		d := col(name).Default
		if d == nil {
			t.Errorf("column %s: no default", name)
			continue
		}
		if got := d.SQL(); got != want {
			t.Errorf("column %s: default %s, want %s", name, got, want)
		}
		back, err := ParseColumnDefault(d.SQL())
		if err != nil || !reflect.DeepEqual(back, *d) {
			t.Errorf("column %s: ParseColumnDefault(%s) = %+v, %v; want %+v", name, d.SQL(), back, err, *d)
		}
	}
	if col("u").Default != nil {
		t.Error("u has a default")
	}
	want := []IndexDef{
		{Name: "id", Column: "id", Unique: true},
		{Name: "u", Column: "u", Unique: true},
		{Name: "idx_v", Column: "v"},
		{Column: "s", Unique: true},
		{Name: "uni_c", Column: "c", Unique: true},
		{Column: "b", Using: "BTREE"},
	}
	if !reflect.DeepEqual(ct.Indexes, want) {
		t.Errorf("indexes:\n got %+v\nwant %+v", ct.Indexes, want)
	}
	if !reflect.DeepEqual(ct.PrimaryKey, []string{"k"}) {
		t.Errorf("primary key %v", ct.PrimaryKey)
	}
}

func TestColumnDefaultText(t *testing.T) {
	for _, c := range []struct {
		d    ColumnDefault
		text string
		ok   bool
	}{
		{ColumnDefault{Value: "x y"}, "x y", true},
		{ColumnDefault{Value: int64(0)}, "0", true},
		{ColumnDefault{Value: nil}, "", false},
		{ColumnDefault{CurrentTimestamp: true}, "CURRENT_TIMESTAMP", true},
		{ColumnDefault{Value: []byte{0, 255}}, "X'00ff'", true},
	} {
		got, ok := c.d.Text()
		if got != c.text || ok != c.ok {
			t.Errorf("%+v.Text() = %q, %v; want %q, %v", c.d, got, ok, c.text, c.ok)
		}
	}
}

func TestCreateUniqueIndex(t *testing.T) {
	st, err := ParseOne("CREATE UNIQUE INDEX IF NOT EXISTS u ON a.t (c)")
	if err != nil {
		t.Fatal(err)
	}
	ci := st.(*CreateIndex)
	if !ci.Unique || !ci.IfNotExists || ci.Name != "u" || ci.Column != "c" {
		t.Errorf("got %+v", ci)
	}
}

func TestParseSet(t *testing.T) {
	st, err := ParseOne("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_bin', SESSION sql_mode = ANSI, @@global.x = 2, @u = 'v', y = DEFAULT")
	if err != nil {
		t.Fatal(err)
	}
	got := st.(*Set).Vars
	want := []SetVar{
		{Name: "names", Value: "utf8mb4", Collation: "utf8mb4_bin"},
		{Name: "sql_mode", Value: "ANSI"},
		{Scope: ScopeGlobal, Name: "x", Value: int64(2)},
		{Scope: ScopeUser, Name: "u", Value: "v"},
		{Name: "y", Default: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SET:\n got %+v\nwant %+v", got, want)
	}
	sv, err := ParseOne("SHOW GLOBAL VARIABLES LIKE 'v%'")
	if err != nil {
		t.Fatal(err)
	}
	if s := sv.(*ShowVariables); !s.Global || s.Like == nil || *s.Like != "v%" {
		t.Errorf("SHOW VARIABLES: %+v", s)
	}
}
