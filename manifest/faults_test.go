package manifest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
	"github.com/lancecat/lancecat/storage/storagetest"
)

// faultCatalog opens a catalog whose every store call goes through fs.
func faultCatalog(t *testing.T, fs storage.Store) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), catalog.Options{
		Root:          catalog.StoreDir(fs),
		Manifest:      NewManifestTable(fs),
		Datasets:      NewDatasets(fs),
		CommitRetries: 5,
		RetryBackoff:  time.Millisecond,
	})
	if err != nil {
		t.Fatalf("open catalog on the fault store: %v", err)
	}
	return c
}

func storePaths(t *testing.T, s storage.Store) []string {
	t.Helper()
	objs, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		// The version hint is advisory and may lag or lead; it is not state.
		if strings.HasSuffix(o.Path, "latest_version_hint.json") {
			continue
		}
		out = append(out, o.Path)
	}
	return out
}

// TestCommitPathsUnderStoreFaults injects each object-store failure at each store call of a
// catalog mutation's commit path and checks the outcome against what landed: a reported success
// is listed by a fresh client; a reported failure is not, and left every object as it was (staged
// data and index files cleaned), unless the error says the outcome is unknown; in every case the
// catalog still opens and every listed table describes.
func TestCommitPathsUnderStoreFaults(t *testing.T) {
	const (
		manifestVersions = catalog.ManifestDir + "/_versions/"
		manifestData     = catalog.ManifestDir + "/data/"
		manifestIndices  = catalog.ManifestDir + "/_indices/"
		tableVersions    = "ns$t/_versions/"
	)
	type mutation struct {
		name string
		// setup runs on the clean store; run is the mutation under faults; landed says,
		// from a fresh client, whether run's change is in the catalog.
		setup  func(ctx context.Context, c *catalog.Catalog) error
		run    func(ctx context.Context, c *catalog.Catalog) error
		landed func(ctx context.Context, c *catalog.Catalog) (bool, error)
		// mayCreateManifest: a failed run may leave the empty `__manifest` (version 1).
		mayCreateManifest bool
	}
	nsSetup := func(ctx context.Context, c *catalog.Catalog) error {
		return c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil)
	}
	mutations := []mutation{
		{
			name:  "CreateTable",
			setup: nsSetup,
			run: func(ctx context.Context, c *catalog.Catalog) error {
				_, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, eventsSchema(), catalog.CreateTableOptions{})
				return err
			},
			landed: func(ctx context.Context, c *catalog.Catalog) (bool, error) {
				return c.TableExists(ctx, catalog.Ident{"ns", "t"})
			},
		},
		{
			// On a catalog that has its `__manifest` (creating the empty table on the
			// first write is a step of its own, and a valid catalog if the rest fails).
			name: "CreateNamespace",
			setup: func(ctx context.Context, c *catalog.Catalog) error {
				return c.CreateNamespace(ctx, catalog.Ident{"other"}, nil)
			},
			run: nsSetup,
			landed: func(ctx context.Context, c *catalog.Catalog) (bool, error) {
				return c.NamespaceExists(ctx, catalog.Ident{"ns"})
			},
		},
		{
			name: "DropTable",
			setup: func(ctx context.Context, c *catalog.Catalog) error {
				if err := nsSetup(ctx, c); err != nil {
					return err
				}
				_, err := c.CreateTable(ctx, catalog.Ident{"ns", "t"}, eventsSchema(), catalog.CreateTableOptions{})
				return err
			},
			run: func(ctx context.Context, c *catalog.Catalog) error {
				return c.DropTable(ctx, catalog.Ident{"ns", "t"})
			},
			landed: func(ctx context.Context, c *catalog.Catalog) (bool, error) {
				ok, err := c.TableExists(ctx, catalog.Ident{"ns", "t"})
				return !ok, err
			},
		},
	}
	faults := []storagetest.Rule{
		{Op: storagetest.OpPutIfAbsent, PathContains: manifestVersions, Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpPutIfAbsent, PathContains: manifestVersions, Nth: 1, Fault: storagetest.FailAfter},
		{Op: storagetest.OpPutIfAbsent, PathContains: manifestVersions, Nth: 1, Fault: storagetest.ConflictBefore},
		{Op: storagetest.OpPutIfAbsent, PathContains: manifestVersions, Nth: 1, Fault: storagetest.ConflictAfter},
		{Op: storagetest.OpPut, PathContains: manifestData, Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpPut, PathContains: manifestData, Nth: 1, Fault: storagetest.FailAfter},
		{Op: storagetest.OpPut, PathContains: manifestIndices, Nth: 2, Fault: storagetest.FailAfter},
		{Op: storagetest.OpPutIfAbsent, PathContains: tableVersions, Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpPutIfAbsent, PathContains: tableVersions, Nth: 1, Fault: storagetest.FailAfter},
		{Op: storagetest.OpPutIfAbsent, PathContains: tableVersions, Nth: 1, Fault: storagetest.ConflictAfter},
		{Op: storagetest.OpRead, PathContains: manifestVersions, Nth: 1, Fault: storagetest.ShortRead},
		{Op: storagetest.OpReadRange, PathContains: manifestData, Nth: 1, Fault: storagetest.ShortRead},
		{Op: storagetest.OpRead, PathContains: manifestVersions, Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpDeletePrefix, PathContains: "ns$t", Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpDelete, PathContains: "ns$t", Nth: 1, Fault: storagetest.FailBefore},
		{Op: storagetest.OpPutIfAbsent, PathContains: manifestVersions, Nth: 1, Fault: storagetest.Slow, Delay: time.Second},
	}
	// The first write of an empty root creates `__manifest`; faults there too.
	mutations = append(mutations, mutation{
		name:              "FirstWrite",
		run:               nsSetup,
		landed:            mutations[1].landed,
		mayCreateManifest: true,
	})
	seq := 0
	for _, m := range mutations {
		for _, rule := range faults {
			seq++
			name := fmt.Sprintf("%s/%s_%s_%s#%d", m.name, rule.Op, strings.Trim(strings.ReplaceAll(rule.PathContains, "/", "_"), "_"), rule.Fault, rule.Nth)
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				inner, err := storage.Open(ctx, fmt.Sprintf("memory://faults-%d/lake", seq), storage.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _, _ = inner.DeletePrefix(ctx, ""); inner.Close() }()
				if m.setup != nil {
					if err := m.setup(ctx, faultCatalog(t, inner)); err != nil {
						t.Fatalf("setup: %v", err)
					}
				}
				before := storePaths(t, inner)
				fs := storagetest.New(inner, rule)
				runCtx := ctx
				if rule.Fault == storagetest.Slow {
					var cancel context.CancelFunc
					runCtx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
					defer cancel()
				}
				runErr := m.run(runCtx, faultCatalog(t, fs))
				fired := fs.Fired()

				fresh := faultCatalog(t, inner)
				landed, err := m.landed(ctx, fresh)
				if err != nil {
					t.Fatalf("after %v (err %v): the catalog does not read: %v", fired, runErr, err)
				}
				unknown := errors.Is(runErr, catalog.ErrCommitOutcomeUnknown)
				switch {
				case runErr == nil && !landed:
					t.Fatalf("faults %v: success reported, but the change is not in the catalog", fired)
				case runErr != nil && landed && !unknown:
					t.Fatalf("faults %v: failure reported (%v), but the change landed", fired, runErr)
				case runErr != nil && !landed && !unknown:
					after := storePaths(t, inner)
					if m.mayCreateManifest {
						after = slices.DeleteFunc(after, func(p string) bool {
							return strings.HasPrefix(p, catalog.ManifestDir+"/_transactions/0-") ||
								p == manifestVersions+"18446744073709551614.manifest"
						})
					}
					if !slices.Equal(after, before) {
						t.Errorf("faults %v: failed (%v) but the store changed: added %v, removed %v",
							fired, runErr, setMinus(after, before), setMinus(before, after))
					}
				}
				if unknown && !errors.Is(runErr, catalog.ErrServiceUnavailable) {
					t.Errorf("outcome-unknown error %v is not ServiceUnavailable", runErr)
				}
				// Whatever happened, the catalog lists and every listed table describes.
				tables, err := fresh.ListAllTables(ctx)
				if err != nil {
					t.Fatalf("list after faults %v: %v", fired, err)
				}
				for _, id := range tables {
					if _, err := fresh.DescribeTable(ctx, id, catalog.DescribeTableOptions{}); err != nil {
						t.Errorf("faults %v: listed table %v does not open: %v", fired, id, err)
					}
				}
				t.Logf("faults %v: err=%v landed=%v", fired, runErr, landed)
			})
		}
	}
}

// setMinus returns the elements of a that are not in b.
func setMinus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
