package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// recordFsyncs makes s record the OS path of every fsync instead of only syncing.
func recordFsyncs(s *localStore) func() []string {
	var mu sync.Mutex
	var got []string
	s.fsync = func(f *os.File) error {
		mu.Lock()
		got = append(got, f.Name())
		mu.Unlock()
		return f.Sync()
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(got)
		got = nil
		slices.Sort(out)
		return out
	}
}

func TestLocalDeferredSync(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	s := newLocalStore(root, DurabilityFull)
	synced := recordFsyncs(s)
	var st Store = s
	files := []string{"t/data/a.lance", "t/data/b.lance", "t/_indices/u1/page_lookup.lance"}
	for _, p := range files {
		if err := PutDeferred(ctx, st, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if got := synced(); len(got) != 0 {
		t.Fatalf("PutDeferred synced %v, want nothing before SyncAll", got)
	}
	for _, p := range files {
		if b, err := st.Read(ctx, p); err != nil || string(b) != p {
			t.Fatalf("read %s after PutDeferred: %q, %v", p, b, err)
		}
	}
	if err := SyncAll(ctx, st, files); err != nil {
		t.Fatal(err)
	}
	// Every file, the directories holding them, and every directory created on the way
	// (whose entry lives in its parent), up to the root's parent.
	want := []string{
		filepath.Dir(root), root,
		filepath.Join(root, "t"), filepath.Join(root, "t/_indices"), filepath.Join(root, "t/_indices/u1"),
		filepath.Join(root, "t/_indices/u1/page_lookup.lance"),
		filepath.Join(root, "t/data"), filepath.Join(root, "t/data/a.lance"), filepath.Join(root, "t/data/b.lance"),
	}
	slices.Sort(want)
	if got := synced(); !slices.Equal(got, want) {
		t.Fatalf("SyncAll synced\n%v\nwant\n%v", got, want)
	}
	// New directories are synced once: a later commit in the same directories syncs only
	// its files and their directories.
	if err := PutDeferred(ctx, st, "t/data/c.lance", nil); err != nil {
		t.Fatal(err)
	}
	if err := SyncAll(ctx, st, []string{"t/data/c.lance"}); err != nil {
		t.Fatal(err)
	}
	want = []string{filepath.Join(root, "t/data"), filepath.Join(root, "t/data/c.lance")}
	if got := synced(); !slices.Equal(got, want) {
		t.Fatalf("second SyncAll synced %v, want %v", got, want)
	}
	// PutIfAbsent is durable on its own: the temp file before the link, then the directory.
	if err := st.PutIfAbsent(ctx, "t/_versions/1.manifest", []byte("v")); err != nil {
		t.Fatal(err)
	}
	got := synced()
	if len(got) != 3 || !slices.Contains(got, filepath.Join(root, "t/_versions")) || !slices.Contains(got, filepath.Join(root, "t")) {
		t.Fatalf("PutIfAbsent synced %v, want its temp file, t/_versions and t", got)
	}
	// A missing object cannot be made durable.
	if err := SyncAll(ctx, st, []string{"t/data/missing.lance"}); err == nil {
		t.Fatal("SyncAll of a missing object succeeded")
	}
	if err := SyncAll(ctx, st, []string{"../x"}); !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("SyncAll of a bad path: %v, want ErrInvalidPath", err)
	}
}

func TestLocalDurabilityNoneNeverSyncs(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "root"), Options{Durability: DurabilityNone})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*localStore)
	synced := recordFsyncs(s)
	if err := st.Put(ctx, "a/b", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := st.PutIfAbsent(ctx, "a/c", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := PutDeferred(ctx, st, "a/d", []byte("3")); err != nil {
		t.Fatal(err)
	}
	if err := SyncAll(ctx, st, []string{"a/d"}); err != nil {
		t.Fatal(err)
	}
	if got := synced(); len(got) != 0 {
		t.Fatalf("durability none synced %v", got)
	}
	for p, want := range map[string]string{"a/b": "1", "a/c": "2", "a/d": "3"} {
		if b, err := st.Read(ctx, p); err != nil || string(b) != want {
			t.Fatalf("read %s: %q, %v", p, b, err)
		}
	}
}

func TestParseDurability(t *testing.T) {
	for in, want := range map[string]Durability{"": DurabilityFull, "full": DurabilityFull, "NONE": DurabilityNone, "none": DurabilityNone} {
		got, err := ParseDurability(in)
		if err != nil || got != want {
			t.Errorf("ParseDurability(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseDurability("fsync"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("ParseDurability(fsync): %v, want ErrInvalidOption", err)
	}
	if DurabilityNone.String() != "none" || DurabilityFull.String() != "full" {
		t.Error("Durability.String")
	}
}

func TestNonSyncerStoresFallBack(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, "memory://", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(Syncer); ok {
		t.Fatal("memory store claims to need syncs")
	}
	if err := PutDeferred(ctx, st, "x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := SyncAll(ctx, st, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if b, err := st.Read(ctx, "x"); err != nil || string(b) != "1" {
		t.Fatalf("read: %q, %v", b, err)
	}
	ro, err := Open(ctx, t.TempDir(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := PutDeferred(ctx, ro, "x", nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("PutDeferred on a read-only store: %v, want ErrReadOnly", err)
	}
}

// TestLocalPutIfAbsentAfterSync: the referenced objects and the new object's
// content are fsynced while the new object does not exist yet; only its
// directory entry is synced after it appears.
func TestLocalPutIfAbsentAfterSync(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	s := newLocalStore(root, DurabilityFull)
	files := []string{"t/data/a.lance", "t/_indices/u/x.lance"}
	for _, p := range files {
		if err := PutDeferred(ctx, s, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	final := filepath.Join(root, "t/_versions/1.manifest")
	var mu sync.Mutex
	var before, after []string
	s.fsync = func(f *os.File) error {
		_, err := os.Lstat(final)
		mu.Lock()
		if err == nil {
			after = append(after, f.Name())
		} else {
			before = append(before, f.Name())
		}
		mu.Unlock()
		return f.Sync()
	}
	if err := PutIfAbsentAfterSync(ctx, s, "t/_versions/1.manifest", []byte("v1"), files); err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if !slices.Contains(before, filepath.Join(root, p)) {
			t.Errorf("%s not synced before the version appeared (before: %v, after: %v)", p, before, after)
		}
	}
	temp := slices.IndexFunc(before, func(n string) bool { return isTempName(filepath.Base(n)) })
	if temp < 0 {
		t.Errorf("the version's content was not synced before it appeared: %v", before)
	}
	if !slices.Contains(after, filepath.Join(root, "t/_versions")) {
		t.Errorf("the version's directory was not synced after the link: %v", after)
	}
	if b, err := s.Read(ctx, "t/_versions/1.manifest"); err != nil || string(b) != "v1" {
		t.Fatalf("read: %q, %v", b, err)
	}
	if err := PutIfAbsentAfterSync(ctx, s, "t/_versions/1.manifest", []byte("v2"), files); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second publish: %v, want ErrAlreadyExists", err)
	}
	// A file that cannot be made durable stops the publish.
	if err := PutIfAbsentAfterSync(ctx, s, "t/_versions/2.manifest", []byte("v2"), []string{"t/data/missing.lance"}); err == nil {
		t.Fatal("published although a referenced file could not be synced")
	}
	if _, err := s.Stat(ctx, "t/_versions/2.manifest"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("version 2 exists after a failed sync: %v", err)
	}
}

// TestLocalPutIfAbsentUnsynced: the object is created atomically (an
// existing one is never replaced) with no fsync at all; a later Sync of its
// path makes it durable with the directories created for it, as for
// PutDeferred.
func TestLocalPutIfAbsentUnsynced(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	s := newLocalStore(root, DurabilityFull)
	synced := recordFsyncs(s)
	if err := PutIfAbsentDeferred(ctx, s, "t/_versions/1.manifest", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if got := synced(); len(got) != 0 {
		t.Fatalf("PutIfAbsentDeferred synced %v, want nothing", got)
	}
	if err := PutIfAbsentDeferred(ctx, s, "t/_versions/1.manifest", []byte("v2")); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second create: %v, want ErrAlreadyExists", err)
	}
	if b, err := s.Read(ctx, "t/_versions/1.manifest"); err != nil || string(b) != "v1" {
		t.Fatalf("read: %q, %v (the first content must stay)", b, err)
	}
	if err := SyncAll(ctx, s, []string{"t/_versions/1.manifest"}); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Dir(root), root, filepath.Join(root, "t"), filepath.Join(root, "t/_versions"), filepath.Join(root, "t/_versions/1.manifest")}
	slices.Sort(want)
	if got := synced(); !slices.Equal(got, want) {
		t.Fatalf("SyncAll synced\n%v\nwant\n%v", got, want)
	}
	// No temporary file is left behind.
	entries, err := os.ReadDir(filepath.Join(root, "t/_versions"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("t/_versions holds %v (%v), want only 1.manifest", entries, err)
	}
}
