package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
)

var ctx = context.Background()

func testSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
}

func testBatch(t *testing.T, n int) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema())
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("row", i))
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

func mustCreate(t *testing.T, c *catalog.Catalog, id ...string) catalog.TableInfo {
	t.Helper()
	info, err := c.CreateTable(ctx, id, testSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatalf("CreateTable(%q): %v", id, err)
	}
	return info
}

func mustNS(t *testing.T, c *catalog.Catalog, ns ...string) {
	t.Helper()
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatalf("CreateNamespace(%q): %v", ns, err)
	}
}

func listTables(t *testing.T, c *catalog.Catalog, ns ...string) []string {
	t.Helper()
	p, err := c.ListTables(ctx, ns, catalog.ListTablesOptions{})
	if err != nil {
		t.Fatalf("ListTables(%q): %v", ns, err)
	}
	return p.Names
}

func listNamespaces(t *testing.T, c *catalog.Catalog, ns ...string) []string {
	t.Helper()
	p, err := c.ListNamespaces(ctx, ns, catalog.ListOptions{})
	if err != nil {
		t.Fatalf("ListNamespaces(%q): %v", ns, err)
	}
	return p.Names
}

func wantCode(t *testing.T, err error, sentinel *catalog.Error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error = %v, want %s", err, sentinel.Code)
	}
}

func equal(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

var modes = []catalog.Mode{catalog.ModeCompatibility, catalog.ModeManifestOnly, catalog.ModeDirectoryOnly}

func TestCreateAndListTables(t *testing.T) {
	hashRoot := regexp.MustCompile(`^[0-9a-f]{8}_table[0-9]$`)
	for _, mode := range modes {
		for _, skipIndex := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/skipIndex=%v", mode, skipIndex), func(t *testing.T) {
				env := catalogtest.NewEnv(t)
				opts := env.Options(mode)
				opts.SkipIndexBuild = skipIndex
				c, err := catalog.Open(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				equal(t, listTables(t, c), []string{})
				for _, name := range []string{"table2", "table1", "table3"} {
					info := mustCreate(t, c, name)
					switch mode {
					case catalog.ModeManifestOnly:
						if !hashRoot.MatchString(info.Location) {
							t.Fatalf("manifest-only root location %q is not hash-named", info.Location)
						}
					default:
						equal(t, info.Location, name+".lance")
					}
					if ok, err := env.Datasets.Exists(ctx, info.Location); err != nil || !ok {
						t.Fatalf("no dataset at %q: %v", info.Location, err)
					}
					equal(t, info.Version, uint64(1))
				}
				equal(t, listTables(t, c), []string{"table1", "table2", "table3"})
				if mode.String() != "directory-only" {
					equal(t, len(env.Manifest.Rows()), 3)
				} else if env.Manifest.Exists() {
					t.Fatal("directory-only mode created __manifest")
				}
			})
		}
	}
}

func TestManifestBuildIndicesFlagIsPassedDown(t *testing.T) {
	for _, skip := range []bool{false, true} {
		env := catalogtest.NewEnv(t)
		var got []bool
		env.Manifest.BeforeCommit = func(_ uint64, ch *catalog.ManifestChange) error {
			got = append(got, ch.BuildIndices)
			return nil
		}
		opts := env.Options(catalog.ModeCompatibility)
		opts.SkipIndexBuild = skip
		c, err := catalog.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		mustNS(t, c, "a")
		equal(t, got, []bool{!skip})
	}
}

func TestTableExists(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := catalogtest.NewEnv(t).Open(mode)
			if ok, err := c.TableExists(ctx, catalog.Ident{"t"}); err != nil || ok {
				t.Fatalf("TableExists before create = %v, %v", ok, err)
			}
			mustCreate(t, c, "t")
			if ok, err := c.TableExists(ctx, catalog.Ident{"t"}); err != nil || !ok {
				t.Fatalf("TableExists after create = %v, %v", ok, err)
			}
			if mode != catalog.ModeDirectoryOnly {
				if err := c.DropTable(ctx, catalog.Ident{"t"}); err != nil {
					t.Fatal(err)
				}
				mustNS(t, c, "t") // a namespace with the table's id is not a table
				if ok, err := c.TableExists(ctx, catalog.Ident{"t"}); err != nil || ok {
					t.Fatalf("a namespace row counted as a table: %v, %v", ok, err)
				}
			}
		})
	}
}

