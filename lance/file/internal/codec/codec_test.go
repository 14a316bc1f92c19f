package codec

import (
	"encoding/binary"
	"errors"
	"testing"
)

func fsstTable(symbols ...string) []byte {
	b := make([]byte, FSSTTableSize)
	binary.LittleEndian.PutUint64(b, 1<<24|uint64(len(symbols)))
	for i, s := range symbols {
		copy(b[8+8*i:], s)
		b[8+8*len(symbols)+i] = byte(len(s))
	}
	return b
}

func TestFSSTDecode(t *testing.T) {
	tab, err := ParseFSSTTable(fsstTable("ab", "cde"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tab.Decode(nil, []byte{1, 0, fsstEscape, 'z', 0})
	if err != nil || string(got) != "cdeabzab" {
		t.Fatalf("Decode = %q, %v", got, err)
	}
	// Appending to a non-empty dst keeps it; 8-byte symbols and escapes
	// back to back; a value of only escapes.
	tab8, err := ParseFSSTTable(fsstTable("12345678", "x"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = tab8.Decode([]byte("pre"), []byte{0, 0, 1, fsstEscape, 0xff, 0, fsstEscape, 'q'})
	if want := "pre1234567812345678x\xff12345678q"; err != nil || string(got) != want {
		t.Fatalf("Decode = %q, %v, want %q", got, err, want)
	}
	if got, err = tab8.Decode(nil, []byte{fsstEscape, 'a', fsstEscape, 'b'}); err != nil || string(got) != "ab" {
		t.Fatalf("Decode of escapes = %q, %v", got, err)
	}
	for name, src := range map[string][]byte{"escape at end": {0, fsstEscape}, "unknown code": {2}} {
		if _, err := tab.Decode(nil, src); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := fsstTable("ab")
	bad[8+8] = 9 // a symbol of 9 bytes
	for name, b := range map[string][]byte{"short": {1, 2}, "bad length": bad, "truncated": fsstTable("ab", "cd")[:20]} {
		if _, err := ParseFSSTTable(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// pack is a straightforward FastLanes packer, the inverse of
// UnpackFastLanes, written from the layout description.
func pack(t, w uint64, vals []uint64) []byte {
	if w == 0 {
		return nil
	}
	lanes := FastLanesChunk / t
	words := make([]uint64, FastLanesChunk*w/t)
	for lane := uint64(0); lane < lanes; lane++ {
		for row := uint64(0); row < t; row++ {
			v := vals[flOrder[row/8]*16+(row%8)*128+lane]
			p := row * w
			k, s := p/t, p%t
			words[k*lanes+lane] |= v << s
			if s+w > t {
				words[(k+1)*lanes+lane] |= v >> (t - s)
			}
		}
	}
	out := make([]byte, len(words)*int(t/8))
	for i, wd := range words {
		switch t {
		case 8:
			out[i] = byte(wd)
		case 16:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(wd))
		case 32:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(wd))
		default:
			binary.LittleEndian.PutUint64(out[8*i:], wd)
		}
	}
	return out
}

func TestFastLanesRoundTrip(t *testing.T) {
	for _, c := range []struct{ t, w uint64 }{{8, 3}, {16, 11}, {32, 17}, {64, 64}, {32, 0}} {
		vals := make([]uint64, FastLanesChunk)
		for i := range vals {
			if c.w > 0 {
				vals[i] = (uint64(i) * 2654435761) & (1<<c.w - 1)
				if c.w == 64 {
					vals[i] = uint64(i) * 0x9E3779B97F4A7C15
				}
			}
		}
		out := make([]uint64, FastLanesChunk)
		for i := range out {
			out[i] = 99
		}
		UnpackFastLanes(c.t, c.w, pack(c.t, c.w, vals), out)
		for i := range vals {
			if out[i] != vals[i] {
				t.Fatalf("t=%d w=%d: value %d = %d, want %d", c.t, c.w, i, out[i], vals[i])
			}
		}
	}
}

// TestFastLanesPrefix: decoding the first n values gives exactly the first n
// of a full decode and leaves the rest of out untouched, for every n at and
// around the lane-run boundaries of each word size.
func TestFastLanesPrefix(t *testing.T) {
	for _, c := range []struct{ t, w uint64 }{{8, 3}, {16, 11}, {16, 1}, {32, 17}, {64, 64}, {64, 5}} {
		vals := make([]uint64, FastLanesChunk)
		for i := range vals {
			vals[i] = (uint64(i)*2654435761 + 7) & (1<<c.w - 1)
			if c.w == 64 {
				vals[i] = uint64(i) * 0x9E3779B97F4A7C15
			}
		}
		packed := pack(c.t, c.w, vals)
		lanes := FastLanesChunk / c.t
		for _, n := range []uint64{0, 1, 2, lanes - 1, lanes, lanes + 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 500, 1023, 1024} {
			out := make([]uint64, FastLanesChunk)
			for i := range out {
				out[i] = 1<<63 | 99
			}
			UnpackFastLanesN(c.t, c.w, packed, out, n)
			for i := range out {
				want := uint64(1<<63 | 99)
				if uint64(i) < n {
					want = vals[i]
				}
				if out[i] != want {
					t.Fatalf("t=%d w=%d n=%d: out[%d] = %d, want %d", c.t, c.w, n, i, out[i], want)
				}
			}
		}
	}
}

// TestPackFastLanes: the writer's packer produces the same bytes as the
// reference packer above, and unpacks back to its input.
func TestPackFastLanes(t *testing.T) {
	for _, c := range []struct{ t, w uint64 }{{8, 1}, {8, 3}, {8, 8}, {16, 5}, {16, 11}, {16, 16}, {32, 17}, {32, 32}, {64, 33}, {64, 64}, {32, 0}} {
		vals := make([]uint64, FastLanesChunk)
		for i := range vals {
			if c.w > 0 {
				vals[i] = uint64(i) * 0x9E3779B97F4A7C15
				if c.w < 64 {
					vals[i] &= 1<<c.w - 1
				}
			}
		}
		got := PackFastLanes([]byte{0xAA}, c.t, c.w, vals)
		if got[0] != 0xAA || string(got[1:]) != string(pack(c.t, c.w, vals)) {
			t.Fatalf("t=%d w=%d: packed bytes differ from the reference packer", c.t, c.w)
		}
		out := make([]uint64, FastLanesChunk)
		UnpackFastLanes(c.t, c.w, got[1:], out)
		for i := range vals {
			if out[i] != vals[i] {
				t.Fatalf("t=%d w=%d: value %d = %d, want %d", c.t, c.w, i, out[i], vals[i])
			}
		}
	}
}
