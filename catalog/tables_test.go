package catalog_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/catalog/catalogtest"
)

// v1Fixture lays out root directories as another (V1) client would.
func v1Fixture(t *testing.T, env *catalogtest.Env) {
	t.Helper()
	for _, loc := range []string{"a.lance", "b.lance", "c.lance", "shadow.lance"} {
		if _, err := env.Datasets.Create(ctx, loc, testSchema(), nil); err != nil {
			t.Fatal(err)
		}
	}
	put := func(p string) {
		if err := env.Store.Put(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	put("b.lance/" + catalog.DeregisteredMarker) // deregistered: skipped
	put("d.lance/" + catalog.ReservedMarker)     // declared only
	put("notatable/file")                        // not *.lance
	put(".lance/x")                              // empty name
}

func TestV1ListingMergeRules(t *testing.T) {
	env := catalogtest.NewEnv(t)
	v1Fixture(t, env)
	c := env.Open(catalog.ModeCompatibility)
	// A manifest table named like a V1 directory wins (listed once, at its
	// manifest location); c.lance is the location of manifest table "renamed".
	mustCreate(t, c, "m") // -> m.lance
	if err := env.Manifest.Insert(
		catalog.Row{ObjectID: "shadow", ObjectType: catalog.ObjectTypeTable, Location: ptr("0000beef_shadow")},
		catalog.Row{ObjectID: "renamed", ObjectType: catalog.ObjectTypeTable, Location: ptr("c.lance")},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Datasets.Create(ctx, "0000beef_shadow", testSchema(), nil); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"a", "d", "m", "renamed", "shadow"})
	d, err := c.DescribeTable(ctx, catalog.Ident{"shadow"}, catalog.DescribeTableOptions{MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, d.Location, "0000beef_shadow")

	p, err := c.ListTables(ctx, nil, catalog.ListTablesOptions{ExcludeDeclared: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, p.Names, []string{"a", "m", "renamed", "shadow"})

	all, err := c.ListAllTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, all, []catalog.Ident{{"a"}, {"d"}, {"m"}, {"renamed"}, {"shadow"}})

	// V1 tables resolve by directory.
	for name, want := range map[string]bool{"a": true, "b": false, "d": true, "nope": false} {
		if ok, err := c.TableExists(ctx, catalog.Ident{name}); err != nil || ok != want {
			t.Fatalf("TableExists(%q) = %v, %v; want %v", name, ok, err, want)
		}
	}
	da, err := c.DescribeTable(ctx, catalog.Ident{"a"}, catalog.DescribeTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !da.V1 || da.Location != "a.lance" || da.Version != 1 {
		t.Fatalf("describe V1 table: %+v", da)
	}
	dd, err := c.DescribeTable(ctx, catalog.Ident{"d"}, catalog.DescribeTableOptions{})
	if err != nil || !dd.DeclaredOnly {
		t.Fatalf("describe declared V1 table: %+v, %v", dd, err)
	}
	// Creating over a V1 table fails; over a deregistered one it moves to a hash dir.
	_, err = c.CreateTable(ctx, catalog.Ident{"a"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	nb, err := c.CreateTable(ctx, catalog.Ident{"b"}, testSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}_b$`).MatchString(nb.Location) {
		t.Fatalf("new table over a deregistered V1 directory went to %q", nb.Location)
	}

	// Deregister a V1 table: marker written, data kept, no longer listed.
	if _, err := c.DeregisterTable(ctx, catalog.Ident{"a"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := env.Datasets.Exists(ctx, "a.lance"); !ok {
		t.Fatal("deregister removed data")
	}
	if slices.Contains(listTables(t, c), "a") {
		t.Fatal("deregistered V1 table still listed")
	}
	_, err = c.DeregisterTable(ctx, catalog.Ident{"a"})
	wantCode(t, err, catalog.ErrTableNotFound)
	// Drop works on a deregistered V1 directory and removes it.
	if err := c.DropTable(ctx, catalog.Ident{"a"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range env.Paths() {
		if strings.HasPrefix(p, "a.lance/") {
			t.Fatalf("%q left after drop", p)
		}
	}

	// Manifest-only mode ignores the directories.
	mo := env.Open(catalog.ModeManifestOnly)
	equal(t, listTables(t, mo), []string{"b", "m", "renamed", "shadow"})
	if ok, _ := mo.TableExists(ctx, catalog.Ident{"d"}); ok {
		t.Fatal("manifest-only mode resolved a V1 directory")
	}
	// Directory-only mode sees only the directories.
	do := env.Open(catalog.ModeDirectoryOnly)
	equal(t, listTables(t, do), []string{"c", "d", "m", "shadow"})
}

func TestDeclareTable(t *testing.T) {
	for _, ns := range []catalog.Ident{nil, {"ns"}} {
		t.Run(ns.String(), func(t *testing.T) {
			env := catalogtest.NewEnv(t)
			c := env.Open(catalog.ModeCompatibility)
			mustNS(t, c, "ns")
			id := append(slices.Clone(ns), "t")
			info, err := c.DeclareTable(ctx, id, map[string]string{"p": "1"})
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := env.Store.Stat(ctx, info.Location+"/"+catalog.ReservedMarker); ok.Path == "" {
				t.Fatalf("no %s in %q", catalog.ReservedMarker, info.Location)
			}
			d, err := c.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
			if err != nil || !d.DeclaredOnly || d.Schema != nil {
				t.Fatalf("describe declared: %+v, %v", d, err)
			}
			equal(t, d.Properties, map[string]string{"p": "1"})
			_, err = c.DescribeTable(ctx, id, catalog.DescribeTableOptions{Version: 1})
			wantCode(t, err, catalog.ErrTableVersionNotFound)
			equal(t, listTables(t, c, ns...), []string{"t"})
			p, _ := c.ListTables(ctx, ns, catalog.ListTablesOptions{ExcludeDeclared: true})
			equal(t, p.Names, []string{})
			_, err = c.DeclareTable(ctx, id, nil)
			wantCode(t, err, catalog.ErrTableAlreadyExists)
			_, err = c.CreateTable(ctx, id, testSchema(), catalog.CreateTableOptions{Properties: map[string]string{"x": "y"}})
			wantCode(t, err, catalog.ErrInvalidInput)
			// Creating the declared table writes into the reserved directory.
			created, err := c.CreateTable(ctx, id, testSchema(), catalog.CreateTableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			equal(t, created.Location, info.Location)
			equal(t, created.Properties, map[string]string{"p": "1"})
			d, err = c.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
			if err != nil || d.DeclaredOnly || d.Version != 1 {
				t.Fatalf("describe created: %+v, %v", d, err)
			}
			_, err = c.CreateTable(ctx, id, testSchema(), catalog.CreateTableOptions{})
			wantCode(t, err, catalog.ErrTableAlreadyExists)
			if err := c.DropTable(ctx, id); err != nil {
				t.Fatal(err)
			}
			equal(t, env.TopDirs(), []string{})
		})
	}
}

func TestRegisterAndDeregisterTable(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	if _, err := env.Datasets.Create(ctx, "external/data.lance", testSchema(), nil); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"s3://bucket/t.lance", "file:///x", "/abs/t.lance", "../up.lance", "a/../b", "", "a/..b"} {
		_, err := c.RegisterTable(ctx, catalog.Ident{"ns", "r"}, bad, nil)
		wantCode(t, err, catalog.ErrInvalidInput)
	}
	_, err := c.RegisterTable(ctx, catalog.Ident{"ns", "r"}, "no/dataset/here", nil)
	wantCode(t, err, catalog.ErrInvalidInput)
	_, err = c.RegisterTable(ctx, catalog.Ident{"missing", "r"}, "external/data.lance", nil)
	wantCode(t, err, catalog.ErrNamespaceNotFound)
	info, err := c.RegisterTable(ctx, catalog.Ident{"ns", "r"}, "external/data.lance", map[string]string{"src": "ext"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, info.URI, env.Store.URI()+"/external/data.lance")
	_, err = c.RegisterTable(ctx, catalog.Ident{"ns", "r"}, "external/data.lance", nil)
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	equal(t, listTables(t, c, "ns"), []string{"r"})
	d, err := c.DescribeTable(ctx, catalog.Ident{"ns", "r"}, catalog.DescribeTableOptions{})
	if err != nil || d.Location != "external/data.lance" || d.Version != 1 {
		t.Fatalf("describe registered: %+v, %v", d, err)
	}
	out, err := c.DeregisterTable(ctx, catalog.Ident{"ns", "r"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, out.Properties, map[string]string{"src": "ext"})
	equal(t, listTables(t, c, "ns"), []string{})
	if ok, _ := env.Datasets.Exists(ctx, "external/data.lance"); !ok {
		t.Fatal("deregister removed the data")
	}
	_, err = c.DeregisterTable(ctx, catalog.Ident{"ns", "r"})
	wantCode(t, err, catalog.ErrTableNotFound)
}

func TestRenameTable(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "a")
	mustNS(t, c, "b")
	src, err := c.CreateTable(ctx, catalog.Ident{"a", "t"}, testSchema(), catalog.CreateTableOptions{Properties: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, "a", "other")
	commits := env.Manifest.Commits()
	moved, err := c.RenameTable(ctx, catalog.Ident{"a", "t"}, catalog.Ident{"a", "t2"})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, env.Manifest.Commits(), commits+1) // one atomic commit
	equal(t, moved.Location, src.Location)      // no data moves
	equal(t, listTables(t, c, "a"), []string{"other", "t2"})
	if _, err := c.RenameTable(ctx, catalog.Ident{"a", "t2"}, catalog.Ident{"b", "t3"}); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c, "a"), []string{"other"})
	equal(t, listTables(t, c, "b"), []string{"t3"})
	d, err := c.DescribeTable(ctx, catalog.Ident{"b", "t3"}, catalog.DescribeTableOptions{})
	if err != nil || d.Location != src.Location || d.Version != 1 {
		t.Fatalf("describe renamed: %+v, %v", d, err)
	}
	equal(t, d.Properties, map[string]string{"k": "v"})

	_, err = c.RenameTable(ctx, catalog.Ident{"b", "t3"}, catalog.Ident{"a", "other"})
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	_, err = c.RenameTable(ctx, catalog.Ident{"a", "missing"}, catalog.Ident{"a", "x"})
	wantCode(t, err, catalog.ErrTableNotFound)
	_, err = c.RenameTable(ctx, catalog.Ident{"b", "t3"}, catalog.Ident{"nope", "x"})
	wantCode(t, err, catalog.ErrNamespaceNotFound)
	_, err = c.RenameTable(ctx, catalog.Ident{"b", "t3"}, catalog.Ident{"b", "x$y"})
	wantCode(t, err, catalog.ErrInvalidInput)

	// A compatibility-named root table keeps its directory, which the
	// manifest then owns: no ghost V1 table, and the old name can be reused.
	root := mustCreate(t, c, "r")
	equal(t, root.Location, "r.lance")
	if _, err := c.RenameTable(ctx, catalog.Ident{"r"}, catalog.Ident{"r2"}); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"r2"})
	again := mustCreate(t, c, "r")
	if again.Location == "r.lance" {
		t.Fatal("new table reused the directory of the renamed one")
	}
	equal(t, listTables(t, c), []string{"r", "r2"})
	d, _ = c.DescribeTable(ctx, catalog.Ident{"r2"}, catalog.DescribeTableOptions{MetadataOnly: true})
	equal(t, d.Location, "r.lance")

	// A V1-only table enters the manifest under its new name.
	if _, err := env.Datasets.Create(ctx, "legacy.lance", testSchema(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RenameTable(ctx, catalog.Ident{"legacy"}, catalog.Ident{"b", "modern"}); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"r", "r2"})
	equal(t, listTables(t, c, "b"), []string{"modern", "t3"})
}

func TestBatchIsAtomic(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "base")
	commits := env.Manifest.Commits()

	b := c.NewBatch()
	b.CreateNamespace(catalog.Ident{"sales"}, map[string]string{"owner": "x"})
	b.CreateTable(catalog.Ident{"sales", "orders"}, testSchema(), catalog.CreateTableOptions{}) // sees the namespace above
	b.DeclareTable(catalog.Ident{"sales", "later"}, nil)
	b.CreateTable(catalog.Ident{"tmp"}, testSchema(), catalog.CreateTableOptions{})
	b.DropTable(catalog.Ident{"tmp"}, false) // sees the table above
	b.AlterNamespaceProperties(catalog.Ident{"base"}, map[string]string{"k": "v"}, nil)
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	equal(t, env.Manifest.Commits(), commits+1)
	equal(t, listTables(t, c, "sales"), []string{"later", "orders"})
	equal(t, listTables(t, c), []string{})
	for _, d := range env.TopDirs() {
		if d == "tmp.lance" {
			t.Fatal("the table created and dropped in the batch left its directory")
		}
	}
	info, _ := c.DescribeNamespace(ctx, catalog.Ident{"base"})
	equal(t, info.Properties, map[string]string{"k": "v"})

	// A failing operation fails the whole batch and undoes its side effects.
	before, rows := env.Paths(), env.Manifest.Rows()
	commits = env.Manifest.Commits()
	b = c.NewBatch()
	b.CreateTable(catalog.Ident{"sales", "t1"}, testSchema(), catalog.CreateTableOptions{})
	b.DeclareTable(catalog.Ident{"sales", "t2"}, nil)
	b.CreateNamespace(catalog.Ident{"newns"}, nil)
	b.CreateTable(catalog.Ident{"sales", "orders"}, testSchema(), catalog.CreateTableOptions{}) // exists
	wantCode(t, b.Commit(ctx), catalog.ErrTableAlreadyExists)
	equal(t, env.Paths(), before)
	equal(t, env.Manifest.Rows(), rows)
	equal(t, env.Manifest.Commits(), commits)

	// The final commit failing undoes the side effects too.
	env.Manifest.BeforeCommit = func(uint64, *catalog.ManifestChange) error { return errorString("boom") }
	b = c.NewBatch()
	b.CreateTable(catalog.Ident{"sales", "t1"}, testSchema(), catalog.CreateTableOptions{})
	b.DeclareTable(catalog.Ident{"t2"}, nil)
	wantCode(t, b.Commit(ctx), catalog.ErrInternal)
	equal(t, env.Paths(), before)
	env.Manifest.BeforeCommit = nil

	// Drops in a batch remove directories only after the commit landed.
	b = c.NewBatch()
	b.DropTable(catalog.Ident{"sales", "orders"}, false)
	b.DropNamespace(catalog.Ident{"sales"}, catalog.DropNamespaceOptions{Cascade: true})
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	equal(t, listNamespaces(t, c), []string{"base"})
	equal(t, env.TopDirs(), []string{})
	if err := c.NewBatch().Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestReadOnly(t *testing.T) {
	env := catalogtest.NewEnv(t)
	opts := env.Options(catalog.ModeCompatibility)
	opts.ReadOnly = true
	c, err := catalog.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{})
	wantCode(t, c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil), catalog.ErrPermissionDenied)
	_, err = c.CreateTable(ctx, catalog.Ident{"t"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrPermissionDenied)
	_, err = c.DropColumns(ctx, catalog.Ident{"t"}, []string{"id"})
	wantCode(t, err, catalog.ErrPermissionDenied)
	if env.Manifest.Exists() || len(env.Paths()) != 0 {
		t.Fatal("a read-only catalog wrote")
	}
}

func TestManifestIsCreatedByTheFirstWriteOnly(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	equal(t, listNamespaces(t, c), []string{})
	if env.Manifest.Exists() {
		t.Fatal("open or read created __manifest")
	}
	wantCode(t, c.DropTable(ctx, catalog.Ident{"x"}), catalog.ErrTableNotFound)
	if env.Manifest.Exists() {
		t.Fatal("a failed write created __manifest")
	}
	mustNS(t, c, "ns")
	equal(t, env.Manifest.Version(), uint64(2)) // created (1), then the namespace (2)
}

func TestVacuum(t *testing.T) {
	env := catalogtest.NewEnv(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	env.Manifest.Now = func() time.Time { return now }
	opts := env.Options(catalog.ModeCompatibility)
	opts.AutoVacuumEvery = 3
	opts.AutoVacuumOptions = catalog.VacuumOptions{Retention: time.Minute, KeepVersionFiles: true}
	c, err := catalog.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		mustNS(t, c, string(rune('a'+i)))
		now = now.Add(10 * time.Minute)
	}
	runs, lastErr := c.AutoVacuumStats()
	if runs != 1 || lastErr != nil {
		t.Fatalf("auto-vacuum runs %d, err %v", runs, lastErr)
	}
	// Versions 1..5 exist; at the 3rd commit (version 4) versions 1 and 2
	// had been superseded for more than a minute.
	equal(t, env.Manifest.Vacuumed(), []uint64{1, 2})

	// Latest always kept; default retention one hour.
	now = now.Add(45 * time.Minute)
	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, env.Manifest.Vacuumed(), []uint64{1, 2, 3})
	equal(t, rep.VersionsRemoved, 1)
	equal(t, rep.OldestKept, uint64(4))
	now = now.Add(10 * time.Hour)
	rep, err = c.Vacuum(ctx, catalog.DefaultVacuumOptions())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, env.Manifest.Vacuumed(), []uint64{1, 2, 3, 4})
	equal(t, rep.VersionsRemoved, 0) // version files kept
	equal(t, rep.OldestKept, uint64(5))
	equal(t, listNamespaces(t, c), []string{"a", "b", "c", "d"})
	_, err = c.Vacuum(ctx, catalog.VacuumOptions{Retention: -time.Second})
	wantCode(t, err, catalog.ErrInvalidInput)
}

func TestTableProperties(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	mustNS(t, c, "ns")
	if _, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, testSchema(), catalog.CreateTableOptions{Properties: map[string]string{"a": "1", "b": "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.AlterTableProperties(ctx, catalog.Ident{"ns", "t"}, map[string]string{"c": "3"}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	b := c.NewBatch()
	b.AlterTableProperties(catalog.Ident{"ns", "t"}, map[string]string{"d": "4"}, []string{"b"})
	b.AlterNamespaceProperties(nil, map[string]string{"r": "x"}, nil)
	equal(t, b.Len(), 2)
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, catalog.Ident{"ns", "t"}, catalog.DescribeTableOptions{MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, d.Properties, map[string]string{"c": "3", "d": "4"})
	if err := c.AlterNamespaceProperties(ctx, nil, nil, []string{"r"}); err != nil {
		t.Fatal(err)
	}
	root, _ := c.DescribeNamespace(ctx, nil)
	equal(t, root.Properties, map[string]string{})
	wantCode(t, c.AlterTableProperties(ctx, catalog.Ident{"ns", "missing"}, map[string]string{"x": "y"}, nil), catalog.ErrTableNotFound)
	if _, err := env.Datasets.Create(ctx, "v1.lance", testSchema(), nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.AlterTableProperties(ctx, catalog.Ident{"v1"}, map[string]string{"x": "y"}, nil), catalog.ErrUnsupported)
	b = c.NewBatch()
	b.DropTable(catalog.Ident{"ns", "t"}, false)
	b.Discard()
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c, "ns"), []string{"t"})
}

func TestDirectoryOnlyDeregisterAndDrop(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeDirectoryOnly)
	mustCreate(t, c, "t")
	mustCreate(t, c, "u")
	if _, err := c.DeregisterTable(ctx, catalog.Ident{"t"}); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"u"})
	_, err := c.DescribeTable(ctx, catalog.Ident{"t"}, catalog.DescribeTableOptions{})
	wantCode(t, err, catalog.ErrTableNotFound)
	// The name stays taken by the preserved data.
	_, err = c.CreateTable(ctx, catalog.Ident{"t"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrTableAlreadyExists)
	if err := c.DropTable(ctx, catalog.Ident{"t"}); err != nil {
		t.Fatal(err)
	}
	equal(t, env.TopDirs(), []string{"u.lance"})
	_, err = c.DeclareTable(ctx, catalog.Ident{"d"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, catalog.Ident{"d"}, catalog.DescribeTableOptions{})
	if err != nil || !d.DeclaredOnly || !d.V1 {
		t.Fatalf("%+v %v", d, err)
	}
	wantCode(t, c.DropNamespace(ctx, catalog.Ident{"x"}, catalog.DropNamespaceOptions{}), catalog.ErrNamespaceNotFound)
	_, err = c.CreateTable(ctx, catalog.Ident{"ns", "t"}, testSchema(), catalog.CreateTableOptions{})
	wantCode(t, err, catalog.ErrUnsupported)
}

// A root table created in compatibility mode lives in "<name>.lance"; when
// it is deregistered its directory must not bring it back through the
// directory listing.
func TestDeregisterCompatRootTableStaysDeregistered(t *testing.T) {
	env := catalogtest.NewEnv(t)
	c := env.Open(catalog.ModeCompatibility)
	info, err := c.CreateTable(ctx, catalog.Ident{"rt"}, testSchema(), catalog.CreateTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, info.Location, "rt.lance")
	if _, err := c.DeregisterTable(ctx, catalog.Ident{"rt"}); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{})
	if ok, err := c.TableExists(ctx, catalog.Ident{"rt"}); err != nil || ok {
		t.Fatalf("deregistered root table: exists=%v err=%v", ok, err)
	}
	if ok, _ := env.Datasets.Exists(ctx, "rt.lance"); !ok {
		t.Fatal("deregister removed the data")
	}
	// It can be registered again from its directory.
	if _, err := c.RegisterTable(ctx, catalog.Ident{"again"}, "rt.lance", nil); err != nil {
		t.Fatal(err)
	}
	equal(t, listTables(t, c), []string{"again"})
}