func TestCreateTableRejectsAnIDHeldByANamespace(t *testing.T) {
	c := catalogtest.NewEnv(t).Open(catalog.ModeCompatibility)
	mustNS(t, c, "x")
	_, err := c.CreateTable(ctx, catalog.Ident{"x"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"x"}, nil), catalog.ErrNamespaceAlreadyExists)
}

func TestDescribeTable(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			env := catalogtest.NewEnv(t)
			c := env.Open(mode)
			var props map[string]string
			if mode != catalog.ModeDirectoryOnly {
				props = map[string]string{"owner": "me"}
			}
			info, err := c.CreateTable(ctx, catalog.Ident{"t"}, testSchema(), catalog.CreateTableOptions{
				Batches: []arrow.RecordBatch{testBatch(t, 3), testBatch(t, 2)}, Properties: props,
			})
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			equal(t, d.Version, uint64(1))
			equal(t, d.RowCount, int64(5))
			if !d.Schema.Equal(testSchema()) {
				t.Fatalf("schema %v", d.Schema)
			}
			equal(t, d.Location, info.Location)
			equal(t, d.URI, env.Store.URI()+"/"+info.Location)
			equal(t, d.DeclaredOnly, false)
			if props != nil {
				equal(t, d.Properties, props)
			}
			if _, err := c.AddColumns(ctx, catalog.Ident{"t"}, []arrow.Field{{Name: "extra", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}); err != nil {
				t.Fatal(err)
			}
			latest, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			equal(t, latest.Version, uint64(2))
			equal(t, latest.Schema.NumFields(), 3)
			v1, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{Version: 1})
			if err != nil {
				t.Fatal(err)
			}
			equal(t, v1.Version, uint64(1))
			equal(t, v1.Schema.NumFields(), 2)
			_, err = c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{Version: 9})
			wantCode(t, err, catalog.ErrTableVersionNotFound)
			_, err = c.DescribeTable(ctx, catalog.Ident{"nope"}, catalog.DescribeTableOptions{})
			wantCode(t, err, catalog.ErrTableNotFound)
		})
	}
}

func TestDescribeURIKeepsDollarAndNesting(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	info := mustCreate(t, c, "ns", "t")
	d, err := c.DescribeTable(ctx, catalog.Ident{"ns", "t"}, catalog.DescribeTableOptions{MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(d.URI, "/lake/"+info.Location) || !strings.Contains(d.URI, "_ns$t") {
		t.Fatalf("URI %q for location %q", d.URI, info.Location)
	}
	equal(t, d.Version, uint64(0)) // MetadataOnly does not open the dataset
}

func TestDropTable(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			env := catalogtest.NewEnv(t)
			c := env.Open(mode)
			info := mustCreate(t, c, "t")
			mustCreate(t, c, "keep")
			if err := c.DropTable(ctx, catalog.Ident{"t"}); err != nil {
				t.Fatal(err)
			}
			equal(t, listTables(t, c), []string{"keep"})
			if ok, _ := env.Datasets.Exists(ctx, info.Location); ok {
				t.Fatalf("dataset at %q survived the drop", info.Location)
			}
			for _, p := range env.Paths() {
				if strings.HasPrefix(p, info.Location+"/") {
					t.Fatalf("file %q of the dropped table remains", p)
				}
			}
			wantCode(t, c.DropTable(ctx, catalog.Ident{"t"}), catalog.ErrTableNotFound)
			if err := c.DropTableIfExists(ctx, catalog.Ident{"t"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDropNonexistentTableFails(t *testing.T) {
	for _, mode := range modes {
		c := catalogtest.NewEnv(t).Open(mode)
		wantCode(t, c.DropTable(ctx, catalog.Ident{"nonexistent"}), catalog.ErrTableNotFound)
	}
}

func TestCreateDuplicateTableFails(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			env := catalogtest.NewEnv(t)
			c := env.Open(mode)
			mustCreate(t, c, "t")
			before := env.TopDirs()
			_, err := c.CreateTable(ctx, catalog.Ident{"t"}, testSchema(), catalog.CreateTableOptions{})
			wantCode(t, err, catalog.ErrTableAlreadyExists)
			equal(t, env.TopDirs(), before)
		})
	}
}

func TestListTablesPagination(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := catalogtest.NewEnv(t).Open(mode)
			for _, n := range []string{"e", "c", "a", "d", "b"} {
				mustCreate(t, c, n)
			}
			page := func(o catalog.ListOptions) catalog.Page {
				p, err := c.ListTables(ctx, nil, catalog.ListTablesOptions{ListOptions: o})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			p := page(catalog.ListOptions{Limit: catalog.Limit(0)})
			if len(p.Names) != 0 || p.NextPageToken != "" {
				t.Fatalf("limit 0: %+v", p)
			}
			p = page(catalog.ListOptions{PageToken: "z"})
			if len(p.Names) != 0 || p.NextPageToken != "" {
				t.Fatalf("token past the end: %+v", p)
			}
			p = page(catalog.ListOptions{PageToken: "b", Limit: catalog.Limit(2)})
			equal(t, p, catalog.Page{Names: []string{"c", "d"}, NextPageToken: "d"})
			var all []string
			o := catalog.ListOptions{Limit: catalog.Limit(2)}
			for {
				p := page(o)
				all = append(all, p.Names...)
				if p.NextPageToken == "" {
					break
				}
				o.PageToken = p.NextPageToken
			}
			equal(t, all, []string{"a", "b", "c", "d", "e"})
		})
	}
}

