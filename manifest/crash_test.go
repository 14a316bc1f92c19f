package manifest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/failpoint"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

// crashMutation is one catalog mutation the crash test stops at each of its steps.
type crashMutation struct {
	name  string
	setup func(ctx context.Context, c *catalog.Catalog) error
	run   func(ctx context.Context, c *catalog.Catalog) error
}

func crashMutations() []crashMutation {
	ns := func(ctx context.Context, c *catalog.Catalog) error {
		return c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil)
	}
	withTable := func(ctx context.Context, c *catalog.Catalog) error {
		if err := ns(ctx, c); err != nil {
			return err
		}
		_, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, eventsSchema(), catalog.CreateTableOptions{})
		return err
	}
	return []crashMutation{
		{name: "CreateNamespace", run: ns},
		{name: "CreateTable", setup: ns, run: func(ctx context.Context, c *catalog.Catalog) error {
			_, err := c.CreateTable(ctx, catalog.Ident{"ns", "u"}, eventsSchema(), catalog.CreateTableOptions{})
			return err
		}},
		{name: "DeclareTable", setup: ns, run: func(ctx context.Context, c *catalog.Catalog) error {
			_, err := c.DeclareTable(ctx, catalog.Ident{"ns", "d"}, nil)
			return err
		}},
		{name: "DropTable", setup: withTable, run: func(ctx context.Context, c *catalog.Catalog) error {
			return c.DropTable(ctx, catalog.Ident{"ns", "t"})
		}},
		{name: "RenameTable", setup: withTable, run: func(ctx context.Context, c *catalog.Catalog) error {
			_, err := c.RenameTable(ctx, catalog.Ident{"ns", "t"}, catalog.Ident{"ns", "r"})
			return err
		}},
		{name: "DropNamespaceCascade", setup: withTable, run: func(ctx context.Context, c *catalog.Catalog) error {
			return c.DropNamespace(ctx, catalog.Ident{"ns"}, catalog.DropNamespaceOptions{Cascade: true})
		}},
	}
}

// crashCase is one crashed catalog, checked by lancecat at once and by the reference afterwards
// (one node process for every case).
type crashCase struct {
	name   string
	root   string
	ns     []string            // lancecat's root namespaces after vacuum
	tables map[string][]string // lancecat's tables of the root ("") and of each root namespace
	// declared are the dotted names of declared-only tables (no data: nothing to open).
	declared map[string]bool
	checked  bool
}

