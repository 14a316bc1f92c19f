package planner

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

type fixture struct {
	t   *testing.T
	env *catalogtest.Env
	s   *Session
}

func newFixture(t *testing.T) *fixture {
	env := catalogtest.NewEnv(t)
	return &fixture{t: t, env: env, s: NewSession(env.Open(catalog.ModeCompatibility), Options{})}
}

func (f *fixture) exec(sql string) *Result {
	f.t.Helper()
	res, err := f.try(sql)
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return res
}

func (f *fixture) try(sql string) (*Result, error) {
	f.t.Helper()
	var last *Result
	stmts, err := sqlparse.Parse(sql)
	if err != nil {
		return nil, err
	}
	for _, st := range stmts {
		if last, err = f.s.Exec(context.Background(), st); err != nil {
			return nil, err
		}
		if err = last.Collect(); err != nil {
			return nil, err
		}
	}
	return last, nil
}

func (f *fixture) describe(id ...string) catalog.TableDescription {
	f.t.Helper()
	d, err := f.s.Catalog().DescribeTable(context.Background(), catalog.Ident(id), catalog.DescribeTableOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// fieldsEqual compares two schemas field by field: names, types,
// nullability and metadata.
func fieldsEqual(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.Fields() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) || fa.Nullable != fb.Nullable || !fa.Metadata.Equal(fb.Metadata) {
			return false
		}
	}
	return true
}

// TestShowCreateTableRoundTrip: the CREATE TABLE text SHOW CREATE TABLE
// prints re-creates the same Lance schema (types, nullability, primary key
// metadata, comments) and table comment, for every SQL-spellable type.
func TestShowCreateTableRoundTrip(t *testing.T) {
	f := newFixture(t)
	f.exec(`CREATE SCHEMA s; CREATE TABLE s.orig (
		a BOOLEAN, b TINYINT, c SMALLINT UNSIGNED, d INT, e BIGINT UNSIGNED NOT NULL COMMENT 'it''s e',
		f FLOAT, g DOUBLE, h DECIMAL(12,3), i VARCHAR(9), j VARBINARY(3), k DATE, l TIME, m DATETIME(3),
		n TIMESTAMP(6), o JSON, p VECTOR(8), PRIMARY KEY (e, i)) COMMENT 'orig table'`)
	res := f.exec("SHOW CREATE TABLE s.orig")
	text := res.Rows[0][1].(string)
	f.exec(strings.Replace(text, "CREATE TABLE s.orig", "CREATE TABLE s.copy", 1))
	orig, cp := f.describe("s", "orig"), f.describe("s", "copy")
	if !fieldsEqual(orig.Schema, cp.Schema) {
		t.Fatalf("schemas differ:\n%v\n%v\nfrom:\n%s", orig.Schema, cp.Schema, text)
	}
	if !reflect.DeepEqual(orig.Properties, cp.Properties) || orig.Properties[CommentKey] != "orig table" {
		t.Fatalf("properties differ: %v vs %v", orig.Properties, cp.Properties)
	}
}

