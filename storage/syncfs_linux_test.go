package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// testSyncers is a private fsSyncers for one store: it counts syncfs calls
// (failing them while fail is set) and reports paths under an "other"
// directory as another device.
type testSyncers struct {
	*fsSyncers
	mu    sync.Mutex
	calls int
	fail  bool
}

func useTestSyncers(s *localStore) *testSyncers {
	ts := &testSyncers{}
	real := newFSSyncers()
	ts.fsSyncers = &fsSyncers{
		byDev: map[uint64]*fsSyncer{},
		syncfs: func(f *os.File) error {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.calls++
			if ts.fail {
				return syscall.EIO
			}
			if real != nil {
				return real.syncfs(f)
			}
			return nil
		},
		devOf: func(p string) (uint64, bool) {
			fi, err := os.Stat(p)
			if err != nil {
				return 0, false
			}
			dev := uint64(fi.Sys().(*syscall.Stat_t).Dev)
			if strings.Contains(p, string(filepath.Separator)+"other") {
				dev++
			}
			return dev, true
		},
	}
	s.syncers = ts.fsSyncers
	return ts
}

func (ts *testSyncers) count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := ts.calls
	ts.calls = 0
	return n
}

// deferTables writes n files the way a transaction of n CREATE TABLE does:
// each in new directories, without a sync.
func deferTables(t *testing.T, st Store, prefix string, n int) []string {
	t.Helper()
	var paths []string
	for i := range n {
		p := fmt.Sprintf("%s/t%04d/_versions/1.manifest", prefix, i)
		if err := PutDeferred(context.Background(), st, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestLocalLargeRoundSyncsFileSystemOnce: a round of syncs of at least
// syncfsMinPaths paths is one syncfs of the root's file system, no fsync
// of paths on it; paths on another device are still fsynced one by one;
// small rounds fsync every path.
func TestLocalLargeRoundSyncsFileSystemOnce(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	s := newLocalStore(root, DurabilityFull)
	ts := useTestSyncers(s)
	synced := recordFsyncs(s)
	var st Store = s
	// 200 tables: 200 files, 400 new directories, the prefix and the root.
	paths := deferTables(t, st, "big", 200)
	if s.syncer.Load() == nil {
		t.Fatal("no file system descriptor taken before the first deferred write")
	}
	others := deferTables(t, st, "other", 3)
	if got := synced(); len(got) != 0 {
		t.Fatalf("deferred writes synced %v", got)
	}
	if err := SyncAll(ctx, st, append(paths, others...)); err != nil {
		t.Fatal(err)
	}
	if n := ts.count(); n != 1 {
		t.Fatalf("%d syncfs calls for a round of %d files, want 1", n, len(paths)+len(others))
	}
	got := synced()
	for _, p := range got {
		if !strings.Contains(p, string(filepath.Separator)+"other") {
			t.Errorf("%s fsynced although the syncfs covered it", p)
		}
	}
	// The other device's files, their new directories and the directory
	// "other" itself.
	if want := 3 + 2*3 + 1; len(got) != want {
		t.Errorf("fsynced %d paths on the other device, want %d: %v", len(got), want, got)
	}
	// New directories were consumed by the syncfs: the next small round
	// in them syncs only its file and directory, with fsync.
	if err := PutDeferred(ctx, st, "big/t0000/_versions/2.manifest", nil); err != nil {
		t.Fatal(err)
	}
	if err := SyncAll(ctx, st, []string{"big/t0000/_versions/2.manifest"}); err != nil {
		t.Fatal(err)
	}
	if n, got := ts.count(), synced(); n != 0 || len(got) != 2 {
		t.Fatalf("small round: %d syncfs calls, fsynced %v; want none and the file and its directory", n, got)
	}
	// A large PutIfAbsentAfterSync (a commit publishing 200 new tables)
	// syncs them with the version's content in one syncfs, then the
	// version's directory with fsync.
	paths = deferTables(t, st, "big2", 200)
	if err := st.PutIfAbsent(ctx, "big2/_versions/1.manifest", []byte("v")); err != nil {
		t.Fatal(err)
	}
	synced()
	if err := PutIfAbsentAfterSync(ctx, st, "big2/_versions/2.manifest", []byte("v2"), paths); err != nil {
		t.Fatal(err)
	}
	if n, got := ts.count(), synced(); n != 1 || len(got) != 1 || got[0] != filepath.Join(root, "big2", "_versions") {
		t.Fatalf("large publish: %d syncfs calls, fsynced %v; want 1 and the version's directory", n, got)
	}
}

// TestLocalSyncfsErrorFallsBackToFsync: when syncfs reports an error the
// round fsyncs every path instead (each file's own error decides), and the
// file system is never synced with syncfs again.
func TestLocalSyncfsErrorFallsBackToFsync(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	s := newLocalStore(root, DurabilityFull)
	ts := useTestSyncers(s)
	synced := recordFsyncs(s)
	var st Store = s
	ts.fail = true
	paths := deferTables(t, st, "a", 200)
	if err := SyncAll(ctx, st, paths); err != nil {
		t.Fatal(err)
	}
	if n := ts.count(); n != 1 {
		t.Fatalf("%d syncfs calls, want 1", n)
	}
	got := synced()
	for _, p := range paths {
		if !containsString(got, s.osPath(p)) {
			t.Fatalf("%s not fsynced after syncfs failed", p)
		}
	}
	ts.fail = false
	paths = deferTables(t, st, "b", 200)
	if err := SyncAll(ctx, st, paths); err != nil {
		t.Fatal(err)
	}
	if n, got := ts.count(), synced(); n != 0 || len(got) < len(paths) {
		t.Fatalf("after an error: %d syncfs calls and %d fsyncs, want none and every path", n, len(got))
	}
	// A failing fsync still fails the round.
	s.fsync = func(*os.File) error { return syscall.EIO }
	paths = deferTables(t, st, "c", 200)
	if err := SyncAll(ctx, st, paths); err == nil {
		t.Fatal("round with failing fsyncs succeeded")
	}
}

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestKernelAtLeast(t *testing.T) {
	for rel, want := range map[string]bool{
		"6.18.44-fc-v1045": true, "5.8.0": true, "5.10.0-28-amd64": true, "5.7.19": false,
		"4.19.0": false, "5.8": true, "5.8-rc1": true, "5": false, "": false, "x.y": false,
	} {
		if got := kernelAtLeast(rel, 5, 8); got != want {
			t.Errorf("kernelAtLeast(%q, 5, 8) = %v, want %v", rel, got, want)
		}
	}
}
