package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// The Arrow deletion file is decoded here, not by arrow-go's IPC reader:
// that reader trusts the lengths inside the file (flatbuffer vector lengths
// in the schema's metadata, a compressed buffer's uncompressed size) and
// allocates them before checking, and a runtime out-of-memory is fatal,
// not a recoverable panic (issue 19: 8 bytes of 0xff made it allocate
// 377 GB). The file is small and fixed in shape - an Arrow IPC file with
// one non-null 32-bit integer column of deleted offsets - so this decoder
// reads only that shape, checks every length against the bytes it has
// before using it, and allocates at most the 4 bytes per deleted offset
// the fragment can have.

const arrowMagic = "ARROW1"

var errArrowShape = errors.New("not a deletion file of one non-null 32-bit integer column")

// fbTable is a bounds-checked view of one flatbuffer table.
type fbTable struct {
	buf []byte
	pos int // the table's start
	vt  int // its vtable's start
	vtn int // vtable size in bytes
}

func fbRoot(buf []byte) (fbTable, error) {
	if len(buf) < 4 {
		return fbTable{}, errors.New("flatbuffer truncated")
	}
	return fbAt(buf, int(binary.LittleEndian.Uint32(buf)))
}

func fbAt(buf []byte, pos int) (fbTable, error) {
	if pos < 0 || pos > len(buf)-4 {
		return fbTable{}, fmt.Errorf("flatbuffer table at %d outside %d bytes", pos, len(buf))
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(buf[pos:])))
	if vt < 0 || vt > len(buf)-4 {
		return fbTable{}, fmt.Errorf("flatbuffer vtable at %d outside %d bytes", vt, len(buf))
	}
	vtn := int(binary.LittleEndian.Uint16(buf[vt:]))
	if vtn < 4 || vtn%2 != 0 || vt+vtn > len(buf) {
		return fbTable{}, fmt.Errorf("flatbuffer vtable of %d bytes at %d", vtn, vt)
	}
	return fbTable{buf: buf, pos: pos, vt: vt, vtn: vtn}, nil
}

// field returns the absolute position of field slot i (0 when absent),
// with size bytes of it inside the buffer.
func (t fbTable) field(i, size int) (int, error) {
	o := 4 + 2*i
	if o+2 > t.vtn {
		return 0, nil
	}
	rel := int(binary.LittleEndian.Uint16(t.buf[t.vt+o:]))
	if rel == 0 {
		return 0, nil
	}
	p := t.pos + rel
	if p+size > len(t.buf) {
		return 0, fmt.Errorf("flatbuffer field %d at %d outside %d bytes", i, p, len(t.buf))
	}
	return p, nil
}

func (t fbTable) int64Field(i int, def int64) (int64, error) {
	p, err := t.field(i, 8)
	if err != nil || p == 0 {
		return def, err
	}
	return int64(binary.LittleEndian.Uint64(t.buf[p:])), nil
}

func (t fbTable) int32Field(i int, def int32) (int32, error) {
	p, err := t.field(i, 4)
	if err != nil || p == 0 {
		return def, err
	}
	return int32(binary.LittleEndian.Uint32(t.buf[p:])), nil
}

func (t fbTable) byteField(i int, def byte) (byte, error) {
	p, err := t.field(i, 1)
	if err != nil || p == 0 {
		return def, err
	}
	return t.buf[p], nil
}

// table follows the offset in field slot i (ok false when absent).
func (t fbTable) table(i int) (fbTable, bool, error) {
	p, err := t.field(i, 4)
	if err != nil || p == 0 {
		return fbTable{}, false, err
	}
	sub, err := fbAt(t.buf, p+int(binary.LittleEndian.Uint32(t.buf[p:])))
	return sub, err == nil, err
}

// vector follows the offset in field slot i to a vector of elem-byte
// elements; it returns the start of element 0 and the count, checked to
// fit the buffer.
func (t fbTable) vector(i, elem int) (start, n int, err error) {
	p, err := t.field(i, 4)
	if err != nil || p == 0 {
		return 0, 0, err
	}
	v := p + int(binary.LittleEndian.Uint32(t.buf[p:]))
	if v < 0 || v > len(t.buf)-4 {
		return 0, 0, fmt.Errorf("flatbuffer vector at %d outside %d bytes", v, len(t.buf))
	}
	n = int(binary.LittleEndian.Uint32(t.buf[v:]))
	if n > (len(t.buf)-v-4)/elem {
		return 0, 0, fmt.Errorf("flatbuffer vector of %d elements in %d bytes", n, len(t.buf)-v-4)
	}
	return v + 4, n, nil
}

