package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Environment of the child processes of TestLocalPutIfAbsentCrossProcess.
const (
	raceEnvDir     = "LANCECAT_STORAGE_RACE_DIR"     // the store root
	raceEnvOut     = "LANCECAT_STORAGE_RACE_OUT"     // where a child reports its wins
	raceEnvWriter  = "LANCECAT_STORAGE_RACE_WRITER"  // the child's writer number
	raceEnvBarrier = "LANCECAT_STORAGE_RACE_BARRIER" // directory of ready/go files
)

const (
	raceProcs = 8
	raceKeys  = 50
)

// TestLocalPutIfAbsentCrossProcess runs PutIfAbsent on the same keys from several OS
// processes (this test binary re-executed) at once: each key must have exactly one winner
// across processes, and the stored content must be the winner's.
func TestLocalPutIfAbsentCrossProcess(t *testing.T) {
	if os.Getenv(raceEnvDir) != "" {
		t.Skip("running as a race child")
	}
	root := filepath.Join(t.TempDir(), "store")
	out := t.TempDir()
	barrier := t.TempDir()
	var cmds []*exec.Cmd
	var outputs []*bytes.Buffer
	for w := range raceProcs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLocalPutIfAbsentRaceChild$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			raceEnvDir+"="+root, raceEnvOut+"="+out, raceEnvBarrier+"="+barrier,
			raceEnvWriter+"="+strconv.Itoa(w))
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		outputs = append(outputs, &buf)
	}
	// Release the children together once all are ready, so that they contend for every key.
	deadline := time.Now().Add(60 * time.Second)
	for {
		entries, _ := os.ReadDir(barrier)
		if len(entries) >= raceProcs {
			break
		}
		if time.Now().After(deadline) {
			for _, c := range cmds {
				c.Process.Kill()
			}
			t.Fatalf("children not ready after 60s (%d ready)", len(entries))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(barrier, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outputs[i])
		}
	}
	winners := make([][]int, raceKeys)
	for w := range raceProcs {
		data, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("wins-%d", w)))
		if err != nil {
			t.Fatalf("child %d left no report: %v\n%s", w, err, outputs[w])
		}
		for f := range strings.FieldsSeq(string(data)) {
			k, err := strconv.Atoi(f)
			if err != nil || k < 0 || k >= raceKeys {
				t.Fatalf("child %d: bad report %q", w, f)
			}
			winners[k] = append(winners[k], w)
		}
	}
	s, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int]bool{}
	for k := range raceKeys {
		if len(winners[k]) != 1 {
			t.Errorf("key %d: winners %v, want exactly one", k, winners[k])
			continue
		}
		distinct[winners[k][0]] = true
		if got := mustRead(t, s, raceKey(k)); !bytes.Equal(got, raceContent(winners[k][0], k)) {
			t.Errorf("key %d: stored content is not winner %d's", k, winners[k][0])
		}
	}
	all, _ := s.List(ctx, "")
	if len(all) != raceKeys {
		t.Errorf("store holds %d objects, want %d", len(all), raceKeys)
	}
	assertNoForeignFiles(t, root)
	t.Logf("%d processes, %d keys: winners came from %d distinct processes", raceProcs, raceKeys, len(distinct))
}

