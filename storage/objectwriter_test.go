package storage

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestCreateDeferred: an object written in pieces through CreateDeferred
// is absent until Commit and then holds every piece, on local disk
// (streamed to a temporary file) and on a memory store (gathered); an
// aborted one leaves nothing, on disk no temporary file either.
func TestCreateDeferred(t *testing.T) {
	ctx := context.Background()
	for _, uri := range []string{t.TempDir(), "memory://createdeferred"} {
		s, err := Open(ctx, uri, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, streams := s.(StreamPutter)
		if streams != (uri != "memory://createdeferred") {
			t.Fatalf("%s: streams %v", uri, streams)
		}
		w, err := CreateDeferred(ctx, s, "d/obj")
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for i := 0; i < 5; i++ {
			p := bytes.Repeat([]byte{byte('a' + i)}, 1000*(i+1))
			want = append(want, p...)
			if _, err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Stat(ctx, "d/obj"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: before Commit: %v", uri, err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := s.Read(ctx, "d/obj")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: read %d bytes, %v; want %d", uri, len(got), err, len(want))
		}
		a, err := CreateDeferred(ctx, s, "e/obj")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Write(want); err != nil {
			t.Fatal(err)
		}
		a.Abort()
		if err := a.Commit(); err == nil {
			t.Errorf("%s: Commit after Abort succeeded", uri)
		}
		left, err := s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range left {
			if o.Path != "d/obj" {
				t.Errorf("%s: %s left behind", uri, o.Path)
			}
		}
		if streams {
			// List hides temporary files: look at the directory itself.
			err := filepath.WalkDir(uri, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && p != filepath.Join(uri, "d", "obj") {
					t.Errorf("%s left behind", p)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