// TestCrashAtEveryStep stops each catalog mutation at each step it passes (files staged, indices
// written, version published, manifest committed, each post-commit directory removal), as a
// crash would: the writer is abandoned mid-way, nothing after the step runs. Then lancecat opens
// the catalog, every listed table that is not declared-only opens, and vacuum with a zero window
// removes every directory and staged file the catalog does not own; finally the reference opens
// every crashed catalog, lists the same namespaces and tables as lancecat, and opens every table.
func TestCrashAtEveryStep(t *testing.T) {
	peer.Require(t)
	// Crashed catalogs live under the parent test's directory: the reference reads them all
	// after the subtests (whose own temporary directories are gone by then).
	base := t.TempDir()
	var cases []*crashCase
	for _, m := range crashMutations() {
		// A clean run records the steps the mutation passes.
		root := t.TempDir()
		ctx := context.Background()
		if m.setup != nil {
			if err := m.setup(ctx, open(t, root).Catalog); err != nil {
				t.Fatalf("%s setup: %v", m.name, err)
			}
		}
		rec := failpoint.Record()
		err := m.run(ctx, open(t, root).Catalog)
		steps := rec.Hits()
		rec.Disarm()
		if err != nil {
			t.Fatalf("%s clean run: %v", m.name, err)
		}
		if len(steps) == 0 {
			t.Fatalf("%s passed no failpoint", m.name)
		}
		count := map[string]int{}
		for _, step := range steps {
			count[step]++
			cc := &crashCase{name: fmt.Sprintf("%s/%s#%d", m.name, step, count[step])}
			nth := count[step]
			t.Run(cc.name, func(t *testing.T) {
				crashAt(t, m, step, nth, filepath.Join(base, fmt.Sprint(len(cases))), cc)
			})
			cases = append(cases, cc)
		}
	}
	// The reference reads every crashed catalog.
	var uris []string
	for _, cc := range cases {
		if cc.checked {
			uris = append(uris, cc.root)
		}
	}
	var trees struct {
		Catalogs []struct {
			URI        string              `json:"uri"`
			Namespaces []string            `json:"namespaces"`
			Tables     map[string][]string `json:"tables"`
			OpenErrors []string            `json:"openErrors"`
			Error      *string             `json:"error"`
		} `json:"catalogs"`
	}
	if err := peer.Op(context.Background(), t, "catalogTrees", map[string]any{"uris": uris}, &trees); err != nil {
		t.Fatalf("peer catalogTrees: %v", err)
	}
	byURI := map[string]int{}
	for i, c := range trees.Catalogs {
		byURI[c.URI] = i
	}
	for _, cc := range cases {
		if !cc.checked {
			continue
		}
		i, ok := byURI[cc.root]
		if !ok {
			t.Errorf("%s: the reference did not report on %s", cc.name, cc.root)
			continue
		}
		got := trees.Catalogs[i]
		if got.Error != nil {
			t.Errorf("%s: the reference cannot read the catalog: %s", cc.name, *got.Error)
			continue
		}
		for _, e := range got.OpenErrors {
			if name, _, _ := strings.Cut(e, ":"); cc.declared[name] {
				continue
			}
			t.Errorf("%s: the reference cannot open a listed table: %s", cc.name, e)
		}
		if !slices.Equal(nonNilStrings(got.Namespaces), nonNilStrings(cc.ns)) {
			t.Errorf("%s: namespaces: the reference lists %v, lancecat %v", cc.name, got.Namespaces, cc.ns)
		}
		for n, want := range cc.tables {
			if !slices.Equal(nonNilStrings(got.Tables[n]), nonNilStrings(want)) {
				t.Errorf("%s: tables of %q: the reference lists %v, lancecat %v", cc.name, n, got.Tables[n], want)
			}
		}
	}
}

func crashAt(t *testing.T, m crashMutation, step string, nth int, root string, cc *crashCase) {
	ctx := context.Background()
	if m.setup != nil {
		if err := m.setup(ctx, open(t, root).Catalog); err != nil {
			t.Fatalf("setup: %v", err)
		}
	}
	h := failpoint.Arm(step, nth)
	defer h.Disarm()
	done := make(chan error, 1)
	victim := open(t, root)
	go func() { done <- m.run(ctx, victim.Catalog) }()
	select {
	case <-h.Fired():
		// Crashed at the step: the goroutine is parked for good; the handle is abandoned.
	case err := <-done:
		t.Fatalf("the mutation finished (err %v) without reaching %s #%d", err, step, nth)
	case <-time.After(time.Minute):
		t.Fatalf("neither finished nor reached %s #%d in a minute", step, nth)
	}
	h.Disarm()

	c := open(t, root)
	listing(ctx, t, c, nil)
	// Vacuum with a zero window (every file is older than "now" an hour ahead).
	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Nanosecond, Now: time.Now().Add(time.Hour), KeepVersionFiles: true})
	if err != nil {
		t.Fatalf("vacuum: %v", err)
	}
	// What is left is owned: top-level directories are __manifest or table locations, and
	// every __manifest data/index file belongs to the latest version.
	owned := map[string]bool{catalog.ManifestDir: true}
	ids, err := c.ListAllTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		d, err := c.DescribeTable(ctx, id, catalog.DescribeTableOptions{MetadataOnly: true})
		if err != nil {
			t.Fatalf("describe %v: %v", id, err)
		}
		top, _, _ := strings.Cut(d.Location, "/")
		owned[top] = true
	}
	_, dirs, err := c.Store.ListDir(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !owned[d] {
			t.Errorf("after vacuum (%+v): directory %s is owned by no catalog entry", rep, d)
		}
	}
	checkOnlyLatestFiles(t, c.Store)
	cc.root = root
	cc.declared = map[string]bool{}
	cc.ns, cc.tables = listing(ctx, t, c, cc.declared)
	cc.checked = !t.Failed()
}