// decodeArrowDeletions reads an Arrow IPC file of one non-null 32-bit
// integer column of deleted offsets; maxRows bounds how many offsets a
// fragment can have deleted (and so what the decoder may allocate).
func decodeArrowDeletions(b []byte, maxRows uint64) (*roaring.Bitmap, error) {
	const tail = 4 + len(arrowMagic)
	if len(b) < len(arrowMagic)+2+tail || string(b[:len(arrowMagic)]) != arrowMagic || string(b[len(b)-len(arrowMagic):]) != arrowMagic {
		return nil, errors.New("not an Arrow IPC file (magic)")
	}
	footerLen := int(binary.LittleEndian.Uint32(b[len(b)-tail:]))
	footerEnd := len(b) - tail
	if footerLen <= 0 || footerLen > footerEnd-8 {
		return nil, fmt.Errorf("Arrow footer of %d bytes in a file of %d", footerLen, len(b))
	}
	footer, err := fbRoot(b[footerEnd-footerLen : footerEnd])
	if err != nil {
		return nil, fmt.Errorf("Arrow footer: %w", err)
	}
	if err := checkDeletionSchema(footer); err != nil {
		return nil, err
	}
	// Footer.recordBatches: vector of Block {offset i64, metaDataLength
	// i32, pad, bodyLength i64}.
	start, n, err := footer.vector(3, 24)
	if err != nil {
		return nil, fmt.Errorf("Arrow footer: %w", err)
	}
	bm := roaring.New()
	var total uint64
	for i := range n {
		blk := footer.buf[start+24*i:]
		off := int64(binary.LittleEndian.Uint64(blk))
		meta := int64(int32(binary.LittleEndian.Uint32(blk[8:])))
		body := int64(binary.LittleEndian.Uint64(blk[16:]))
		limit := int64(footerEnd - footerLen)
		if off < 8 || meta < 8 || body < 0 || off > limit || meta > limit-off || body > limit-off-meta {
			return nil, fmt.Errorf("record batch %d at %d (%d+%d bytes) outside the file's %d bytes", i, off, meta, body, limit)
		}
		vals, err := decodeDeletionBatch(b[off:off+meta], b[off+meta:off+meta+body], maxRows-min(total, maxRows))
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		total += uint64(len(vals) / 4)
		for j := 0; j+4 <= len(vals); j += 4 {
			bm.Add(binary.LittleEndian.Uint32(vals[j:]))
		}
	}
	return bm, nil
}