func TestManyTables(t *testing.T) {
	c := catalogtest.NewEnv(t).Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	var want []string
	for i := range 150 {
		name := fmt.Sprintf("t%03d", i)
		want = append(want, name)
		mustCreate(t, c, "ns", name)
	}
	equal(t, listTables(t, c, "ns"), want)
	equal(t, listTables(t, c), []string{})
}

func TestDirectoryOnlyMode(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeDirectoryOnly)
	equal(t, listTables(t, c), []string{})
	mustCreate(t, c, "test_table")
	equal(t, listTables(t, c), []string{"test_table"})
	equal(t, env.TopDirs(), []string{"test_table.lance"})
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil), catalog.ErrUnsupported)
	_, err := c.RegisterTable(ctx, catalog.Ident{"x"}, "test_table.lance", nil)
	wantCode(t, err, catalog.ErrUnsupported)
	_, err = c.RenameTable(ctx, catalog.Ident{"test_table"}, catalog.Ident{"y"})
	wantCode(t, err, catalog.ErrUnsupported)
	b := c.NewBatch()
	b.DropTable(catalog.Ident{"test_table"}, false)
	b.DropTable(catalog.Ident{"other"}, true)
	wantCode(t, b.Commit(ctx), catalog.ErrUnsupported)
	equal(t, listNamespaces(t, c), []string{})
	if env.Manifest.Exists() {
		t.Fatal("directory-only mode touched __manifest")
	}
}

