package enc20

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/lancecat/lancecat/lance/internal/pb/enc20pb"
)

// fuzzTypes are the Arrow types a fuzzed page is decoded as.
var fuzzTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int8,
	arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeBinary,
	arrow.FixedSizeListOf(8, arrow.PrimitiveTypes.Float32), &arrow.Decimal128Type{Precision: 38, Scale: 10},
	arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Uint16,
}

// decodePageForFuzz decodes one page (array encoding bytes, up to three page
// buffers, n values) as type kind, and, on success, checks the invariants the
// rest of the package relies on and builds Arrow data from a slice of it.
func decodePageForFuzz(t *testing.T, enc []byte, b0, b1, b2 []byte, n uint32, kind uint8) {
	var e enc20pb.ArrayEncoding
	if proto.Unmarshal(enc, &e) != nil {
		return
	}
	bs := &bufferSet{page: [][]byte{b0, b1, b2}}
	if l := e.GetList(); l != nil {
		offs, err := decodeListOffsets(bs, l, uint64(n))
		if err == nil && uint64(len(offs)) != uint64(n) {
			t.Fatalf("%d list offsets for %d lists", len(offs), n)
		}
		return
	}
	dt := fuzzTypes[int(kind)%len(fuzzTypes)]
	sh, err := shapeOf(dt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeArray(bs, &e, sh, uint64(n), 0)
	if err != nil {
		return
	}
	if v.n != uint64(n) {
		t.Fatalf("decoded %d values, want %d", v.n, n)
	}
	checkVals(t, v, sh)
	a, b := uint64(n)/3, uint64(n)-uint64(n)/4
	s := v.slice(sh, a, b)
	c, err := concat(sh, []*vals{s, v.slice(sh, 0, a)})
	if err != nil {
		return
	}
	d, err := toArrow(c, sh, dt)
	if err != nil {
		return
	}
	if d.Len() != int(b-a+a) {
		t.Fatalf("arrow data of %d values, want %d", d.Len(), b)
	}
	d.Release()
}

func checkVals(t *testing.T, v *vals, sh *shape) {
	if v.allNull {
		return
	}
	if v.valid != nil && uint64(len(v.valid))*8 < v.n {
		t.Fatalf("validity of %d bytes for %d values", len(v.valid), v.n)
	}
	switch sh.kind {
	case fixedShape:
		if uint64(len(v.data)) < fixedBytes(v.bits, v.n) {
			t.Fatalf("%d data bytes for %d values of %d bits", len(v.data), v.n, v.bits)
		}
	case variableShape:
		if uint64(len(v.offs)) != v.n+1 {
			t.Fatalf("%d offsets for %d values", len(v.offs), v.n)
		}
		for i := 1; i < len(v.offs); i++ {
			if v.offs[i] < v.offs[i-1] || v.offs[i] > uint64(len(v.data)) {
				t.Fatalf("offset %d = %d (previous %d, %d bytes)", i, v.offs[i], v.offs[i-1], len(v.data))
			}
		}
	case fslShape:
		if v.child.n != v.n*sh.dim {
			t.Fatalf("%d items for %d lists of %d", v.child.n, v.n, sh.dim)
		}
		checkVals(t, v.child, sh.child)
	}
}

// FuzzDecodeV20Page decodes fuzzed 2.0 pages, seeded with every page of the
// peer-written types-v2.0 fixture (each decoded as two of fuzzTypes).
func FuzzDecodeV20Page(f *testing.F) {
	for _, p := range fixtureFiles(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		mf := openMem(f, b)
		for c := range mf.cols {
			cm, err := mf.ColumnMetadata(nil, c)
			if err != nil {
				f.Fatal(err)
			}
			for _, pg := range cm.Pages {
				d := pg.Encoding.GetDirect()
				var a anypb.Any
				if d == nil || proto.Unmarshal(d.Encoding, &a) != nil {
					continue
				}
				bufs := make([][]byte, 3)
				for i := range pg.BufferOffsets {
					if i < 3 {
						bufs[i] = b[pg.BufferOffsets[i] : pg.BufferOffsets[i]+pg.BufferSizes[i]]
					}
				}
				for _, k := range []int{c, c + 3} {
					f.Add(a.Value, bufs[0], bufs[1], bufs[2], uint32(pg.Length), uint8(k%len(fuzzTypes)))
				}
			}
		}
	}
	// Encodings the peer's 2.0 writer does not produce.
	bp, _ := proto.Marshal(&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_BitpackedForNonNeg{BitpackedForNonNeg: &enc20pb.BitpackedForNonNeg{CompressedBitsPerValue: 3, UncompressedBitsPerValue: 16, Buffer: &enc20pb.Buffer{}}}})
	f.Add(bp, make([]byte, 384), []byte(nil), []byte(nil), uint32(1000), uint8(9))
	sb, _ := proto.Marshal(&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{CompressedBitsPerValue: 5, UncompressedBitsPerValue: 64, Signed: true, Buffer: &enc20pb.Buffer{}}}})
	f.Add(sb, []byte{0xff, 0x12, 0x34, 0x56, 0x78}, []byte(nil), []byte(nil), uint32(8), uint8(0))
	f.Fuzz(func(t *testing.T, enc, b0, b1, b2 []byte, n uint32, kind uint8) {
		decodePageForFuzz(t, enc, b0, b1, b2, n%(1<<16), kind)
	})
}
