package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lancecat/lancecat/internal/testservers"
)

// backend opens fresh, empty stores of one kind for the shared suite.
type backend struct {
	name string
	// fresh returns an empty store and, for local disk, the directory under it.
	fresh func(t *testing.T) (s Store, dir string)
	// reopen opens another handle on the same root (a different client for object stores).
	reopen func(t *testing.T, s Store, opts Options) Store
	// options are the storage options that reach the backend's server (nil for local and memory).
	options func(t *testing.T) map[string]string
}

var cloudPrefixCounter atomic.Int64

// cloudBackend runs the suite on an object-store emulator (internal/testservers) of one scheme,
// each store on a fresh prefix of the server's bucket.
func cloudBackend(name string, server func(testing.TB) *testservers.Server) backend {
	return cloudBackendWith(name, server, Options{})
}

// cloudBackendWith is cloudBackend with Open options (AzureBlockSize) beyond the server's
// storage options.
func cloudBackendWith(name string, server func(testing.TB) *testservers.Server, base Options) backend {
	return backend{
		name: name,
		fresh: func(t *testing.T) (Store, string) {
			srv := server(t)
			return openCloudTestWith(t, srv, fmt.Sprintf("suite-%d", cloudPrefixCounter.Add(1)), base), ""
		},
		reopen: func(t *testing.T, s Store, opts Options) Store {
			t.Helper()
			opts.StorageOptions = server(t).StorageOptions
			opts.AzureBlockSize = base.AzureBlockSize
			r, err := Open(context.Background(), s.URI(), opts)
			if err != nil {
				t.Fatalf("reopen %s: %v", s.URI(), err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		},
		options: func(t *testing.T) map[string]string { return server(t).StorageOptions },
	}
}

// openCloudTest opens a store on prefix of the test server's bucket.
func openCloudTest(t *testing.T, srv *testservers.Server, prefix string) Store {
	t.Helper()
	return openCloudTestWith(t, srv, prefix, Options{})
}

func openCloudTestWith(t *testing.T, srv *testservers.Server, prefix string, opts Options) Store {
	t.Helper()
	opts.StorageOptions = srv.StorageOptions
	s, err := Open(context.Background(), srv.URI(prefix), opts)
	if err != nil {
		t.Fatalf("open %s: %v", srv.URI(prefix), err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func suiteBackends() []backend {
	reopen := func(t *testing.T, s Store, opts Options) Store {
		t.Helper()
		r, err := Open(context.Background(), s.URI(), opts)
		if err != nil {
			t.Fatalf("reopen %s: %v", s.URI(), err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	noOptions := func(*testing.T) map[string]string { return nil }
	return []backend{
		{
			name: "local",
			fresh: func(t *testing.T) (Store, string) {
				dir := filepath.Join(t.TempDir(), "root")
				s, err := Open(context.Background(), dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { assertNoForeignFiles(t, dir) })
				return s, dir
			},
			reopen:  reopen,
			options: noOptions,
		},
		{
			name: "memory",
			fresh: func(t *testing.T) (Store, string) {
				s, err := Open(context.Background(), "memory://", Options{})
				if err != nil {
					t.Fatal(err)
				}
				return s, ""
			},
			reopen:  reopen,
			options: noOptions,
		},
		cloudBackend("s3", testservers.S3),
		cloudBackend("az", testservers.Azure),
		// Azure with a tiny block size: every object over 64 KiB (the put-if-absent races'
		// 64 KiB versions, the 1, 3 and 9 MiB objects) is staged in blocks and committed by a
		// (conditional) Put Block List.
		cloudBackendWith("az-blocks", testservers.Azure, Options{AzureBlockSize: 64 << 10}),
		cloudBackend("gs", testservers.GCS),
	}
}

// assertNoForeignFiles fails if a local store directory holds a temporary file or a gocloud
// ".attrs" sidecar: nothing but the objects themselves may appear in a Lance directory.
func assertNoForeignFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, ".attrs") || strings.HasSuffix(name, tempSuffix) {
			t.Errorf("foreign file left in store directory: %s", p)
		}
		return nil
	})
}

type suiteCase struct {
	name string
	run  func(t *testing.T, b backend, s Store)
}

func TestStoreSuite(t *testing.T) {
	for _, b := range suiteBackends() {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range suiteCases {
				t.Run(c.name, func(t *testing.T) {
					s, _ := b.fresh(t)
					defer s.Close()
					c.run(t, b, s)
				})
			}
		})
	}
}

var ctx = context.Background()

func mustPut(t *testing.T, s Store, path string, data []byte) {
	t.Helper()
	if err := s.Put(ctx, path, data); err != nil {
		t.Fatalf("Put(%q): %v", path, err)
	}
}

func mustRead(t *testing.T, s Store, path string) []byte {
	t.Helper()
	data, err := s.Read(ctx, path)
	if err != nil {
		t.Fatalf("Read(%q): %v", path, err)
	}
	return data
}

func paths(infos []ObjectInfo) []string {
	out := make([]string, len(infos))
	for i, o := range infos {
		out[i] = o.Path
	}
	return out
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var suiteCases = []suiteCase{
	{"RoundTrip", func(t *testing.T, b backend, s Store) {
		cases := []struct {
			path string
			data []byte
		}{
			{"empty", []byte{}},
			{"one", []byte{7}},
			{"a/b/c/nested.bin", []byte("nested")},
			{"_versions/18446744073709551614.manifest", randomBytes(1<<20, 1)},
			{"f0688d65_analytics$events/data/x y.lance", []byte("special characters")},
		}
		for _, c := range cases {
			mustPut(t, s, c.path, c.data)
		}
		for _, c := range cases {
			if got := mustRead(t, s, c.path); !bytes.Equal(got, c.data) {
				t.Errorf("Read(%q) = %d bytes, want %d bytes written", c.path, len(got), len(c.data))
			}
			info, err := s.Stat(ctx, c.path)
			if err != nil {
				t.Fatalf("Stat(%q): %v", c.path, err)
			}
			if info.Path != c.path || info.Size != int64(len(c.data)) || info.ModTime.IsZero() {
				t.Errorf("Stat(%q) = %+v, want size %d and a mod time", c.path, info, len(c.data))
			}
		}
		// Put replaces.
		mustPut(t, s, "one", []byte("replaced"))
		if got := mustRead(t, s, "one"); string(got) != "replaced" {
			t.Errorf("after replacing Put, Read = %q", got)
		}
	}},
	{"ReadRange", func(t *testing.T, b backend, s Store) {
		data := []byte("0123456789")
		mustPut(t, s, "r", data)
		cases := []struct {
			off, n  int64
			want    string
			wantErr error
		}{
			{0, 10, "0123456789", nil},
			{3, 4, "3456", nil},
			{9, 1, "9", nil},
			{0, 0, "", nil},
			{10, 0, "", nil}, // empty range at EOF
			{9, 2, "", ErrOutOfRange},
			{0, 11, "", ErrOutOfRange},
			{10, 1, "", ErrOutOfRange},
			{11, 0, "", ErrOutOfRange},
			{50, 5, "", ErrOutOfRange},
			{-1, 2, "", ErrOutOfRange},
			{0, -1, "", ErrOutOfRange},
		}
		for _, c := range cases {
			got, err := s.ReadRange(ctx, "r", c.off, c.n)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Errorf("ReadRange(%d, %d) = %q, %v; want %v", c.off, c.n, got, err, c.wantErr)
				}
				continue
			}
			if err != nil || string(got) != c.want {
				t.Errorf("ReadRange(%d, %d) = %q, %v; want %q", c.off, c.n, got, err, c.want)
			}
		}
		big := randomBytes(3<<20, 2)
		mustPut(t, s, "big", big)
		got, err := s.ReadRange(ctx, "big", 1<<20+17, 1<<20)
		if err != nil || !bytes.Equal(got, big[1<<20+17:2<<20+17]) {
			t.Errorf("ReadRange in a 3 MiB object: %d bytes, %v", len(got), err)
		}
	}},
	{"NotFound", func(t *testing.T, b backend, s Store) {
		mustPut(t, s, "dir/file", []byte("x"))
		for _, p := range []string{"missing", "dir/missing", "dir", "dir/file/below", "nodir/x"} {
			if _, err := s.Read(ctx, p); !errors.Is(err, ErrNotFound) {
				t.Errorf("Read(%q) error = %v, want ErrNotFound", p, err)
			}
			if _, err := s.ReadRange(ctx, p, 0, 1); !errors.Is(err, ErrNotFound) {
				t.Errorf("ReadRange(%q) error = %v, want ErrNotFound", p, err)
			}
			if _, err := s.ReadRange(ctx, p, 0, 0); !errors.Is(err, ErrNotFound) {
				t.Errorf("ReadRange(%q, 0, 0) error = %v, want ErrNotFound", p, err)
			}
			if _, err := s.Stat(ctx, p); !errors.Is(err, ErrNotFound) {
				t.Errorf("Stat(%q) error = %v, want ErrNotFound", p, err)
			}
		}
	}},
	{"InvalidPaths", func(t *testing.T, b backend, s Store) {
		bad := []string{"", "/abs", "a//b", "a/", "./a", "a/./b", "../a", "a/../b", "a/..", ".", "..",
			"nul\x00byte", "back\\slash", string([]byte{0xff, 0xfe})}
		for _, p := range bad {
			ops := map[string]error{}
			_, ops["Read"] = s.Read(ctx, p)
			_, ops["ReadRange"] = s.ReadRange(ctx, p, 0, 1)
			_, ops["Stat"] = s.Stat(ctx, p)
			ops["Put"] = s.Put(ctx, p, []byte("x"))
			ops["PutIfAbsent"] = s.PutIfAbsent(ctx, p, []byte("x"))
			ops["Delete"] = s.Delete(ctx, p)
			for op, err := range ops {
				if !errors.Is(err, ErrInvalidPath) {
					t.Errorf("%s(%q) error = %v, want ErrInvalidPath", op, p, err)
				}
			}
		}
		for _, p := range []string{"/abs/", "a//b/", "../x/", "a/./b/", "a/../", "//"} {
			if _, err := s.List(ctx, p); !errors.Is(err, ErrInvalidPath) {
				t.Errorf("List(%q) error = %v, want ErrInvalidPath", p, err)
			}
			if _, _, err := s.ListDir(ctx, p); !errors.Is(err, ErrInvalidPath) {
				t.Errorf("ListDir(%q) error = %v, want ErrInvalidPath", p, err)
			}
			if _, err := s.DeletePrefix(ctx, p); !errors.Is(err, ErrInvalidPath) {
				t.Errorf("DeletePrefix(%q) error = %v, want ErrInvalidPath", p, err)
			}
		}
		if all, err := s.List(ctx, ""); err != nil || len(all) != 0 {
			t.Errorf("invalid paths wrote something: %v, %v", paths(all), err)
		}
	}},
	{"ListOrder", func(t *testing.T, b backend, s Store) {
		keys := []string{"b", "a/b", "a-b", "a/c/d", "a0", "a/b0", "a/a", "_versions/2.manifest", "_versions/10.manifest", "ab/x"}
		sizes := map[string]int{}
		for i, k := range keys {
			data := bytes.Repeat([]byte{'x'}, i+1)
			sizes[k] = len(data)
			mustPut(t, s, k, data)
		}
		all, err := s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(keys)
		slices.Sort(want) // byte order: "a-b" < "a/a" < "a0"
		if got := paths(all); !slices.Equal(got, want) {
			t.Errorf("List(\"\") = %v, want %v", got, want)
		}
		for _, o := range all {
			if o.Size != int64(sizes[o.Path]) || o.ModTime.IsZero() {
				t.Errorf("List entry %+v: want size %d and a mod time", o, sizes[o.Path])
			}
		}
		for _, c := range []struct {
			prefix string
			want   []string
		}{
			{"a/", []string{"a/a", "a/b", "a/b0", "a/c/d"}},
			{"a", []string{"a/a", "a/b", "a/b0", "a/c/d"}}, // directory semantics: not "a-b", "a0", "ab/x"
			{"a/c/", []string{"a/c/d"}},
			{"_versions/", []string{"_versions/10.manifest", "_versions/2.manifest"}},
			{"missing/", nil},
			{"b/", nil}, // "b" is an object, not a directory
		} {
			got, err := s.List(ctx, c.prefix)
			if err != nil {
				t.Fatalf("List(%q): %v", c.prefix, err)
			}
			if !slices.Equal(paths(got), c.want) {
				t.Errorf("List(%q) = %v, want %v", c.prefix, paths(got), c.want)
			}
		}
	}},
	{"ListDir", func(t *testing.T, b backend, s Store) {
		for _, k := range []string{"t.lance/_versions/1.manifest", "t.lance/data/f.lance", "u.lance/x", "top", "a-file", "t.lance/_latest.manifest"} {
			mustPut(t, s, k, []byte(k))
		}
		for _, c := range []struct {
			dir       string
			wantFiles []string
			wantDirs  []string
		}{
			{"", []string{"a-file", "top"}, []string{"t.lance", "u.lance"}},
			{"t.lance", []string{"t.lance/_latest.manifest"}, []string{"_versions", "data"}},
			{"t.lance/", []string{"t.lance/_latest.manifest"}, []string{"_versions", "data"}},
			{"t.lance/_versions/", []string{"t.lance/_versions/1.manifest"}, nil},
			{"missing", nil, nil},
		} {
			files, dirs, err := s.ListDir(ctx, c.dir)
			if err != nil {
				t.Fatalf("ListDir(%q): %v", c.dir, err)
			}
			if !slices.Equal(paths(files), c.wantFiles) || !slices.Equal(dirs, c.wantDirs) {
				t.Errorf("ListDir(%q) = files %v dirs %v; want %v %v", c.dir, paths(files), dirs, c.wantFiles, c.wantDirs)
			}
			for _, f := range files {
				if f.Size != int64(len(f.Path)) {
					t.Errorf("ListDir(%q) entry %+v: size want %d", c.dir, f, len(f.Path))
				}
			}
		}
	}},
	{"Delete", func(t *testing.T, b backend, s Store) {
		mustPut(t, s, "keep", []byte("k"))
		mustPut(t, s, "d/sub/only", []byte("x"))
		if err := s.Delete(ctx, "d/sub/only"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Read(ctx, "d/sub/only"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Read after Delete: %v, want ErrNotFound", err)
		}
		// Deleting a missing object, twice, or below a missing directory is fine.
		for _, p := range []string{"d/sub/only", "missing", "no/such/dir/x"} {
			if err := s.Delete(ctx, p); err != nil {
				t.Errorf("Delete(%q) of a missing object: %v", p, err)
			}
		}
		// With its last object gone, a directory no longer lists.
		files, dirs, err := s.ListDir(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(paths(files), []string{"keep"}) || len(dirs) != 0 {
			t.Errorf("ListDir after delete = %v %v, want [keep] []", paths(files), dirs)
		}
		if got := mustRead(t, s, "keep"); string(got) != "k" {
			t.Errorf("unrelated object changed: %q", got)
		}
		// A directory path is not an object: Delete leaves what is below it alone.
		mustPut(t, s, "dir/x", []byte("x"))
		if err := s.Delete(ctx, "dir"); err != nil {
			t.Errorf("Delete of a directory path: %v", err)
		}
		if got := mustRead(t, s, "dir/x"); string(got) != "x" {
			t.Errorf("Delete(dir) touched dir/x")
		}
		// And a path can be written again after deletion.
		mustPut(t, s, "d/sub/only", []byte("again"))
		if got := mustRead(t, s, "d/sub/only"); string(got) != "again" {
			t.Errorf("rewrite after delete: %q", got)
		}
	}},
	{"DeletePrefix", func(t *testing.T, b backend, s Store) {
		for _, k := range []string{"t/a", "t/b/c", "t/b/d", "tt/x", "t-1", "u/v"} {
			mustPut(t, s, k, []byte(k))
		}
		n, err := s.DeletePrefix(ctx, "t/")
		if err != nil || n != 3 {
			t.Fatalf("DeletePrefix(t/) = %d, %v; want 3", n, err)
		}
		all, _ := s.List(ctx, "")
		if want := []string{"t-1", "tt/x", "u/v"}; !slices.Equal(paths(all), want) {
			t.Errorf("after DeletePrefix(t/): %v, want %v", paths(all), want)
		}
		if _, dirs, _ := s.ListDir(ctx, ""); !slices.Equal(dirs, []string{"tt", "u"}) {
			t.Errorf("after DeletePrefix(t/), dirs = %v", dirs)
		}
		if n, err := s.DeletePrefix(ctx, "missing/"); err != nil || n != 0 {
			t.Errorf("DeletePrefix(missing/) = %d, %v", n, err)
		}
		if n, err := s.DeletePrefix(ctx, "u"); err != nil || n != 1 {
			t.Errorf("DeletePrefix(u) = %d, %v; want 1", n, err)
		}
		if n, err := s.DeletePrefix(ctx, ""); err != nil || n != 2 {
			t.Errorf("DeletePrefix(\"\") = %d, %v; want 2", n, err)
		}
		if all, _ := s.List(ctx, ""); len(all) != 0 {
			t.Errorf("after DeletePrefix(\"\"): %v", paths(all))
		}
	}},
	{"PutIfAbsent", func(t *testing.T, b backend, s Store) {
		p := "_versions/18446744073709551614.manifest"
		if err := s.PutIfAbsent(ctx, p, []byte("first")); err != nil {
			t.Fatalf("first PutIfAbsent: %v", err)
		}
		err := s.PutIfAbsent(ctx, p, []byte("second"))
		if !errors.Is(err, ErrAlreadyExists) {
			t.Fatalf("second PutIfAbsent error = %v, want ErrAlreadyExists", err)
		}
		if got := mustRead(t, s, p); string(got) != "first" {
			t.Errorf("content after losing PutIfAbsent = %q, want first", got)
		}
		if err := s.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := s.PutIfAbsent(ctx, p, []byte("third")); err != nil {
			t.Errorf("PutIfAbsent after Delete: %v", err)
		}
		if err := s.PutIfAbsent(ctx, "empty", nil); err != nil {
			t.Errorf("PutIfAbsent of an empty object: %v", err)
		}
		if got := mustRead(t, s, "empty"); len(got) != 0 {
			t.Errorf("empty object read back as %d bytes", len(got))
		}
	}},
	{"LargeObjects", func(t *testing.T, b backend, s Store) {
		// Larger than S3 single-part uploads of the transfer manager (8 MiB parts).
		data := randomBytes(9<<20+3, 3)
		mustPut(t, s, "large/put", data)
		if got := mustRead(t, s, "large/put"); !bytes.Equal(got, data) {
			t.Errorf("large Put round trip differs (%d bytes read)", len(got))
		}
		if err := s.PutIfAbsent(ctx, "large/pia", data); err != nil {
			t.Fatalf("large PutIfAbsent: %v", err)
		}
		if err := s.PutIfAbsent(ctx, "large/pia", data[:10]); !errors.Is(err, ErrAlreadyExists) {
			t.Errorf("second large PutIfAbsent error = %v, want ErrAlreadyExists", err)
		}
		if got := mustRead(t, s, "large/pia"); !bytes.Equal(got, data) {
			t.Errorf("large PutIfAbsent round trip differs (%d bytes read)", len(got))
		}
	}},
	{"GoroutineRace", func(t *testing.T, b backend, s Store) {
		// Workers with their own store handles (own clients on object stores) race to create
		// the same keys; exactly one wins each, and the stored bytes are the winner's.
		const workers, keys = 8, 25
		handles := make([]Store, workers)
		for i := range handles {
			handles[i] = b.reopen(t, s, Options{})
		}
		winners := make([][]int, keys)
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range workers {
			wg.Go(func() {
				<-start
				for k := range keys {
					err := handles[w].PutIfAbsent(ctx, raceKey(k), raceContent(w, k))
					switch {
					case err == nil:
						mu.Lock()
						winners[k] = append(winners[k], w)
						mu.Unlock()
					case !errors.Is(err, ErrAlreadyExists):
						t.Errorf("worker %d key %d: %v", w, k, err)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		for k := range keys {
			if len(winners[k]) != 1 {
				t.Errorf("key %d: winners %v, want exactly one", k, winners[k])
				continue
			}
			if got := mustRead(t, s, raceKey(k)); !bytes.Equal(got, raceContent(winners[k][0], k)) {
				t.Errorf("key %d: stored content is not the winner's (%d)", k, winners[k][0])
			}
		}
	}},
	{"ReadOnly", func(t *testing.T, b backend, s Store) {
		mustPut(t, s, "x/y", []byte("data"))
		ro := b.reopen(t, s, Options{ReadOnly: true})
		if got, err := ro.Read(ctx, "x/y"); err != nil || string(got) != "data" {
			t.Errorf("read-only Read = %q, %v", got, err)
		}
		if all, err := ro.List(ctx, ""); err != nil || len(all) != 1 {
			t.Errorf("read-only List = %v, %v", all, err)
		}
		errs := map[string]error{
			"Put":         ro.Put(ctx, "new", []byte("n")),
			"PutIfAbsent": ro.PutIfAbsent(ctx, "new", []byte("n")),
			"Delete":      ro.Delete(ctx, "x/y"),
		}
		_, errs["DeletePrefix"] = ro.DeletePrefix(ctx, "")
		for op, err := range errs {
			if !errors.Is(err, ErrReadOnly) {
				t.Errorf("read-only %s error = %v, want ErrReadOnly", op, err)
			}
		}
		if all, _ := s.List(ctx, ""); !slices.Equal(paths(all), []string{"x/y"}) {
			t.Errorf("read-only store changed the data: %v", paths(all))
		}
	}},
	{"Closed", func(t *testing.T, b backend, s Store) {
		other := b.reopen(t, s, Options{})
		if err := other.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Read(ctx, "x"); !errors.Is(err, ErrClosed) {
			t.Errorf("Read after Close: %v, want ErrClosed", err)
		}
		if err := other.Put(ctx, "x", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("Put after Close: %v, want ErrClosed", err)
		}
		// Closing one handle leaves the others working.
		mustPut(t, s, "x", []byte("still open"))
	}},
	{"URIAndLocation", func(t *testing.T, b backend, s Store) {
		mustPut(t, s, "t.lance/_versions/1.manifest", []byte("m"))
		// The root URI reaches the same objects.
		same := b.reopen(t, s, Options{})
		if same.URI() != s.URI() {
			t.Errorf("reopened URI %q != %q", same.URI(), s.URI())
		}
		if got := mustRead(t, same, "t.lance/_versions/1.manifest"); string(got) != "m" {
			t.Errorf("read through reopened store: %q", got)
		}
		// Location of a directory opens a store rooted there.
		loc := s.Location("t.lance")
		if want := strings.TrimSuffix(s.URI(), "/") + "/t.lance"; loc != want {
			t.Errorf("Location(t.lance) = %q, want %q", loc, want)
		}
		sub, err := Open(ctx, loc, Options{StorageOptions: b.options(t)})
		if err != nil {
			t.Fatalf("Open(%q): %v", loc, err)
		}
		defer sub.Close()
		if sub.URI() != loc {
			t.Errorf("sub store URI %q, want %q", sub.URI(), loc)
		}
		if got := mustRead(t, sub, "_versions/1.manifest"); string(got) != "m" {
			t.Errorf("read through sub store: %q", got)
		}
		mustPut(t, sub, "data/f.lance", []byte("f"))
		if got := mustRead(t, s, "t.lance/data/f.lance"); string(got) != "f" {
			t.Errorf("sub store write not visible at parent: %q", got)
		}
		all, _ := sub.List(ctx, "")
		if want := []string{"_versions/1.manifest", "data/f.lance"}; !slices.Equal(paths(all), want) {
			t.Errorf("sub store List = %v, want %v", paths(all), want)
		}
	}},
	{"ContextCanceled", func(t *testing.T, b backend, s Store) {
		mustPut(t, s, "x", []byte("x"))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		errs := map[string]error{
			"Put":         s.Put(cctx, "y", []byte("y")),
			"PutIfAbsent": s.PutIfAbsent(cctx, "y", []byte("y")),
			"Delete":      s.Delete(cctx, "x"),
		}
		_, errs["Read"] = s.Read(cctx, "x")
		_, errs["ReadRange"] = s.ReadRange(cctx, "x", 0, 1)
		_, errs["Stat"] = s.Stat(cctx, "x")
		_, errs["List"] = s.List(cctx, "")
		_, _, errs["ListDir"] = s.ListDir(cctx, "")
		_, errs["DeletePrefix"] = s.DeletePrefix(cctx, "")
		for op, err := range errs {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s with a canceled context: %v, want context.Canceled", op, err)
			}
		}
		if got := mustRead(t, s, "x"); string(got) != "x" {
			t.Errorf("canceled operations changed x: %q", got)
		}
		if _, err := s.Stat(ctx, "y"); !errors.Is(err, ErrNotFound) {
			t.Errorf("canceled Put created y: %v", err)
		}
	}},
}

func raceKey(k int) string { return fmt.Sprintf("_versions/%020d.manifest", k) }

// raceContent is large enough that a torn or interleaved write would show.
func raceContent(writer, key int) []byte {
	head := fmt.Sprintf("writer=%d key=%d\n", writer, key)
	return append([]byte(head), bytes.Repeat([]byte{byte('A' + writer)}, 64<<10)...)
}

func TestMemorySharing(t *testing.T) {
	a, err := Open(ctx, "memory://shared-test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, a, "ns/t.lance/x", []byte("shared"))
	a.Close()
	b, err := Open(ctx, "memory://shared-test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, b, "ns/t.lance/x"); string(got) != "shared" {
		t.Errorf("second Open of memory://shared-test read %q", got)
	}
	sub, err := Open(ctx, "memory://shared-test/ns", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, sub, "t.lance/x"); string(got) != "shared" {
		t.Errorf("memory://shared-test/ns read %q", got)
	}
	other, err := Open(ctx, "memory://other-name", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Read(ctx, "ns/t.lance/x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a different name shares data: %v", err)
	}
	// memory:// with no name is a fresh store each time, reachable again through its URI.
	p1, _ := Open(ctx, "memory://", Options{})
	p2, _ := Open(ctx, "memory://", Options{})
	if p1.URI() == p2.URI() {
		t.Fatalf("two fresh memory stores share URI %q", p1.URI())
	}
	mustPut(t, p1, "k", []byte("p1"))
	if _, err := p2.Read(ctx, "k"); !errors.Is(err, ErrNotFound) {
		t.Errorf("fresh memory stores share data: %v", err)
	}
	again, err := Open(ctx, p1.URI(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, again, "k"); string(got) != "p1" {
		t.Errorf("Open(%q) read %q", p1.URI(), got)
	}
}

func TestOpenMissingLocalDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatalf("Open of a missing directory: %v", err)
	}
	if all, err := s.List(ctx, ""); err != nil || len(all) != 0 {
		t.Errorf("List of a missing root = %v, %v", all, err)
	}
	if files, dirs, err := s.ListDir(ctx, ""); err != nil || len(files)+len(dirs) != 0 {
		t.Errorf("ListDir of a missing root = %v %v %v", files, dirs, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reads created the root: %v", err)
	}
	if err := s.PutIfAbsent(ctx, "_versions/1.manifest", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "_versions", "1.manifest")); err != nil || string(got) != "v1" {
		t.Errorf("file on disk = %q, %v", got, err)
	}
}