func TestNamespaces(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)

	wantCode(t, c.CreateNamespace(ctx, nil, nil), catalog.ErrNamespaceAlreadyExists)
	wantCode(t, c.DropNamespace(ctx, nil, catalog.DropNamespaceOptions{}), catalog.ErrInvalidInput)

	if err := c.CreateNamespace(ctx, catalog.Ident{"parent"}, map[string]string{"key1": "value1"}); err != nil {
		t.Fatal(err)
	}
	mustNS(t, c, "parent", "child2")
	mustNS(t, c, "parent", "child1")
	mustNS(t, c, "parent", "child1", "grandchild")
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"parent", "child1"}, nil), catalog.ErrNamespaceAlreadyExists)
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"missing", "child"}, nil), catalog.ErrNamespaceNotFound)
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"parent", "missing", "x"}, nil), catalog.ErrNamespaceNotFound)

	equal(t, listNamespaces(t, c), []string{"parent"})
	equal(t, listNamespaces(t, c, "parent"), []string{"child1", "child2"})
	equal(t, listNamespaces(t, c, "parent", "child1"), []string{"grandchild"})
	_, err := c.ListNamespaces(ctx, catalog.Ident{"missing"}, catalog.ListOptions{})
	wantCode(t, err, catalog.ErrNamespaceNotFound)
	_, err = c.ListTables(ctx, catalog.Ident{"missing"}, catalog.ListTablesOptions{})
	wantCode(t, err, catalog.ErrNamespaceNotFound)

	for _, ns := range []catalog.Ident{{}, {"parent"}, {"parent", "child1", "grandchild"}} {
		if ok, err := c.NamespaceExists(ctx, ns); err != nil || !ok {
			t.Fatalf("NamespaceExists(%q) = %v, %v", ns, ok, err)
		}
	}
	if ok, err := c.NamespaceExists(ctx, catalog.Ident{"parent", "nope"}); err != nil || ok {
		t.Fatalf("NamespaceExists(missing) = %v, %v", ok, err)
	}

	info, err := c.DescribeNamespace(ctx, catalog.Ident{"parent"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, info.Properties, map[string]string{"key1": "value1"})
	info, err = c.DescribeNamespace(ctx, catalog.Ident{"parent", "child1"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, info.Properties, map[string]string{})
	_, err = c.DescribeNamespace(ctx, catalog.Ident{"nope"})
	wantCode(t, err, catalog.ErrNamespaceNotFound)

	// Properties: set/unset on a child and on the root (table metadata).
	if err := c.AlterNamespaceProperties(ctx, catalog.Ident{"parent"}, map[string]string{"k2": "v2"}, []string{"key1"}); err != nil {
		t.Fatal(err)
	}
	info, _ = c.DescribeNamespace(ctx, catalog.Ident{"parent"})
	equal(t, info.Properties, map[string]string{"k2": "v2"})
	if err := c.AlterNamespaceProperties(ctx, nil, map[string]string{"catalog.owner": "ops"}, nil); err != nil {
		t.Fatal(err)
	}
	root, _ := c.DescribeNamespace(ctx, nil)
	equal(t, root.Properties, map[string]string{"catalog.owner": "ops"})
	snap, _ := env.Manifest.Latest(ctx)
	equal(t, snap.Metadata()["catalog.owner"], "ops")
	wantCode(t, c.AlterNamespaceProperties(ctx, nil, map[string]string{catalog.WriterFeatureFlagsKey: "0"}, nil), catalog.ErrInvalidInput)
	wantCode(t, c.AlterNamespaceProperties(ctx, catalog.Ident{"nope"}, map[string]string{"a": "b"}, nil), catalog.ErrNamespaceNotFound)

	// Drop: a non-empty namespace is refused (child namespace, then table).
	wantCode(t, c.DropNamespace(ctx, catalog.Ident{"parent", "child1"}, catalog.DropNamespaceOptions{}), catalog.ErrNamespaceNotEmpty)
	if err := c.DropNamespace(ctx, catalog.Ident{"parent", "child1", "grandchild"}, catalog.DropNamespaceOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, "parent", "child1", "t")
	wantCode(t, c.DropNamespace(ctx, catalog.Ident{"parent", "child1"}, catalog.DropNamespaceOptions{}), catalog.ErrNamespaceNotEmpty)
	if err := c.DropNamespace(ctx, catalog.Ident{"parent", "child2"}, catalog.DropNamespaceOptions{}); err != nil {
		t.Fatal(err)
	}
	equal(t, listNamespaces(t, c, "parent"), []string{"child1"})
	wantCode(t, c.DropNamespace(ctx, catalog.Ident{"parent", "child2"}, catalog.DropNamespaceOptions{}), catalog.ErrNamespaceNotFound)
	if err := c.DropNamespace(ctx, catalog.Ident{"parent", "child2"}, catalog.DropNamespaceOptions{IfExists: true}); err != nil {
		t.Fatal(err)
	}
}

func TestDropNamespaceCascade(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "a")
	mustNS(t, c, "a", "b")
	mustNS(t, c, "ab") // shares a prefix with "a" but is not under it
	t1 := mustCreate(t, c, "a", "t1")
	t2 := mustCreate(t, c, "a", "b", "t2")
	keep := mustCreate(t, c, "ab", "t3")
	if err := c.DropNamespace(ctx, catalog.Ident{"a"}, catalog.DropNamespaceOptions{Cascade: true}); err != nil {
		t.Fatal(err)
	}
	equal(t, listNamespaces(t, c), []string{"ab"})
	var ids []string
	for _, r := range env.Manifest.Rows() {
		ids = append(ids, r.ObjectID)
	}
	equal(t, ids, []string{"ab", "ab$t3"})
	for _, loc := range []string{t1.Location, t2.Location} {
		if ok, _ := env.Datasets.Exists(ctx, loc); ok {
			t.Fatalf("cascade left the data of %q", loc)
		}
	}
	if ok, _ := env.Datasets.Exists(ctx, keep.Location); !ok {
		t.Fatal("cascade removed the data of a table outside the namespace")
	}
}