// listing returns lancecat's root namespaces and the tables of the root and of each root
// namespace, checking that every listed table that is not declared-only opens.
func listing(ctx context.Context, t *testing.T, c *Catalog, declared map[string]bool) ([]string, map[string][]string) {
	t.Helper()
	nsPage, err := c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil {
		t.Fatalf("lancecat lists namespaces: %v", err)
	}
	tables := map[string][]string{}
	for _, n := range append([]string{""}, nsPage.Names...) {
		var ns catalog.Ident
		if n != "" {
			ns = catalog.Ident{n}
		}
		page, err := c.ListTables(ctx, ns, catalog.ListTablesOptions{})
		if err != nil {
			t.Fatalf("lancecat lists tables of %v: %v", ns, err)
		}
		tables[n] = page.Names
		for _, name := range page.Names {
			id := append(slices.Clone(ns), name)
			d, err := c.DescribeTable(ctx, id, catalog.DescribeTableOptions{})
			if err != nil {
				t.Errorf("listed table %v does not open: %v", id, err)
				continue
			}
			if d.DeclaredOnly && declared != nil {
				declared[strings.Join(id, ".")] = true
			}
		}
	}
	return nsPage.Names, tables
}

// checkOnlyLatestFiles asserts that after a zero-window vacuum every `__manifest` data and index
// file belongs to the latest version, and every file that version references exists.
func checkOnlyLatestFiles(t *testing.T, store storage.Store) {
	t.Helper()
	ctx := context.Background()
	ref := map[string]bool{}
	ds, err := dataset.Open(ctx, store, catalog.ManifestDir, dataset.OpenOptions{})
	if errors.Is(err, dataset.ErrNotFound) {
		// No version landed: nothing of __manifest may be left.
		if objs, _ := store.List(ctx, catalog.ManifestDir+"/"); len(objs) != 0 {
			t.Errorf("after vacuum: %d files of a __manifest that never committed are left", len(objs))
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ds.Fragments() {
		for _, df := range f.Files {
			ref[path.Join(catalog.ManifestDir, "data", df.Path)] = true
		}
	}
	for _, ix := range ds.Indices() {
		for _, f := range ix.Files {
			ref[path.Join(catalog.ManifestDir, "_indices", ix.UUID, f.Path)] = true
		}
	}
	for _, dir := range []string{"data", "_indices"} {
		objs, err := store.List(ctx, path.Join(catalog.ManifestDir, dir)+"/")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if !ref[o.Path] {
				t.Errorf("after vacuum: staged file %s is referenced by no kept version", o.Path)
			}
			delete(ref, o.Path)
		}
	}
	for p := range ref {
		t.Errorf("after vacuum: file %s of the latest version is missing", p)
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestVacuumOrphanDirsRules: vacuum removes a root directory no catalog entry owns once it is
// older than the window, keeps one written within the window (a mutation may be in flight), and
// never removes a compatibility-mode root table (*.lance) or a table's directory.
func TestVacuumOrphanDirsRules(t *testing.T) {
	ctx := context.Background()
	c := open(t, t.TempDir())
	if err := c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, eventsSchema(), catalog.CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"deadbeef_ns$gone/_versions/1.manifest", "root_t.lance/_versions/1.manifest"} {
		if err := c.Store.Put(ctx, p, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	dirs := func() []string {
		_, d, err := c.Store.ListDir(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Within the default window nothing young is touched.
	if _, err := c.Vacuum(ctx, catalog.DefaultVacuumOptions()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(dirs(), "deadbeef_ns$gone") {
		t.Fatalf("a directory younger than the window was removed: %v", dirs())
	}
	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Nanosecond, Now: time.Now().Add(time.Hour), KeepVersionFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	got := dirs()
	if slices.Contains(got, "deadbeef_ns$gone") || rep.OrphanDirsRemoved != 1 {
		t.Errorf("orphan not removed (report %+v): %v", rep, got)
	}
	if !slices.Contains(got, "root_t.lance") || !slices.Contains(got, catalog.ManifestDir) {
		t.Errorf("vacuum removed a root table or __manifest: %v", got)
	}
	if _, err := c.DescribeTable(ctx, catalog.Ident{"ns", "t"}, catalog.DescribeTableOptions{}); err != nil {
		t.Errorf("vacuum broke a listed table: %v", err)
	}
}
