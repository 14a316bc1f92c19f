package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/manifest"
)

const raceNamespace = "race"

// raceCount is the number of tables each worker creates-and-drops and then
// keeps (50 as the catalog issue asks; LANCECAT_RACE_COUNT overrides it).
func raceCount() int {
	if n, err := strconv.Atoi(os.Getenv("LANCECAT_RACE_COUNT")); err == nil && n > 0 {
		return n
	}
	return 50
}

// TestMain lets the test binary act as one lancecat race worker process, or as one writer of
// the kill -9 test (crash_kill_test.go).
func TestMain(m *testing.M) {
	if spec := os.Getenv(crashWorkerEnv); spec != "" {
		os.Exit(crashWorkerMain(spec))
	}
	if spec := os.Getenv(sameNameWorkerEnv); spec != "" {
		os.Exit(sameNameWorkerMain(spec))
	}
	if root := os.Getenv("LANCECAT_RACE_WORKER_ROOT"); root != "" {
		n, _ := strconv.Atoi(os.Getenv("LANCECAT_RACE_WORKER_COUNT"))
		if err := lancecatRaceWorker(root, os.Getenv("LANCECAT_RACE_WORKER_NAME"), n); err != nil {
			fmt.Fprintln(os.Stderr, "race worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	testservers.StopAll()
	os.Exit(code)
}

// lancecatRaceWorker mirrors conformance/peer/race-worker.mjs in Go.
func lancecatRaceWorker(root, worker string, count int) error {
	ctx := context.Background()
	c, err := manifest.OpenCatalog(ctx, root, manifest.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	attempt := func(what string, fn func() error, doneOnRetry func(error) bool) error {
		for i := 0; ; i++ {
			err := fn()
			if err == nil || (i > 0 && doneOnRetry(err)) {
				return nil
			}
			if !errors.Is(err, catalog.ErrConcurrentModification) || i >= 50 {
				return fmt.Errorf("%s: %w", what, err)
			}
			time.Sleep(time.Duration(5+i) * time.Millisecond)
		}
	}
	create := func(name string) error {
		id := catalog.Ident{raceNamespace, name}
		return attempt("create "+name, func() error {
			_, err := c.CreateTable(ctx, id, schema, catalog.CreateTableOptions{})
			return err
		}, func(err error) bool { return errors.Is(err, catalog.ErrTableAlreadyExists) })
	}
	for i := 0; i < count; i++ {
		tmp := fmt.Sprintf("%s_tmp%d", worker, i)
		if err := create(tmp); err != nil {
			return err
		}
		if err := attempt("drop "+tmp, func() error { return c.DropTable(ctx, catalog.Ident{raceNamespace, tmp}) },
			func(err error) bool { return errors.Is(err, catalog.ErrTableNotFound) }); err != nil {
			return err
		}
	}
	for i := 0; i < count; i++ {
		if err := create(fmt.Sprintf("%s_keep%d", worker, i)); err != nil {
			return err
		}
	}
	return nil
}

// TestMixedProcessCatalogRace: 4 lancecat processes and 2 peer processes
// create and drop tables in one namespace at once, and create tables they
// keep. At the end both implementations list exactly the kept tables, the
// `__manifest` holds no duplicate object_id, and the peer opens every table.
func TestMixedProcessCatalogRace(t *testing.T) {
	peer.Require(t)
	if testing.Short() {
		t.Skip("multi-process race: skipped in -short mode")
	}
	ctx := context.Background()
	root := t.TempDir()
	c, err := manifest.OpenCatalog(ctx, root, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateNamespace(ctx, catalog.Ident{raceNamespace}, nil); err != nil {
		t.Fatal(err)
	}
	count := raceCount()
	peerDir, err := peer.Dir()
	if err != nil {
		t.Fatal(err)
	}
	var workers []string
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	start := time.Now()
	for i := 0; i < 4; i++ {
		name := fmt.Sprintf("go%d", i)
		workers = append(workers, name)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "LANCECAT_RACE_WORKER_ROOT="+root, "LANCECAT_RACE_WORKER_NAME="+name,
			"LANCECAT_RACE_WORKER_COUNT="+strconv.Itoa(count))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("lancecat worker %s: %v: %s", name, err, out)
			}
		}()
	}
	for i := 0; i < 2; i++ {
		name := fmt.Sprintf("peer%d", i)
		workers = append(workers, name)
		cmd := exec.Command("node", "race-worker.mjs", root, raceNamespace, name, strconv.Itoa(count))
		cmd.Dir = peerDir
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("peer worker %s: %v: %s", name, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	t.Logf("6 workers x %d tables: %s", count, time.Since(start))

	var want []string
	for _, w := range workers {
		for i := 0; i < count; i++ {
			want = append(want, fmt.Sprintf("%s_keep%d", w, i))
		}
	}
	sort.Strings(want)

	page, err := c.ListTables(ctx, catalog.Ident{raceNamespace}, catalog.ListTablesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(page.Names, want) {
		t.Errorf("lancecat lists %d tables, want the %d kept ones; extra %v missing %v", len(page.Names), len(want), diff(page.Names, want), diff(want, page.Names))
	}
	var pt struct {
		Tables []string `json:"tables"`
	}
	if err := peer.Op(ctx, t, "tableNames", map[string]any{"uri": root, "namespace": []string{raceNamespace}, "limit": 100000}, &pt); err != nil {
		t.Fatal(err)
	}
	sort.Strings(pt.Tables)
	if !slices.Equal(pt.Tables, want) {
		t.Errorf("peer lists %d tables, want the %d kept ones; extra %v missing %v", len(pt.Tables), len(want), diff(pt.Tables, want), diff(want, pt.Tables))
	}
	// No duplicate object ids in __manifest.
	snap, err := manifest.NewManifestTable(c.Store).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := snap.Scan(ctx, catalog.RowFilter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.ObjectID]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("object_id %q appears %d times", id, n)
		}
	}
	// The peer opens every kept table (one process for all of them).
	cmd := exec.Command("node", append([]string{"race-worker.mjs", "--open", root, raceNamespace}, want...)...)
	cmd.Dir = peerDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("peer cannot open every kept table: %v: %s", err, out)
	}
}

func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