func TestTablesInChildNamespaces(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	_, err := c.CreateTable(ctx, catalog.Ident{"missing", "t"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrNamespaceNotFound)
	mustNS(t, c, "test_ns")
	mustNS(t, c, "test_ns", "inner")
	info := mustCreate(t, c, "test_ns", "table")
	if !regexp.MustCompile(`^[0-9a-f]{8}_test_ns\$table$`).MatchString(info.Location) {
		t.Fatalf("location %q", info.Location)
	}
	mustCreate(t, c, "test_ns", "inner", "deep")
	equal(t, listTables(t, c, "test_ns"), []string{"table"})
	equal(t, listTables(t, c, "test_ns", "inner"), []string{"deep"})
	equal(t, listTables(t, c), []string{})
	if _, err := c.DescribeTable(ctx, catalog.Ident{"test_ns", "table"}, catalog.DescribeTableOptions{}); err != nil {
		t.Fatal(err)
	}
	all, err := c.ListAllTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, all, []catalog.Ident{{"test_ns", "inner", "deep"}, {"test_ns", "table"}})
}

func TestInvalidNamesAreRefused(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	for _, bad := range []string{"", "a$b", "a/b", "ctl\x01"} {
		_, err := c.CreateTable(ctx, catalog.Ident{bad}, testSchema(), catalog.CreateTableOptions{})
		wantCode(t, err, catalog.ErrInvalidInput)
		wantCode(t, c.CreateNamespace(ctx, catalog.Ident{bad}, nil), catalog.ErrInvalidInput)
	}
	_, err := c.CreateTable(ctx, nil, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrInvalidInput)
	equal(t, len(env.Paths()), 0)
}

// The concurrency and atomicity suite on the in-memory fakes (manifest/ runs it on the Lance
// store over local disk and object-store servers).
func TestConcurrencyOnFakes(t *testing.T) {
	catalogtest.RunConcurrencyTests(t, func(t *testing.T) catalogtest.Root {
		env := catalogtest.NewEnv(t)
		return catalogtest.Root{Store: env.Store, Options: func(*testing.T) catalog.Options { return env.Options(catalog.ModeCompatibility) }}
	})
}

func TestAlterColumns(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			c := catalogtest.NewEnv(t).Open(mode)
			mustCreate(t, c, "t")
			id := catalog.Ident{"t"}
			v, err := c.AddColumns(ctx, id, []arrow.Field{{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}})
			if err != nil || v != 2 {
				t.Fatalf("AddColumns = %d, %v", v, err)
			}
			v, err = c.RenameColumns(ctx, id, []catalog.ColumnRename{{From: "name", To: "full_name"}})
			if err != nil || v != 3 {
				t.Fatalf("RenameColumns = %d, %v", v, err)
			}
			v, err = c.DropColumns(ctx, id, []string{"score"})
			if err != nil || v != 4 {
				t.Fatalf("DropColumns = %d, %v", v, err)
			}
			d, err := c.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range d.Schema.Fields() {
				names = append(names, f.Name)
			}
			equal(t, names, []string{"id", "full_name"})

			_, err = c.AddColumns(ctx, nil, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true}})
			wantCode(t, err, catalog.ErrInvalidInput)
			_, err = c.DropColumns(ctx, nil, []string{"id"})
			wantCode(t, err, catalog.ErrInvalidInput)
			_, err = c.RenameColumns(ctx, nil, []catalog.ColumnRename{{From: "id", To: "x"}})
			wantCode(t, err, catalog.ErrInvalidInput)
			_, err = c.AddColumns(ctx, catalog.Ident{"nonexistent"}, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true}})
			wantCode(t, err, catalog.ErrTableNotFound)
			_, err = c.DropColumns(ctx, catalog.Ident{"nonexistent"}, []string{"id"})
			wantCode(t, err, catalog.ErrTableNotFound)
			_, err = c.RenameColumns(ctx, catalog.Ident{"nonexistent"}, []catalog.ColumnRename{{From: "id", To: "x"}})
			wantCode(t, err, catalog.ErrTableNotFound)
			// An unknown column is code TableColumnNotFound, with the
			// dataset's own sentinel kept as its cause.
			_, err = c.DropColumns(ctx, id, []string{"missing"})
			wantCode(t, err, catalog.ErrTableColumnNotFound)
			if !errors.Is(err, catalog.ErrDatasetColumnNotFound) {
				t.Errorf("DropColumns(missing) = %v, does not wrap ErrDatasetColumnNotFound", err)
			}
			_, err = c.RenameColumns(ctx, id, []catalog.ColumnRename{{From: "missing", To: "x"}})
			wantCode(t, err, catalog.ErrTableColumnNotFound)
			if !errors.Is(err, catalog.ErrDatasetColumnNotFound) {
				t.Errorf("RenameColumns(missing) = %v, does not wrap ErrDatasetColumnNotFound", err)
			}
			_, err = c.AddColumns(ctx, id, []arrow.Field{{Name: "nn", Type: arrow.PrimitiveTypes.Int8}})
			wantCode(t, err, catalog.ErrTableSchemaValidationError)
			_, err = c.AddColumns(ctx, id, []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int8, Nullable: true}})
			wantCode(t, err, catalog.ErrTableSchemaValidationError)
			if !errors.Is(err, catalog.ErrDatasetColumnExists) {
				t.Errorf("AddColumns(id) = %v, does not wrap ErrDatasetColumnExists", err)
			}
		})
	}
}

