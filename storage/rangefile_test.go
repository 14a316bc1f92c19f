package storage

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestLocalOpenRange reads ranges of one open file into the caller's
// buffers, through a read-only view too, and checks the errors of a missing
// object, a range past the end and a closed store.
func TestLocalOpenRange(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("0123456789abcdef")
	if err := s.Put(ctx, "d/f.lance", data); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(ctx, s.URI(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]Store{"local": s, "read-only": ro} {
		o, ok := RangeOpenerOf(st)
		if !ok {
			t.Fatalf("%s: not a RangeOpener", name)
		}
		if _, err := o.OpenRange(ctx, "d/missing"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: open of a missing object: %v, want ErrNotFound", name, err)
		}
		f, err := o.OpenRange(ctx, "d/f.lance")
		if err != nil {
			t.Fatal(err)
		}
		if f.Size() != int64(len(data)) {
			t.Fatalf("%s: size %d", name, f.Size())
		}
		for _, rg := range [][2]int{{0, 4}, {10, 6}, {15, 1}, {3, 0}} {
			dst := make([]byte, rg[1])
			if err := f.ReadRangeInto(ctx, int64(rg[0]), dst); err != nil {
				t.Fatalf("%s: read %v: %v", name, rg, err)
			}
			if !bytes.Equal(dst, data[rg[0]:rg[0]+rg[1]]) {
				t.Fatalf("%s: read %v = %q", name, rg, dst)
			}
		}
		if err := f.ReadRangeInto(ctx, 12, make([]byte, 5)); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("%s: read past the end: %v, want ErrOutOfRange", name, err)
		}
		if err := f.ReadRangeInto(ctx, -1, make([]byte, 1)); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("%s: negative offset: %v, want ErrOutOfRange", name, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.(RangeOpener).OpenRange(ctx, "d/f.lance")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.Close()
	if err := f.ReadRangeInto(ctx, 0, make([]byte, 1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("read after the store's Close: %v, want ErrClosed", err)
	}
	if _, ok := RangeOpenerOf(memoryLikeStore{}); ok {
		t.Fatal("a store without OpenRange reported as a RangeOpener")
	}
}

// memoryLikeStore is a Store that cannot hold objects open.
type memoryLikeStore struct{ Store }