// TestLocalPutIfAbsentRaceChild is one contender of TestLocalPutIfAbsentCrossProcess; it does
// nothing unless started by it.
func TestLocalPutIfAbsentRaceChild(t *testing.T) {
	root := os.Getenv(raceEnvDir)
	if root == "" {
		t.Skip("only runs as a child of TestLocalPutIfAbsentCrossProcess")
	}
	w, err := strconv.Atoi(os.Getenv(raceEnvWriter))
	if err != nil {
		t.Fatal(err)
	}
	barrier := os.Getenv(raceEnvBarrier)
	s, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	payloads := make([][]byte, raceKeys)
	for k := range payloads {
		payloads[k] = raceContent(w, k)
	}
	if err := os.WriteFile(filepath.Join(barrier, fmt.Sprintf("ready-%d", w)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(barrier, "go")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no go signal")
		}
	}
	var wins []string
	for k := range raceKeys {
		err := s.PutIfAbsent(ctx, raceKey(k), payloads[k])
		switch {
		case err == nil:
			wins = append(wins, strconv.Itoa(k))
		case !errors.Is(err, ErrAlreadyExists):
			t.Fatalf("key %d: %v", k, err)
		}
	}
	report := filepath.Join(os.Getenv(raceEnvOut), fmt.Sprintf("wins-%d", w))
	if err := os.WriteFile(report, []byte(strings.Join(wins, " ")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// flakyCtx reports cancellation from its n-th Err call on, to cancel a write midway.
type flakyCtx struct {
	context.Context
	calls atomic.Int64
	after int64
}

func (c *flakyCtx) Err() error {
	if c.calls.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Failed writes leave neither a temporary file nor a partial object behind.
func TestLocalFailedWritesLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := randomBytes(3*writeChunk+5, 4)

	// Canceled in the middle of writing the temporary file.
	for after := int64(1); after <= 5; after++ {
		fctx := &flakyCtx{Context: ctx, after: after}
		err := s.Put(fctx, "d/obj", data)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put canceled after %d checks: %v", after, err)
		}
		fctx = &flakyCtx{Context: ctx, after: after}
		if err := s.PutIfAbsent(fctx, "d/obj", data); !errors.Is(err, context.Canceled) {
			t.Fatalf("PutIfAbsent canceled after %d checks: %v", after, err)
		}
		if names := dirNames(t, filepath.Join(dir, "d")); len(names) != 0 {
			t.Fatalf("canceled after %d checks: left %v", after, names)
		}
	}

	// Losing PutIfAbsent.
	mustPut(t, s, "d/obj", []byte("winner"))
	if err := s.PutIfAbsent(ctx, "d/obj", data); !errors.Is(err, ErrAlreadyExists) {
		t.Fatal(err)
	}
	// Destination is a directory: rename and link both fail.
	mustPut(t, s, "d/isdir/child", []byte("c"))
	if err := s.Put(ctx, "d/isdir", data); err == nil {
		t.Fatal("Put over a directory succeeded")
	}
	if err := s.PutIfAbsent(ctx, "d/isdir", data); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("PutIfAbsent over a directory: %v", err)
	}
	// Parent is a file.
	if err := s.Put(ctx, "d/obj/below", data); err == nil {
		t.Fatal("Put below a file succeeded")
	}
	if got := dirNames(t, filepath.Join(dir, "d")); !slices.Equal(got, []string{"isdir", "obj"}) {
		t.Errorf("directory holds %v, want [isdir obj]", got)
	}
	if got := mustRead(t, s, "d/obj"); string(got) != "winner" {
		t.Errorf("d/obj = %q", got)
	}
	assertNoForeignFiles(t, dir)
}

// The store ignores stray temporary files (from a crashed writer) when listing, and
// DeletePrefix clears them without counting them.
func TestLocalTempFilesInvisible(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(ctx, dir, Options{})
	mustPut(t, s, "_versions/1.manifest", []byte("m"))
	stray := filepath.Join(dir, "_versions", tempName("2.manifest"))
	if err := os.WriteFile(stray, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, _ := s.List(ctx, "")
	if !slices.Equal(paths(all), []string{"_versions/1.manifest"}) {
		t.Errorf("List shows %v", paths(all))
	}
	files, _, _ := s.ListDir(ctx, "_versions")
	if !slices.Equal(paths(files), []string{"_versions/1.manifest"}) {
		t.Errorf("ListDir shows %v", paths(files))
	}
	if n, err := s.DeletePrefix(ctx, "_versions/"); err != nil || n != 1 {
		t.Errorf("DeletePrefix = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "_versions")); !os.IsNotExist(err) {
		t.Errorf("_versions still exists after DeletePrefix: %v", err)
	}
}

// Temporary file names must be invisible to Rust Lance's directory scans: its manifest scan
// (rust/lance-table/src/io/commit.rs) treats names ending in "manifest" or starting with "d"
// as versions, and the directory namespace treats names ending in ".lance" as tables.
func TestTempNamesInvisibleToLance(t *testing.T) {
	for _, base := range []string{"18446744073709551614.manifest", "1.manifest", "d1.manifest",
		"latest_version_hint.json", "t.lance", strings.Repeat("é", 200) + ".manifest", "x"} {
		n := tempName(base)
		if !isTempName(n) || !strings.HasPrefix(n, ".") || strings.HasPrefix(n, "d") ||
			strings.HasSuffix(n, "manifest") || strings.HasSuffix(n, ".lance") || strings.HasSuffix(n, ".txn") {
			t.Errorf("tempName(%q) = %q could be parsed by Lance", base, n)
		}
		if len(n) > 255 {
			t.Errorf("tempName(%q) is %d bytes, over NAME_MAX", base, len(n))
		}
		if !strings.HasPrefix(n, ".") || !isValidUTF8(n) {
			t.Errorf("tempName(%q) = %q is not valid UTF-8", base, n)
		}
	}
	if tempName("x") == tempName("x") {
		t.Error("tempName is not random")
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestLocalFilePermissionsAndLayout(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(ctx, dir, Options{})
	if err := s.PutIfAbsent(ctx, "a/b/c", []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	// Created with 0666 minus the umask like any ordinary file (not 0600 like os.CreateTemp),
	// so that a Lance reader running as another user can read what we wrote.
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if want := os.FileMode(0o666 &^ umask); fi.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
	}
	// Only the object itself was created: no temp, no sidecars, and a single link.
	if names := dirNames(t, filepath.Join(dir, "a", "b")); !slices.Equal(names, []string{"c"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestParseURIs(t *testing.T) {
	tmp := t.TempDir()
	wd, _ := os.Getwd()
	cases := []struct {
		in      string
		wantURI string
		wantErr error
	}{
		{tmp + "/lake", "file://" + tmp + "/lake", nil},
		{tmp + "/lake/", "file://" + tmp + "/lake", nil},
		{"rel/dir", "file://" + wd + "/rel/dir", nil},
		{"file://" + tmp + "/lake", "file://" + tmp + "/lake", nil},
		{"file://localhost" + tmp + "/x/../lake/", "file://" + tmp + "/lake", nil},
		{"file://" + tmp + "/with%20space/a$b", "file://" + tmp + "/with%20space/a$b", nil},
		{"FILE://" + tmp, "file://" + tmp, nil},
		{"file://otherhost/x", "", ErrInvalidURI},
		{"file:///x?q=1", "", ErrInvalidURI},
		{"", "", ErrInvalidURI},
		{"memory://lake", "memory://lake", nil},
		{"memory://lake/ns/t.lance/", "memory://lake/ns/t.lance", nil},
		{"s3://bucket", "s3://bucket", nil},
		{"s3://bucket/", "s3://bucket", nil},
		{"s3://bucket/lake/ns/", "s3://bucket/lake/ns", nil},
		{"s3://", "", ErrInvalidURI},
		{"s3://bucket/a/../b", "", ErrInvalidURI},
		{"s3://bucket/a//b", "", ErrInvalidURI},
		{"s3://bucket/x?versionId=1", "", ErrInvalidURI},
		{"gs://", "", ErrInvalidURI},
		{"az://", "", ErrInvalidURI},
		{"ftp://host/x", "", ErrInvalidURI},
	}
	opts := Options{StorageOptions: map[string]string{"region": "us-east-1", "aws_access_key_id": "k", "aws_secret_access_key": "s"}}
	for _, c := range cases {
		s, err := Open(ctx, c.in, opts)
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("Open(%q) error = %v, want %v", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", c.in, err)
			continue
		}
		if s.URI() != c.wantURI {
			t.Errorf("Open(%q).URI() = %q, want %q", c.in, s.URI(), c.wantURI)
		}
		s.Close()
	}
}

func TestLocalSpecialCharactersRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "with space", "a$b%c")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "f0688d65_analytics$events/x", []byte("v"))
	again, err := Open(ctx, s.URI(), Options{})
	if err != nil {
		t.Fatalf("Open(%q): %v", s.URI(), err)
	}
	if got := mustRead(t, again, "f0688d65_analytics$events/x"); string(got) != "v" {
		t.Errorf("read %q", got)
	}
	loc := s.Location("f0688d65_analytics$events")
	sub, err := Open(ctx, loc, Options{})
	if err != nil {
		t.Fatalf("Open(%q): %v", loc, err)
	}
	if got := mustRead(t, sub, "x"); string(got) != "v" {
		t.Errorf("read through %q: %q", loc, got)
	}
	if _, err := os.Stat(filepath.Join(dir, "f0688d65_analytics$events", "x")); err != nil {
		t.Errorf("object not at the expected place on disk: %v", err)
	}
}

// TestLocalPutIfAbsentDirRemoved removes the target's directory between the
// temporary write and the link (a concurrent DROP of a table being created):
// the put must fail with ErrDirRemoved, publish nothing, and not re-create
// the directory.
func TestLocalPutIfAbsentDirRemoved(t *testing.T) {
	root := t.TempDir()
	s, err := Open(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prev := beforeLink
	defer func() { beforeLink = prev }()
	beforeLink = func(tmp, final string) {
		if err := os.RemoveAll(filepath.Join(root, "t.lance")); err != nil {
			t.Error(err)
		}
	}
	err = s.PutIfAbsent(context.Background(), "t.lance/_versions/1.manifest", []byte("x"))
	if !errors.Is(err, ErrDirRemoved) {
		t.Fatalf("PutIfAbsent after the directory was removed: %v, want ErrDirRemoved", err)
	}
	if _, err := os.Stat(filepath.Join(root, "t.lance")); !os.IsNotExist(err) {
		t.Fatalf("directory re-created or left behind: %v", err)
	}
}
