// Package lancefile reads (and, in writer*.go, writes) Lance data files of
// the 2.x file format: the container (pages, column metadata, global buffers,
// footer) and the 2.1 structural encodings (mini-block, full-zip, constant /
// all-null pages) with their compressive encodings.
//
// Container layout (all integers little endian):
//
//	data pages (buffers, 64-byte aligned in 2.1)
//	column metadata 0..CN-1      (protobuf lance.file.v2.ColumnMetadata each)
//	column metadata offset table (CN x {u64 position, u64 size})
//	global buffer offset table   (GN x {u64 position, u64 size})
//	footer (40 bytes): u64 column_meta_start, u64 cmo_table_start,
//	  u64 gbo_table_start, u32 num_global_buffers, u32 num_columns,
//	  u16 major, u16 minor, "LANC"
//
// Global buffer 0 holds the file descriptor (lance.file.FileDescriptor:
// schema and row count).
package lancefile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Magic ends every Lance file.
var Magic = [4]byte{'L', 'A', 'N', 'C'}

const (
	// FooterSize is the size of the fixed footer at the end of a 2.x file.
	FooterSize = 40
	// OffsetEntrySize is the size of one entry of the column metadata and
	// global buffer offset tables (u64 position + u64 size).
	OffsetEntrySize = 16
	// PageBufferAlignment is the alignment of page and global buffers in 2.1.
	PageBufferAlignment = 64
	// MiniBlockAlignment is the alignment of buffers inside a mini-block chunk.
	MiniBlockAlignment = 8
)

// Version is the file format version as stored in the footer.
type Version struct{ Major, Minor uint16 }

// Footer versions. 2.0 is written as 0.3 by Lance (2.0 is also accepted).
var (
	V2_0       = Version{0, 3}
	V2_0Alt    = Version{2, 0}
	V2_1       = Version{2, 1}
	V2_2       = Version{2, 2}
	legacyV0_1 = Version{0, 1}
	legacyV0_2 = Version{0, 2}
)

// String renders the version the way Lance names it ("2.0", "2.1", ...).
func (v Version) String() string {
	if v == V2_0 {
		return "2.0"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Is20 reports whether v is the 2.0 file format (legacy 2.0 encodings).
func (v Version) Is20() bool { return v == V2_0 || v == V2_0Alt }

// IsStructural reports whether pages use 2.1+ structural encodings.
func (v Version) IsStructural() bool { return v.Major == 2 && v.Minor >= 1 }

// Errors. Match with errors.Is.
var (
	// ErrNotLance: the bytes do not end in a Lance footer.
	ErrNotLance = errors.New("lancefile: not a Lance file")
	// ErrUnsupportedVersion: a footer version this package cannot read.
	ErrUnsupportedVersion = errors.New("lancefile: unsupported file version")
	// ErrCorrupt: a length, offset or count is inconsistent with the file.
	ErrCorrupt = errors.New("lancefile: corrupt file")
	// ErrUnsupportedEncoding: a valid encoding this reader does not decode.
	ErrUnsupportedEncoding = errors.New("lancefile: unsupported encoding")
	// ErrInvalidArgument: a bad field id or row range in a request.
	ErrInvalidArgument = errors.New("lancefile: invalid argument")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupportedEncoding}, args...)...)
}

// Footer is the fixed 40-byte tail of a 2.x file.
type Footer struct {
	ColumnMetaStart        uint64 // position of column metadata 0
	ColumnMetaOffsetsStart uint64 // position of the column metadata offset table
	GlobalBuffOffsetsStart uint64 // position of the global buffer offset table
	NumGlobalBuffers       uint32
	NumColumns             uint32
	Version                Version
}

// AppendFooter appends the 40-byte encoding of f (ending in "LANC") to dst.
func AppendFooter(dst []byte, f Footer) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, f.ColumnMetaStart)
	dst = binary.LittleEndian.AppendUint64(dst, f.ColumnMetaOffsetsStart)
	dst = binary.LittleEndian.AppendUint64(dst, f.GlobalBuffOffsetsStart)
	dst = binary.LittleEndian.AppendUint32(dst, f.NumGlobalBuffers)
	dst = binary.LittleEndian.AppendUint32(dst, f.NumColumns)
	dst = binary.LittleEndian.AppendUint16(dst, f.Version.Major)
	dst = binary.LittleEndian.AppendUint16(dst, f.Version.Minor)
	return append(dst, Magic[:]...)
}

