package manifest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
)

// catalogModel is the reference model of a catalog: which namespaces (one level) and tables
// exist. It predicts every operation's outcome: nil, or the sentinel the catalog must answer.
type catalogModel struct {
	namespaces map[string]bool
	tables     map[string]map[string]bool // namespace -> table names
}

func newCatalogModel() *catalogModel {
	return &catalogModel{namespaces: map[string]bool{}, tables: map[string]map[string]bool{}}
}

// modelOp is one operation on the model and on a real catalog.
type modelOp struct {
	kind   string // createNS, dropNS, createTable, dropTable, renameTable
	ns     string
	table  string
	rename string
}

func (o modelOp) String() string {
	return fmt.Sprintf("%s(%s %s %s)", o.kind, o.ns, o.table, o.rename)
}

// apply updates the model and returns the error the catalog must report (nil: success).
func (m *catalogModel) apply(o modelOp) error {
	switch o.kind {
	case "createNS":
		if m.namespaces[o.ns] {
			return catalog.ErrNamespaceAlreadyExists
		}
		m.namespaces[o.ns] = true
		m.tables[o.ns] = map[string]bool{}
	case "dropNS":
		switch {
		case !m.namespaces[o.ns]:
			return catalog.ErrNamespaceNotFound
		case len(m.tables[o.ns]) > 0:
			return catalog.ErrNamespaceNotEmpty
		}
		delete(m.namespaces, o.ns)
		delete(m.tables, o.ns)
	case "createTable":
		switch {
		case !m.namespaces[o.ns]:
			return catalog.ErrNamespaceNotFound
		case m.tables[o.ns][o.table]:
			return catalog.ErrTableAlreadyExists
		}
		m.tables[o.ns][o.table] = true
	case "dropTable":
		if !m.namespaces[o.ns] || !m.tables[o.ns][o.table] {
			return catalog.ErrTableNotFound
		}
		delete(m.tables[o.ns], o.table)
	case "renameTable":
		switch {
		case !m.namespaces[o.ns] || !m.tables[o.ns][o.table]:
			return catalog.ErrTableNotFound
		case m.tables[o.ns][o.rename]:
			return catalog.ErrTableAlreadyExists
		}
		delete(m.tables[o.ns], o.table)
		m.tables[o.ns][o.rename] = true
	}
	return nil
}

func runModelOp(ctx context.Context, c *catalog.Catalog, o modelOp) error {
	switch o.kind {
	case "createNS":
		return c.CreateNamespace(ctx, catalog.Ident{o.ns}, nil)
	case "dropNS":
		return c.DropNamespace(ctx, catalog.Ident{o.ns}, catalog.DropNamespaceOptions{})
	case "createTable":
		_, err := c.CreateTable(ctx, catalog.Ident{o.ns, o.table}, eventsSchema(), catalog.CreateTableOptions{})
		return err
	case "dropTable":
		return c.DropTable(ctx, catalog.Ident{o.ns, o.table})
	case "renameTable":
		_, err := c.RenameTable(ctx, catalog.Ident{o.ns, o.table}, catalog.Ident{o.ns, o.rename})
		return err
	}
	return fmt.Errorf("unknown op %s", o.kind)
}

// randomOp draws an operation on worker w's own namespaces (so the model predicts every outcome
// exactly while the workers still race for every `__manifest` commit).
func randomOp(rng *rand.Rand, w int) modelOp {
	ns := fmt.Sprintf("w%d_n%d", w, rng.IntN(2))
	table := fmt.Sprintf("t%d", rng.IntN(3))
	kinds := []string{"createNS", "createNS", "dropNS", "createTable", "createTable", "createTable", "dropTable", "renameTable"}
	return modelOp{kind: kinds[rng.IntN(len(kinds))], ns: ns, table: table, rename: fmt.Sprintf("t%d", rng.IntN(3))}
}

// TestCatalogMatchesModel runs seeded random operation sequences from several workers, each with
// its own catalog handle (as separate processes would have), on a real Lance catalog. Every
// operation's outcome matches the model (success or the typed error it predicts), and after
// every round the catalog, read by a fresh handle, equals the model.
func TestCatalogMatchesModel(t *testing.T) {
	const workers, rounds = 3, 30
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			ctx := context.Background()
			uri := fmt.Sprintf("memory://model-%d-%d", seed, time.Now().UnixNano())
			handles := make([]*catalog.Catalog, workers)
			for w := range handles {
				c, err := OpenCatalog(ctx, uri, Options{Catalog: catalog.Options{CommitRetries: 200, RetryBackoff: time.Millisecond}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				handles[w] = c.Catalog
			}
			model := newCatalogModel()
			rngs := make([]*rand.Rand, workers)
			for w := range rngs {
				rngs[w] = rand.New(rand.NewPCG(seed, uint64(w)))
			}
			succeeded := 0
			defer func() { t.Logf("%d of %d operations succeeded", succeeded, workers*rounds) }()
			for round := range rounds {
				ops := make([]modelOp, workers)
				want := make([]error, workers)
				for w := range ops {
					ops[w] = randomOp(rngs[w], w)
					want[w] = model.apply(ops[w]) // workers touch disjoint objects: order-free
				}
				got := make([]error, workers)
				var wg sync.WaitGroup
				for w := range ops {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got[w] = runModelOp(ctx, handles[w], ops[w])
					}()
				}
				wg.Wait()
				for w := range ops {
					if got[w] == nil {
						succeeded++
					}
					if (want[w] == nil) != (got[w] == nil) || (want[w] != nil && !errors.Is(got[w], want[w])) {
						t.Fatalf("round %d worker %d %v: catalog answered %v, the model %v", round, w, ops[w], got[w], want[w])
					}
				}
				fresh, err := OpenCatalog(ctx, uri, Options{})
				if err != nil {
					t.Fatal(err)
				}
				compareWithModel(ctx, t, fresh.Catalog, model, round)
				fresh.Close()
			}
		})
	}
}

func compareWithModel(ctx context.Context, t *testing.T, c *catalog.Catalog, m *catalogModel, round int) {
	t.Helper()
	page, err := c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wantNS []string
	for ns := range m.namespaces {
		wantNS = append(wantNS, ns)
	}
	sort.Strings(wantNS)
	if !slices.Equal(nonNilStrings(page.Names), nonNilStrings(wantNS)) {
		t.Fatalf("round %d: namespaces %v, model %v", round, page.Names, wantNS)
	}
	for _, ns := range wantNS {
		tp, err := c.ListTables(ctx, catalog.Ident{ns}, catalog.ListTablesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for tb := range m.tables[ns] {
			want = append(want, tb)
		}
		sort.Strings(want)
		if !slices.Equal(nonNilStrings(tp.Names), nonNilStrings(want)) {
			t.Fatalf("round %d: tables of %s %v, model %v", round, ns, tp.Names, want)
		}
	}
}
