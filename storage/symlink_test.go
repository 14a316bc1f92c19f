package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// outsideWithSentinel makes a directory outside root holding one file, and
// returns the directory and a check that the file is still there.
func outsideWithSentinel(t *testing.T) (string, func(string)) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "outside")
	if err := os.MkdirAll(filepath.Join(out, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	sentinel := filepath.Join(out, "data", "sentinel.lance")
	if err := os.WriteFile(sentinel, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out, func(after string) {
		t.Helper()
		if _, err := os.Stat(sentinel); err != nil {
			t.Fatalf("after %s: the file outside the root is gone: %v", after, err)
		}
	}
}

// Deletes never follow a symbolic link, at any level of the path: before,
// DeletePrefix of a linked table directory deleted every file it led to.
func TestLocalDeletesNeverFollowSymlinks(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	st, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out, intact := outsideWithSentinel(t)
	if err := st.Put(ctx, "t/own.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	// root/link -> outside; root/t/inner -> outside
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "t", "inner")); err != nil {
		t.Fatal(err)
	}

	if _, err := st.DeletePrefix(ctx, "link"); !errors.Is(err, ErrSymlink) {
		t.Errorf("DeletePrefix(link) = %v, want ErrSymlink", err)
	}
	intact("DeletePrefix(link)")
	if _, err := st.DeletePrefix(ctx, "link/data/"); !errors.Is(err, ErrSymlink) {
		t.Errorf("DeletePrefix(link/data/) = %v, want ErrSymlink", err)
	}
	intact("DeletePrefix(link/data/)")
	if err := st.Delete(ctx, "link/data/sentinel.lance"); !errors.Is(err, ErrSymlink) {
		t.Errorf("Delete through a link = %v, want ErrSymlink", err)
	}
	intact("Delete(link/data/sentinel.lance)")
	if err := st.Delete(ctx, "t/inner/data/sentinel.lance"); !errors.Is(err, ErrSymlink) {
		t.Errorf("Delete through an inner link = %v, want ErrSymlink", err)
	}
	intact("Delete(t/inner/data/sentinel.lance)")
	// Deleting the table directory removes its own files (and the link
	// itself at most), never what the inner link points to.
	if _, err := st.DeletePrefix(ctx, "t"); err != nil {
		t.Fatalf("DeletePrefix(t): %v", err)
	}
	intact("DeletePrefix(t)")
	if _, err := os.Stat(filepath.Join(root, "t", "own.txt")); !os.IsNotExist(err) {
		t.Errorf("own file survived DeletePrefix(t): %v", err)
	}
	// Issue 19: the link itself went too, so the directory is gone (DROP
	// TABLE used to report OK and leave the table).
	if _, err := os.Lstat(filepath.Join(root, "t")); !os.IsNotExist(err) {
		t.Errorf("DeletePrefix(t) left the directory (its inner link?): %v", err)
	}

	sc, ok := st.(SymlinkChecker)
	if !ok {
		t.Fatal("the local store does not implement SymlinkChecker")
	}
	if got, err := sc.SymlinkOnPath(ctx, "link/data"); err != nil || got != "link" {
		t.Errorf("SymlinkOnPath(link/data) = %q, %v; want \"link\"", got, err)
	}
	if got, err := sc.SymlinkOnPath(ctx, "nothing/here"); err != nil || got != "" {
		t.Errorf("SymlinkOnPath(nothing/here) = %q, %v; want \"\"", got, err)
	}
	if _, err := st.DeletePrefix(ctx, ""); err != nil {
		t.Fatalf("DeletePrefix(root): %v", err)
	}
	intact("DeletePrefix(\"\")")
	if _, err := os.Lstat(filepath.Join(root, "link")); !os.IsNotExist(err) {
		t.Errorf("DeletePrefix(\"\") left the root's link: %v", err)
	}
}

// RemoveLink removes a link itself and nothing it leads to; it refuses
// what is not a link and a path below a linked directory.
func TestLocalRemoveLink(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	st, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out, intact := outsideWithSentinel(t)
	if err := st.Put(ctx, "t/own.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	lr := st.(LinkRemover)
	if err := lr.RemoveLink(ctx, "t"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveLink(a directory) = %v, want ErrNotFound", err)
	}
	if err := lr.RemoveLink(ctx, "t/own.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveLink(a file) = %v, want ErrNotFound", err)
	}
	if err := lr.RemoveLink(ctx, "link/data"); !errors.Is(err, ErrSymlink) {
		t.Errorf("RemoveLink(below a link) = %v, want ErrSymlink", err)
	}
	if err := lr.RemoveLink(ctx, "link"); err != nil {
		t.Fatalf("RemoveLink(link): %v", err)
	}
	intact("RemoveLink(link)")
	if _, err := os.Lstat(filepath.Join(root, "link")); !os.IsNotExist(err) {
		t.Errorf("the link is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "t", "own.txt")); err != nil {
		t.Errorf("RemoveLink touched t: %v", err)
	}
}