// ParseFooter decodes the last FooterSize bytes of b and checks the footer
// against fileSize (the total file size): every table must lie inside the
// file, before the footer, in order.
func ParseFooter(b []byte, fileSize int64) (Footer, error) {
	if len(b) < FooterSize || fileSize < FooterSize {
		return Footer{}, fmt.Errorf("%w: %d bytes is too short for a footer", ErrNotLance, fileSize)
	}
	t := b[len(b)-FooterSize:]
	if [4]byte(t[36:40]) != Magic {
		return Footer{}, fmt.Errorf("%w: missing LANC magic", ErrNotLance)
	}
	le := binary.LittleEndian
	f := Footer{
		ColumnMetaStart:        le.Uint64(t[0:]),
		ColumnMetaOffsetsStart: le.Uint64(t[8:]),
		GlobalBuffOffsetsStart: le.Uint64(t[16:]),
		NumGlobalBuffers:       le.Uint32(t[24:]),
		NumColumns:             le.Uint32(t[28:]),
		Version:                Version{le.Uint16(t[32:]), le.Uint16(t[34:])},
	}
	switch {
	case f.Version.Is20(), f.Version == V2_1, f.Version == V2_2:
	case f.Version == legacyV0_1, f.Version == legacyV0_2, f.Version.Major == 0 && f.Version.Minor == 0:
		return Footer{}, fmt.Errorf("%w: legacy (v1) file format %d.%d", ErrUnsupportedVersion, f.Version.Major, f.Version.Minor)
	default:
		return Footer{}, fmt.Errorf("%w: %d.%d", ErrUnsupportedVersion, f.Version.Major, f.Version.Minor)
	}
	end := uint64(fileSize) - FooterSize
	if f.ColumnMetaStart > f.ColumnMetaOffsetsStart || f.ColumnMetaOffsetsStart > f.GlobalBuffOffsetsStart || f.GlobalBuffOffsetsStart > end {
		return Footer{}, corruptf("footer tables out of order (%d, %d, %d, footer at %d)", f.ColumnMetaStart, f.ColumnMetaOffsetsStart, f.GlobalBuffOffsetsStart, end)
	}
	if uint64(f.NumColumns)*OffsetEntrySize != f.GlobalBuffOffsetsStart-f.ColumnMetaOffsetsStart {
		return Footer{}, corruptf("column metadata offset table holds %d bytes for %d columns", f.GlobalBuffOffsetsStart-f.ColumnMetaOffsetsStart, f.NumColumns)
	}
	if uint64(f.NumGlobalBuffers)*OffsetEntrySize != end-f.GlobalBuffOffsetsStart {
		return Footer{}, corruptf("global buffer offset table holds %d bytes for %d buffers", end-f.GlobalBuffOffsetsStart, f.NumGlobalBuffers)
	}
	return f, nil
}

// BufferRef locates one buffer (a page buffer, a column buffer or a global
// buffer) by absolute file position and size.
type BufferRef struct {
	Position uint64
	Size     uint64
}

// AppendOffsetTable appends an offset table (position, size pairs) to dst.
func AppendOffsetTable(dst []byte, refs []BufferRef) []byte {
	for _, r := range refs {
		dst = binary.LittleEndian.AppendUint64(dst, r.Position)
		dst = binary.LittleEndian.AppendUint64(dst, r.Size)
	}
	return dst
}

// AppendGlobalBuffer adds buf as the next global buffer of a finished Lance
// 2.x file and returns the new file: the buffer goes (64-byte aligned)
// where the column metadata offset table stood, and the two offset tables
// and the footer are rewritten after it. Index builders use it for the
// buffers the writer does not take (a PQ codebook, an index's null map).
// file's backing array is not written to.
func AppendGlobalBuffer(file, buf []byte) ([]byte, error) {
	f, err := ParseFooter(file, int64(len(file)))
	if err != nil {
		return nil, err
	}
	end := uint64(len(file)) - FooterSize
	cmo := file[f.ColumnMetaOffsetsStart:f.GlobalBuffOffsetsStart]
	gbo := file[f.GlobalBuffOffsetsStart:end]
	// A new array: appending must not overwrite cmo and gbo, which alias file.
	out := make([]byte, f.ColumnMetaOffsetsStart, f.ColumnMetaOffsetsStart+64+uint64(len(buf))+uint64(len(cmo)+len(gbo))+OffsetEntrySize+FooterSize)
	copy(out, file)
	out = append(out, make([]byte, (64-len(out)%64)%64)...)
	pos := uint64(len(out))
	out = append(out, buf...)
	f.ColumnMetaOffsetsStart = uint64(len(out))
	out = append(out, cmo...)
	f.GlobalBuffOffsetsStart = uint64(len(out))
	out = append(out, gbo...)
	out = AppendOffsetTable(out, []BufferRef{{Position: pos, Size: uint64(len(buf))}})
	f.NumGlobalBuffers++
	return AppendFooter(out, f), nil
}

// parseOffsetTable decodes n entries and checks each lies within limit.
func parseOffsetTable(b []byte, n int, limit uint64, what string) ([]BufferRef, error) {
	if len(b) != n*OffsetEntrySize {
		return nil, corruptf("%s offset table: %d bytes for %d entries", what, len(b), n)
	}
	refs := make([]BufferRef, n)
	for i := range refs {
		p := binary.LittleEndian.Uint64(b[i*16:])
		s := binary.LittleEndian.Uint64(b[i*16+8:])
		if p > limit || s > limit-p {
			return nil, corruptf("%s %d at %d+%d lies outside [0,%d)", what, i, p, s, limit)
		}
		refs[i] = BufferRef{p, s}
	}
	return refs, nil
}

// Page encodings in 2.x column metadata are protobuf Any messages; these are
// the type URLs Lance (prost) writes: a "/" and the full message name.
// Readers match on the message name only.
const (
	TypeURLPageLayout     = "/lance.encodings21.PageLayout"
	TypeURLArrayEncoding  = "/lance.encodings.ArrayEncoding"
	TypeURLColumnEncoding = "/lance.encodings.ColumnEncoding"
)