// checkDeletionSchema: the footer's schema has exactly one field, a
// 32-bit Int (Lance writes uint32 row_id; int32 is accepted as before).
func checkDeletionSchema(footer fbTable) error {
	schema, ok, err := footer.table(1)
	if err != nil || !ok {
		return fmt.Errorf("Arrow schema: %w", cmpErr(err, errArrowShape))
	}
	start, n, err := schema.vector(1, 4)
	if err != nil {
		return fmt.Errorf("Arrow schema: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("%w: %d columns", errArrowShape, n)
	}
	p := start
	field, err := fbAt(schema.buf, p+int(binary.LittleEndian.Uint32(schema.buf[p:])))
	if err != nil {
		return fmt.Errorf("Arrow field: %w", err)
	}
	// Field: name 0, nullable 1, type_type 2, type 3. Type Int = 2:
	// bitWidth 0, is_signed 1.
	tt, err := field.byteField(2, 0)
	if err != nil {
		return err
	}
	typ, ok, err := field.table(3)
	if err != nil || !ok || tt != 2 {
		return fmt.Errorf("%w: column type %d", errArrowShape, tt)
	}
	if w, err := typ.int32Field(0, 0); err != nil || w != 32 {
		return fmt.Errorf("%w: %d-bit integers", errArrowShape, w)
	}
	return nil
}

func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// decodeDeletionBatch returns the little-endian 32-bit values of one
// record batch message (meta: its encapsulated flatbuffer; body: its
// buffers), at most maxRows of them.
func decodeDeletionBatch(meta, body []byte, maxRows uint64) ([]byte, error) {
	fb := meta
	if binary.LittleEndian.Uint32(fb) == 0xFFFFFFFF {
		fb = fb[4:]
	}
	if len(fb) < 4 {
		return nil, errors.New("message truncated")
	}
	l := int(int32(binary.LittleEndian.Uint32(fb)))
	if l <= 0 || l > len(fb)-4 {
		return nil, fmt.Errorf("message metadata of %d bytes in %d", l, len(fb)-4)
	}
	msg, err := fbRoot(fb[4 : 4+l])
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	// Message: version 0, header_type 1 (RecordBatch = 3), header 2,
	// bodyLength 3.
	if ht, err := msg.byteField(1, 0); err != nil || ht != 3 {
		return nil, fmt.Errorf("message of type %d, want a record batch (%v)", ht, err)
	}
	rb, ok, err := msg.table(2)
	if err != nil || !ok {
		return nil, fmt.Errorf("record batch header: %w", cmpErr(err, errArrowShape))
	}
	// RecordBatch: length 0, nodes 1 (FieldNode {length, null_count}),
	// buffers 2 (Buffer {offset, length}), compression 3 (codec 0:
	// LZ4_FRAME 0, ZSTD 1).
	rows, err := rb.int64Field(0, 0)
	if err != nil {
		return nil, err
	}
	if rows < 0 || uint64(rows) > maxRows {
		return nil, fmt.Errorf("%d deleted offsets in a fragment that can have at most %d", rows, maxRows)
	}
	ns, nn, err := rb.vector(1, 16)
	if err != nil {
		return nil, err
	}
	if nn != 1 {
		return nil, fmt.Errorf("%w: %d field nodes", errArrowShape, nn)
	}
	node := rb.buf[ns:]
	if int64(binary.LittleEndian.Uint64(node)) != rows || binary.LittleEndian.Uint64(node[8:]) != 0 {
		return nil, errors.New("null or mis-sized deleted offsets")
	}
	bs, bn, err := rb.vector(2, 16)
	if err != nil {
		return nil, err
	}
	if bn != 2 {
		return nil, fmt.Errorf("%w: %d buffers", errArrowShape, bn)
	}
	vb := rb.buf[bs+16:]
	boff, blen := int64(binary.LittleEndian.Uint64(vb)), int64(binary.LittleEndian.Uint64(vb[8:]))
	if boff < 0 || blen < 0 || boff > int64(len(body)) || blen > int64(len(body))-boff {
		return nil, fmt.Errorf("values buffer at %d (%d bytes) outside the %d-byte body", boff, blen, len(body))
	}
	raw := body[boff : boff+blen]
	if 4*rows > maxArrowDeletionBytes {
		return nil, fmt.Errorf("%d deleted offsets exceed what an Arrow deletion file holds", rows)
	}
	want := 4 * int(rows)
	comp, hasComp, err := rb.table(3)
	if err != nil {
		return nil, err
	}
	if hasComp && len(raw) > 0 {
		codec, err := comp.byteField(0, 0)
		if err != nil {
			return nil, err
		}
		if len(raw) < 8 {
			return nil, errors.New("compressed buffer truncated")
		}
		size := int64(binary.LittleEndian.Uint64(raw))
		raw = raw[8:]
		if size != -1 {
			if size != int64(want) {
				return nil, fmt.Errorf("compressed values of %d bytes for %d offsets", size, rows)
			}
			out := make([]byte, want)
			var r io.Reader
			switch codec {
			case 0:
				r = lz4.NewReader(bytes.NewReader(raw))
			case 1:
				d, err := zstd.NewReader(bytes.NewReader(raw), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(want)+1<<16))
				if err != nil {
					return nil, err
				}
				defer d.Close()
				r = d
			default:
				return nil, fmt.Errorf("unknown compression codec %d", codec)
			}
			if _, err := io.ReadFull(r, out); err != nil {
				return nil, fmt.Errorf("decompress values: %w", err)
			}
			return out, nil
		}
	}
	if len(raw) < want {
		return nil, fmt.Errorf("values buffer of %d bytes for %d offsets", len(raw), rows)
	}
	return raw[:want], nil
}