func TestNoFeatureFlagsByDefault(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	mustCreate(t, c, "t1")
	snap, _ := env.Manifest.Latest(ctx)
	md := snap.Metadata()
	if _, ok := md[catalog.ReaderFeatureFlagsKey]; ok {
		t.Fatal("reader feature flags set by default")
	}
	if _, ok := md[catalog.WriterFeatureFlagsKey]; ok {
		t.Fatal("writer feature flags set by default")
	}
}

func TestUnknownReaderFlagBlocksAccess(t *testing.T) {
	for _, value := range []string{"1", "4", "not-a-number"} {
		env := catalogtest.NewEnv(t)
		c := env.Open(catalog.ModeCompatibility)
		mustCreate(t, c, "t1")
		if err := env.Manifest.SetMetadata(catalog.ReaderFeatureFlagsKey, value); err != nil {
			t.Fatal(err)
		}
		_, err := catalog.Open(ctx, env.Options(catalog.ModeCompatibility))
		wantCode(t, err, catalog.ErrUnsupported)
		if !strings.Contains(strings.ToLower(err.Error()), "upgrade") {
			t.Fatalf("error %q does not say to upgrade", err)
		}
		// An already open catalog refuses too (no stale snapshot).
		_, err = c.ListTables(ctx, nil, catalog.ListTablesOptions{})
		wantCode(t, err, catalog.ErrUnsupported)
	}
	env := catalogtest.NewEnv(t)
	if err := env.Manifest.SetMetadata(catalog.ReaderFeatureFlagsKey, "0"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, env.Open(catalog.ModeCompatibility), "t") // explicit zero is fine
}

func TestUnknownWriterFlagBlocksWritesButAllowsReads(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustCreate(t, c, "t1")
	mustNS(t, c, "ns")
	mustCreate(t, c, "ns", "t")
	if err := env.Manifest.SetMetadata(catalog.WriterFeatureFlagsKey, "1"); err != nil {
		t.Fatal(err)
	}
	c2, err := catalog.Open(ctx, env.Options(catalog.ModeCompatibility))
	if err != nil {
		t.Fatalf("reads should still be allowed: %v", err)
	}
	equal(t, listTables(t, c2), []string{"t1"})
	pathsBefore := env.Paths()
	commits := env.Manifest.Commits()
	upgrade := func(err error) {
		t.Helper()
		wantCode(t, err, catalog.ErrUnsupported)
		if !strings.Contains(strings.ToLower(err.Error()), "upgrade") {
			t.Fatalf("error %q does not say to upgrade", err)
		}
	}
	_, err = c2.CreateTable(ctx, catalog.Ident{"t2"}, testSchema(), catalog.CreateTableOptions{})
	upgrade(err)
	_, err = c2.CreateTable(ctx, catalog.Ident{"ns", "t2"}, testSchema(), catalog.CreateTableOptions{})
	upgrade(err)
	_, err = c2.DeclareTable(ctx, catalog.Ident{"ns", "t3"}, nil)
	upgrade(err)
	upgrade(c2.CreateNamespace(ctx, catalog.Ident{"ns1"}, nil))
	upgrade(c2.DropTable(ctx, catalog.Ident{"t1"}))
	upgrade(c2.DropNamespace(ctx, catalog.Ident{"ns"}, catalog.DropNamespaceOptions{Cascade: true}))
	_, err = c2.AddColumns(ctx, catalog.Ident{"t1"}, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true}})
	upgrade(err)
	upgrade(c.AlterNamespaceProperties(ctx, nil, map[string]string{"a": "b"}, nil)) // the old instance too
	equal(t, env.Paths(), pathsBefore)
	equal(t, env.Manifest.Commits(), commits)
}

func ptr(s string) *string { return &s }