// TestCreateTableLanceMetadata checks the Arrow schema handed to the
// catalog: primary key positions, comments, JSON as Lance stores it, and
// that lanceschema reads it back as Lance's json logical type and primary key.
func TestCreateTableLanceMetadata(t *testing.T) {
	f := newFixture(t)
	f.exec("CREATE TABLE t (doc JSON COMMENT 'payload', k2 INT, k1 VARCHAR(3), PRIMARY KEY (k1, k2))")
	d := f.describe("t")
	doc, _ := d.Schema.FieldsByName("doc")
	if doc[0].Type.ID() != arrow.LARGE_BINARY {
		t.Fatalf("JSON stored as %v, want large_binary", doc[0].Type)
	}
	if v, _ := sqltypes.FieldMeta(doc[0], lanceschema.ArrowExtensionNameKey); v != lanceschema.JSONExtensionName {
		t.Fatalf("JSON extension name %q", v)
	}
	if v, _ := sqltypes.FieldMeta(doc[0], CommentKey); v != "payload" {
		t.Fatalf("comment %q", v)
	}
	ls, err := lanceschema.FromArrow(d.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if got := ls.Field("doc").LogicalType; got != "json" {
		t.Fatalf("lance logical type of JSON column: %q", got)
	}
	if got := ls.PrimaryKey(); !reflect.DeepEqual(got, []string{"k1", "k2"}) {
		t.Fatalf("lance primary key %v", got)
	}
	k1, _ := d.Schema.FieldsByName("k1")
	if k1[0].Nullable {
		t.Fatal("primary key column is nullable")
	}
}

// TestDescribeTypesSQLCannotSpell: a dataset created by another client with
// struct, list, large and other types is described and shown faithfully.
func TestDescribeTypesSQLCannotSpell(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	nonNullItem := arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int32, Nullable: false}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "odd name", Type: arrow.BinaryTypes.String, Nullable: false}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "ll", Type: arrow.LargeListOfField(nonNullItem), Nullable: true},
		{Name: "lu", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "lb", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "fsl", Type: arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "h", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true},
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}, Nullable: true},
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
	}, nil)
	if _, err := f.env.Datasets.Create(ctx, "ext/foreign.lance", schema, nil); err != nil {
		t.Fatal(err)
	}
	f.exec("CALL register_table('foreign_t', 'ext/foreign.lance')") // not a root *.lance directory: that would be V1 table "foreign"
	res := f.exec("DESCRIBE foreign_t")
	want := map[string]string{
		"s":   "STRUCT<x BIGINT, `odd name` TEXT NOT NULL>",
		"l":   "LIST<TEXT>",
		"ll":  "LARGE_LIST<INT NOT NULL>",
		"lu":  "LARGE_TEXT",
		"lb":  "LARGE_BLOB",
		"fsl": "FIXED_SIZE_LIST<DOUBLE>[4]",
		"h":   "FLOAT16",
		"fsb": "FIXED_SIZE_BINARY(16)",
		"tz":  "TIMESTAMP(6) WITH TIME ZONE 'Europe/Paris'",
		"d64": "DATE64",
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows", len(res.Rows))
	}
	for _, r := range res.Rows {
		if got := r[1].(string); got != want[r[0].(string)] {
			t.Errorf("column %s: type %q, want %q", r[0], got, want[r[0].(string)])
		}
	}
	text := f.exec("SHOW CREATE TABLE foreign_t").Rows[0][1].(string)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", w, text)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"a%", "abc", true}, {"a%", "bac", false}, {"%", "", true}, {"_", "", false}, {"a_c", "abc", true},
		{"a\\_c", "a_c", true}, {"a\\_c", "abc", false}, {"%b%", "abc", true}, {"A%", "abc", false},
		{"100\\%", "100%", true}, {"é_", "éa", true}, {"%%a", "ba", true},
	}
	for _, c := range cases {
		if got := likeMatch(c.p, c.s, '\\'); got != c.want {
			t.Errorf("%q LIKE %q = %v, want %v", c.s, c.p, got, c.want)
		}
	}
}

