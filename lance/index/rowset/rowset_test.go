package rowset

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestSetOperations(t *testing.T) {
	a := New(1, 2, 3, 1<<32|5, 7<<32|70000)
	b := New(2, 3, 4, 7<<32|70000)
	u := a.Clone()
	u.Or(b)
	got, _ := u.Values()
	if want := []uint64{1, 2, 3, 4, 1<<32 | 5, 7<<32 | 70000}; !slices.Equal(got, want) {
		t.Fatalf("union %v", got)
	}
	i := a.Clone()
	i.And(b)
	got, _ = i.Values()
	if want := []uint64{2, 3, 7<<32 | 70000}; !slices.Equal(got, want) {
		t.Fatalf("intersection %v", got)
	}
	f := &Set{}
	f.AddFull(9)
	if !f.Contains(9<<32|123) || !f.HasFull() {
		t.Fatal("full group")
	}
	if _, err := f.Values(); err == nil {
		t.Fatal("Values of a full group must fail")
	}
	del := roaring.BitmapOf(0, 2)
	f.RemoveLows(9, del, 4)
	got, _ = f.Values()
	if want := []uint64{9<<32 | 1, 9<<32 | 3}; !slices.Equal(got, want) {
		t.Fatalf("full minus deletions %v", got)
	}
	enc, _ := New().MarshalBinary()
	if !bytes.Equal(enc, []byte{0, 0, 0, 0}) {
		t.Fatalf("empty set encodes as %x", enc)
	}
	full := &Set{}
	full.AddFull(3)
	enc, _ = full.MarshalBinary()
	dec, err := Decode(enc)
	if err != nil || !dec.Contains(3<<32|77) {
		t.Fatalf("full group round trip: %v", err)
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	good, _ := New(1, 2, 3, 1<<32|5, 7<<32|70000).MarshalBinary()
	cases := map[string][]byte{
		"empty":           {},
		"short count":     {1, 0},
		"huge count":      {0xff, 0xff, 0xff, 0xff},
		"truncated":       good[:len(good)-1],
		"trailing":        append(bytes.Clone(good), 0),
		"bad cookie":      append(append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0}, 0x11, 0x22, 0x33, 0x44), 0, 0, 0, 0),
		"size past end":   {1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0},
		"duplicate group": append(append([]byte{2, 0, 0, 0}, 0, 0, 0, 0, 0, 0, 0, 0), 0, 0, 0, 0, 0, 0, 0, 0),
	}
	for name, b := range cases {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	// Swap two values of the first array container: no longer increasing.
	bad := bytes.Clone(good)
	vals := 4 + 8 + 8 + 4 + 4 // group count, group header, cookie+count, container header, offset
	bad[vals], bad[vals+2] = bad[vals+2], bad[vals]
	if _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unsorted array container: err = %v", err)
	}
	// A bitmap container whose cardinality header lies.
	big := roaring.New()
	for v := uint32(0); v < 5000; v++ {
		big.Add(v) // one bitmap container (AddRange would make a run container)
	}
	s := &Set{}
	s.AddGroup(0, big)
	enc, _ := s.MarshalBinary()
	enc[4+8+8+2] ^= 1 // group count, group header, cookie+count, key: the card-1 low byte
	if _, err := Decode(enc); !errors.Is(err, ErrCorrupt) {
		t.Errorf("lying bitmap container: err = %v", err)
	}
}

// FuzzDecode: arbitrary bytes never panic; what decodes re-encodes to bytes
// that decode to the same set. Seeded (testdata/fuzz/FuzzDecode) with every
// row set of the peer's committed index fixtures.
func FuzzDecode(f *testing.F) {
	g, _ := New(0, 1, 5, 1<<32|3).MarshalBinary()
	f.Add(g)
	run := &Set{}
	rb := roaring.New()
	rb.AddRange(10, 60000)
	rb.RunOptimize()
	run.AddGroup(2, rb)
	r, _ := run.MarshalBinary()
	f.Add(r)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded set does not decode: %v", err)
		}
		n1, ok1 := s.Len()
		n2, ok2 := s2.Len()
		if n1 != n2 || ok1 != ok2 || !slices.Equal(s.Groups(), s2.Groups()) {
			t.Fatal("round trip changed the set")
		}
	})
}