func TestNamesWrittenByOtherClients(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	odd := []string{"q'uote", `d"q`, "ünï", "sp ace", "semi;colon", "pct%25", "back`tick"}
	var rows []catalog.Row
	rows = append(rows, catalog.Row{ObjectID: "q'uote", ObjectType: catalog.ObjectTypeNamespace, Metadata: ptr(`{"k":"v'"}`)})
	for i, name := range odd {
		loc := fmt.Sprintf("%08x_q'uote$%s", i, name)
		rows = append(rows, catalog.Row{ObjectID: "q'uote$" + name, ObjectType: catalog.ObjectTypeTable, Location: &loc})
		if name != "q'uote" {
			rows = append(rows, catalog.Row{ObjectID: name, ObjectType: catalog.ObjectTypeNamespace})
		}
		if _, err := env.Datasets.Create(ctx, loc, testSchema(), nil); err != nil {
			t.Fatal(err)
		}
	}
	// A "$" inside what another client meant as a name can only be read as a
	// path: "we$ird" is table "ird" of namespace "we" (which has no row).
	rows = append(rows, catalog.Row{ObjectID: "we$ird", ObjectType: catalog.ObjectTypeTable, Location: ptr("abcdef01_we$ird")})
	if _, err := env.Datasets.Create(ctx, "abcdef01_we$ird", testSchema(), nil); err != nil {
		t.Fatal(err)
	}
	if err := env.Manifest.Insert(rows...); err != nil {
		t.Fatal(err)
	}

	want := append([]string(nil), odd...)
	slices.Sort(want)
	equal(t, listTables(t, c, "q'uote"), want)
	equal(t, listNamespaces(t, c), want) // every odd name is also a root namespace
	info, err := c.DescribeNamespace(ctx, catalog.Ident{"q'uote"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, info.Properties, map[string]string{"k": "v'"})
	for _, name := range odd {
		d, err := c.DescribeTable(ctx, catalog.Ident{"q'uote", name}, catalog.DescribeTableOptions{})
		if err != nil {
			t.Fatalf("describe %q: %v", name, err)
		}
		if d.Version != 1 || !strings.HasSuffix(d.Location, "$"+name) {
			t.Fatalf("describe %q: %+v", name, d)
		}
	}
	equal(t, listTables(t, c, "we"), []string{"ird"})
	if _, err := c.DescribeTable(ctx, catalog.Ident{"we", "ird"}, catalog.DescribeTableOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropTable(ctx, catalog.Ident{"we", "ird"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range odd {
		if err := c.DropTable(ctx, catalog.Ident{"q'uote", name}); err != nil {
			t.Fatalf("drop %q: %v", name, err)
		}
		if name == "q'uote" {
			continue
		}
		if err := c.DropNamespace(ctx, catalog.Ident{name}, catalog.DropNamespaceOptions{}); err != nil {
			t.Fatalf("drop namespace %q: %v", name, err)
		}
	}
	if err := c.DropNamespace(ctx, catalog.Ident{"q'uote"}, catalog.DropNamespaceOptions{}); err != nil {
		t.Fatal(err)
	}
	equal(t, env.Paths(), []string{})
	equal(t, len(env.Manifest.Rows()), 0)
}

func TestTableVersionAndUnknownRowsArePreserved(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	mustCreate(t, c, "ns", "t")
	foreign := []catalog.Row{
		{ObjectID: "ns$t$1", ObjectType: catalog.ObjectTypeTableVersion, Metadata: ptr(`{"manifest_path":"_versions/1.manifest"}`)},
		{ObjectID: "ns$t$2", ObjectType: catalog.ObjectTypeTableVersion, Metadata: ptr(`{"manifest_path":"_versions/2.manifest"}`)},
		{ObjectID: "ns$v", ObjectType: "view", Location: ptr("view_loc"), BaseObjects: []string{"ns$t"}, Extra: "ext-col-value"},
		{ObjectID: "other", ObjectType: catalog.ObjectTypeNamespace, Extra: map[string]string{"created_at": "2026"}},
	}
	if err := env.Manifest.Insert(foreign...); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c, "ns"), []string{"t"})
	all, _ := c.ListAllTables(ctx)
	equal(t, all, []catalog.Ident{{"ns", "t"}})
	// Unrelated mutations keep every foreign row, extension columns included.
	mustCreate(t, c, "ns", "u")
	if err := c.AlterNamespaceProperties(ctx, catalog.Ident{"other"}, map[string]string{"a": "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.DropTable(ctx, catalog.Ident{"ns", "u"}); err != nil {
		t.Fatal(err)
	}
	rows := map[string]catalog.Row{}
	for _, r := range env.Manifest.Rows() {
		rows[r.ObjectID] = r
	}
	for _, f := range foreign[:3] {
		equal(t, rows[f.ObjectID], f)
	}
	equal(t, rows["other"].Extra, foreign[3].Extra)
	equal(t, *rows["other"].Metadata, `{"a":"b"}`)
	// The namespace holding the view is not empty.
	wantCode(t, c.DropNamespace(ctx, catalog.Ident{"ns"}, catalog.DropNamespaceOptions{}), catalog.ErrNamespaceNotEmpty)
	// Versions follow a rename, and go with a drop.
	if _, err := c.RenameTable(ctx, catalog.Ident{"ns", "t"}, catalog.Ident{"ns", "t2"}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range env.Manifest.Rows() {
		ids[r.ObjectID] = true
	}
	if !ids["ns$t2$1"] || !ids["ns$t2$2"] || ids["ns$t$1"] {
		t.Fatalf("table versions did not follow the rename: %v", ids)
	}
	if err := c.DropTable(ctx, catalog.Ident{"ns", "t2"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range env.Manifest.Rows() {
		if strings.HasPrefix(r.ObjectID, "ns$t2$") {
			t.Fatalf("version row %q survived the drop of its table", r.ObjectID)
		}
	}
	if _, ok := ids["ns$v"]; !ok {
		t.Fatal("view row lost")
	}
}

// TestBatchPending: a batch answers what its operations so far do to a
// table or namespace (the IF [NOT] EXISTS checks of a transaction), before
// anything is committed.
func TestBatchPending(t *testing.T) {
	c := catalogtest.NewEnv(t).Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	b := c.NewBatch()
	check := func(what string, exists, touched, wantExists, wantTouched bool) {
		t.Helper()
		if exists != wantExists || touched != wantTouched {
			t.Errorf("%s: exists %v touched %v, want %v %v", what, exists, touched, wantExists, wantTouched)
		}
	}
	e, tc := b.PendingTable(catalog.Ident{"ns", "t"})
	check("empty batch", e, tc, false, false)

	b.CreateTable(catalog.Ident{"ns", "t"}, testSchema(), catalog.CreateTableOptions{})
	e, tc = b.PendingTable(catalog.Ident{"ns", "t"})
	check("created", e, tc, true, true)
	b.RenameTable(catalog.Ident{"ns", "t"}, catalog.Ident{"ns", "u"})
	e, tc = b.PendingTable(catalog.Ident{"ns", "t"})
	check("renamed away", e, tc, false, true)
	e, tc = b.PendingTable(catalog.Ident{"ns", "u"})
	check("renamed to", e, tc, true, true)
	b.DropTable(catalog.Ident{"ns", "u"}, false)
	e, tc = b.PendingTable(catalog.Ident{"ns", "u"})
	check("dropped", e, tc, false, true)
	b.AlterTableProperties(catalog.Ident{"ns", "v"}, map[string]string{"k": "v"}, nil)
	e, tc = b.PendingTable(catalog.Ident{"ns", "v"})
	check("properties only", e, tc, false, false)

	b.CreateNamespace(catalog.Ident{"ns", "sub"}, nil)
	e, tc = b.PendingNamespace(catalog.Ident{"ns", "sub"})
	check("namespace created", e, tc, true, true)
	b.DeclareTable(catalog.Ident{"ns", "sub", "d"}, nil)
	e, tc = b.PendingTable(catalog.Ident{"ns", "sub", "d"})
	check("declared", e, tc, true, true)
	b.DropNamespace(catalog.Ident{"ns"}, catalog.DropNamespaceOptions{Cascade: true})
	e, tc = b.PendingTable(catalog.Ident{"ns", "sub", "d"})
	check("dropped with its namespace", e, tc, false, true)
	e, tc = b.PendingNamespace(catalog.Ident{"ns", "sub"})
	check("namespace dropped with its parent", e, tc, false, true)
	e, tc = b.PendingNamespace(catalog.Ident{"ns"})
	check("namespace dropped", e, tc, false, true)

	b.Discard()
	e, tc = b.PendingNamespace(catalog.Ident{"ns"})
	check("discarded", e, tc, false, false)
	if ok, err := c.NamespaceExists(ctx, catalog.Ident{"ns"}); err != nil || !ok {
		t.Fatalf("nothing was committed: NamespaceExists(ns) = %v, %v", ok, err)
	}
}