func TestSplitDisplayName(t *testing.T) {
	for _, id := range []catalog.Ident{{}, {"a"}, {"a", "b"}, {"we.ird", "it's"}, {"back`tick", "x"}, {"sp ace"}} {
		got, ok := splitDisplayName(displayName(id))
		if !ok || !identEqual(got, id) {
			t.Errorf("round trip of %q: %q %v", id, got, ok)
		}
	}
	for _, bad := range []string{"a..b", ".a", "a.", "`open", "a`b"} {
		if _, ok := splitDisplayName(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestPushDownKeepsResults: a pushed-down condition gives the same rows as
// the same condition evaluated without push-down (hidden in an
// expression the planner does not push).
func TestPushDownKeepsResults(t *testing.T) {
	f := newFixture(t)
	f.exec(`CREATE SCHEMA s1; CREATE SCHEMA s1.x; CREATE SCHEMA s2;
		CREATE TABLE s1.a (i INT); CREATE TABLE s1.b (i INT); CREATE TABLE s1.x.a (i INT); CREATE TABLE s2.a (i INT); CREATE TABLE a (i INT)`)
	conds := []string{
		"TABLE_SCHEMA = 's1'", "TABLE_NAME = 'a'", "TABLE_SCHEMA = 's1.x' AND TABLE_NAME = 'a'",
		"TABLE_SCHEMA IN ('s1', 's2', 'nosuch') AND TABLE_NAME IN ('a', 'zz')", "TABLE_SCHEMA = ''",
		"TABLE_SCHEMA = 's1' AND TABLE_SCHEMA = 's2'",
	}
	for _, view := range []string{"tables", "columns"} {
		for _, c := range conds {
			pushed := f.exec("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema." + view + " WHERE " + c)
			hidden := strings.NewReplacer("TABLE_SCHEMA", "CONCAT(TABLE_SCHEMA, '')", "TABLE_NAME", "CONCAT(TABLE_NAME, '')").Replace(c)
			plain := f.exec("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema." + view + " WHERE " + hidden)
			if !reflect.DeepEqual(pushed.Rows, plain.Rows) {
				t.Errorf("%s WHERE %s: pushed %v, plain %v", view, c, pushed.Rows, plain.Rows)
			}
			plan := f.exec("EXPLAIN SELECT TABLE_NAME FROM information_schema." + view + " WHERE " + hidden)
			if last := plan.Rows[len(plan.Rows)-1][0].(string); !strings.Contains(last, "list all tables;") {
				t.Errorf("condition %s was pushed down: %s", hidden, last)
			}
		}
	}
	plan := f.exec("EXPLAIN SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 's1'")
	if last := plan.Rows[len(plan.Rows)-1][0].(string); !strings.Contains(last, "list tables of namespaces ['s1']") {
		t.Errorf("TABLE_SCHEMA = 's1' not pushed down: %s", last)
	}
}

func TestNotSupportedAppliesNothing(t *testing.T) {
	f := newFixture(t)
	f.exec("CREATE TABLE t (i INT)")
	for _, q := range []string{"INSERT INTO t VALUES (1)", "CREATE VIEW v AS SELECT 1", "SELECT * FROM t", "CALL foo()"} {
		_, err := f.try(q)
		if !errors.Is(err, catalog.ErrUnsupported) {
			t.Errorf("%s: %v, want Unsupported", q, err)
		}
	}
	res := f.exec("SHOW TABLES")
	if len(res.Rows) != 1 {
		t.Fatalf("tables: %v", res.Rows)
	}
}

func TestTransactionAtomic(t *testing.T) {
	f := newFixture(t)
	f.exec("CREATE TABLE existing (i INT)")
	base := f.env.Manifest.Commits()
	f.exec("BEGIN; CREATE SCHEMA n; CREATE TABLE n.t1 (i INT); CREATE TABLE n.t2 (i INT); DROP TABLE existing")
	if f.env.Manifest.Commits() != base {
		t.Fatal("changes committed before COMMIT")
	}
	f.exec("COMMIT")
	if got := f.env.Manifest.Commits() - base; got != 1 {
		t.Fatalf("COMMIT made %d manifest commits, want 1", got)
	}
	if res := f.exec("SHOW TABLES FROM n"); len(res.Rows) != 2 {
		t.Fatalf("tables: %v", res.Rows)
	}
	// A failing transaction leaves nothing behind, not even table directories.
	dirs := len(f.env.TopDirs())
	f.exec("BEGIN; CREATE TABLE n.t3 (i INT); CREATE TABLE n.t1 (i INT)")
	if _, err := f.try("COMMIT"); !errors.Is(err, catalog.ErrTableAlreadyExists) {
		t.Fatalf("COMMIT: %v", err)
	}
	if f.s.InTransaction() {
		t.Fatal("transaction still open after a failed COMMIT")
	}
	if res := f.exec("SHOW TABLES FROM n"); len(res.Rows) != 2 {
		t.Fatalf("tables after failed commit: %v", res.Rows)
	}
	if got := len(f.env.TopDirs()); got != dirs {
		t.Fatalf("failed transaction left directories: %d -> %d: %v", dirs, got, f.env.TopDirs())
	}
}
