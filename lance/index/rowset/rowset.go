// Package rowset is Lance's RowIdTreeMap / RowAddrTreeMap: sets of 64-bit
// row addresses or row ids grouped by their upper 32 bits, with Lance's
// serialization (used by bitmap and label-list index files). It is its own
// small package so that its decoder can be fuzzed quickly.
package rowset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// ErrCorrupt is wrapped by every error about malformed index bytes.
var ErrCorrupt = errors.New("index: corrupt index data")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Set is a set of 64-bit row addresses (fragment id << 32 | offset) or
// stable row ids, grouped by their upper 32 bits the way Lance's
// RowIdTreeMap / RowAddrTreeMap is: each group is a 32-bit roaring bitmap of
// lower halves, or "full" (every lower half, used by Lance for whole
// fragments).
//
// The zero value is an empty set ready to use. A Set is not safe for
// concurrent mutation.
type Set struct {
	parts map[uint32]*roaring.Bitmap // nil value: the whole group
}

// New returns a set holding values.
func New(values ...uint64) *Set {
	s := &Set{}
	for _, v := range values {
		s.Add(v)
	}
	return s
}

func (s *Set) init() {
	if s.parts == nil {
		s.parts = map[uint32]*roaring.Bitmap{}
	}
}

// Add inserts v.
func (s *Set) Add(v uint64) {
	s.init()
	hi := uint32(v >> 32)
	bm, ok := s.parts[hi]
	if ok && bm == nil {
		return
	}
	if !ok {
		bm = roaring.New()
		s.parts[hi] = bm
	}
	bm.Add(uint32(v))
}

// AddFull marks every value with upper half hi (a whole fragment) as present.
func (s *Set) AddFull(hi uint32) {
	s.init()
	s.parts[hi] = nil
}

// AddGroup ORs a bitmap of lower halves into group hi.
func (s *Set) AddGroup(hi uint32, lows *roaring.Bitmap) {
	s.init()
	bm, ok := s.parts[hi]
	if ok && bm == nil {
		return
	}
	if !ok {
		s.parts[hi] = lows.Clone()
		return
	}
	bm.Or(lows)
}

// Contains reports whether v is in the set.
func (s *Set) Contains(v uint64) bool {
	bm, ok := s.parts[uint32(v>>32)]
	if !ok {
		return false
	}
	return bm == nil || bm.Contains(uint32(v))
}

// Groups returns the upper halves present, ascending.
func (s *Set) Groups() []uint32 {
	out := make([]uint32, 0, len(s.parts))
	for hi := range s.parts {
		out = append(out, hi)
	}
	slices.Sort(out)
	return out
}

// Group returns the lower halves of group hi: (nil, true) when the group is
// full, (nil, false) when it is absent. The bitmap is shared: do not modify it.
func (s *Set) Group(hi uint32) (lows *roaring.Bitmap, present bool) {
	bm, ok := s.parts[hi]
	return bm, ok
}

// HasFull reports whether some group is full (its size is then unknown).
func (s *Set) HasFull() bool {
	for _, bm := range s.parts {
		if bm == nil {
			return true
		}
	}
	return false
}

// Len is the number of values; ok is false when a full group makes it unknown.
func (s *Set) Len() (n uint64, ok bool) {
	for _, bm := range s.parts {
		if bm == nil {
			return 0, false
		}
		n += bm.GetCardinality()
	}
	return n, true
}

// IsEmpty reports whether the set holds no value.
func (s *Set) IsEmpty() bool {
	for _, bm := range s.parts {
		if bm == nil || !bm.IsEmpty() {
			return false
		}
	}
	return true
}

// Values lists the values in ascending order. It fails when a group is full.
func (s *Set) Values() ([]uint64, error) {
	n, ok := s.Len()
	if !ok {
		return nil, errors.New("index: row set holds a whole fragment; its rows cannot be listed")
	}
	out := make([]uint64, 0, n)
	for _, hi := range s.Groups() {
		base := uint64(hi) << 32
		it := s.parts[hi].Iterator()
		for it.HasNext() {
			out = append(out, base|uint64(it.Next()))
		}
	}
	return out, nil
}

// Clone returns an independent copy.
func (s *Set) Clone() *Set {
	c := &Set{}
	c.init()
	for hi, bm := range s.parts {
		if bm == nil {
			c.parts[hi] = nil
		} else {
			c.parts[hi] = bm.Clone()
		}
	}
	return c
}

// Or adds every value of o to s.
func (s *Set) Or(o *Set) {
	if o == nil {
		return
	}
	for hi, bm := range o.parts {
		if bm == nil {
			s.AddFull(hi)
		} else {
			s.AddGroup(hi, bm)
		}
	}
}

// And keeps only the values also in o.
func (s *Set) And(o *Set) {
	for hi, bm := range s.parts {
		obm, ok := o.parts[hi]
		switch {
		case !ok:
			delete(s.parts, hi)
		case obm == nil:
			// o holds the whole group: keep ours.
		case bm == nil:
			s.parts[hi] = obm.Clone()
		default:
			bm.And(obm)
			if bm.IsEmpty() {
				delete(s.parts, hi)
			}
		}
	}
}

// RetainGroups keeps only the groups for which keep returns true.
func (s *Set) RetainGroups(keep func(hi uint32) bool) {
	for hi := range s.parts {
		if !keep(hi) {
			delete(s.parts, hi)
		}
	}
}

// RemoveLows removes the lower halves in lows from group hi. A full group is
// first expanded to [0, groupSize).
func (s *Set) RemoveLows(hi uint32, lows *roaring.Bitmap, groupSize uint64) {
	bm, ok := s.parts[hi]
	if !ok {
		return
	}
	if bm == nil {
		bm = roaring.New()
		bm.AddRange(0, groupSize)
		s.parts[hi] = bm
	}
	bm.AndNot(lows)
	if bm.IsEmpty() {
		delete(s.parts, hi)
	}
}

// ExpandFull replaces a full group hi by the explicit range [0, size).
func (s *Set) ExpandFull(hi uint32, size uint64) {
	if bm, ok := s.parts[hi]; ok && bm == nil {
		bm = roaring.New()
		bm.AddRange(0, size)
		s.parts[hi] = bm
	}
}

// MarshalBinary encodes the set exactly as Lance serializes a RowIdTreeMap
// (the bitmaps column of bitmap and label-list indices):
//
//	u32 LE number of groups, then per group in ascending order of its upper
//	half: u32 LE upper half, u32 LE byte length of the bitmap (0: the whole
//	group), the bitmap in the portable roaring format.
func (s *Set) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(nil)
}

// AppendBinary appends the MarshalBinary encoding to dst.
func (s *Set) AppendBinary(dst []byte) ([]byte, error) {
	groups := s.Groups()
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(groups)))
	for _, hi := range groups {
		dst = binary.LittleEndian.AppendUint32(dst, hi)
		bm := s.parts[hi]
		if bm == nil {
			dst = binary.LittleEndian.AppendUint32(dst, 0)
			continue
		}
		b, err := bm.ToBytes()
		if err != nil {
			return nil, fmt.Errorf("index: encode row set: %w", err)
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
		dst = append(dst, b...)
	}
	return dst, nil
}

// Decode decodes Lance's RowIdTreeMap serialization (see
// MarshalBinary). Every length is checked against b; malformed input fails
// with an error wrapping ErrCorrupt. Trailing bytes are an error.
func Decode(b []byte) (*Set, error) {
	if len(b) < 4 {
		return nil, corruptf("row set of %d bytes has no group count", len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	// Each group takes at least 8 bytes: bound the count before allocating.
	if uint64(n) > uint64(len(b))/8 {
		return nil, corruptf("row set claims %d groups in %d bytes", n, len(b))
	}
	s := &Set{parts: make(map[uint32]*roaring.Bitmap, n)}
	for i := uint32(0); i < n; i++ {
		if len(b) < 8 {
			return nil, corruptf("row set group %d is truncated", i)
		}
		hi := binary.LittleEndian.Uint32(b)
		size := binary.LittleEndian.Uint32(b[4:])
		b = b[8:]
		if _, dup := s.parts[hi]; dup {
			return nil, corruptf("row set repeats group %d", hi)
		}
		if size == 0 {
			s.parts[hi] = nil
			continue
		}
		if uint64(size) > uint64(len(b)) {
			return nil, corruptf("row set group %d claims %d bytes, %d left", hi, size, len(b))
		}
		bm, err := decodeRoaring(b[:size])
		if err != nil {
			return nil, fmt.Errorf("row set group %d: %w", hi, err)
		}
		s.parts[hi] = bm
		b = b[size:]
	}
	if len(b) != 0 {
		return nil, corruptf("row set has %d trailing bytes", len(b))
	}
	return s, nil
}

// Portable roaring format constants (RoaringFormatSpec).
const (
	roaringCookieNoRuns  = 12346
	roaringCookieRuns    = 12347
	roaringNoOffsetLimit = 4
	roaringArrayMax      = 4096
	roaringBitmapBytes   = 8192
)

// decodeRoaring validates a 32-bit roaring bitmap in the portable format
// completely (structure, sizes, ordering, cardinalities) before handing it to
// the roaring library, so that malformed bytes cannot make it panic or
// over-allocate. b must hold exactly one bitmap.
func decodeRoaring(b []byte) (*roaring.Bitmap, error) {
	if err := validateRoaring(b); err != nil {
		return nil, err
	}
	bm := roaring.New()
	if err := bm.UnmarshalBinary(b); err != nil {
		return nil, corruptf("roaring bitmap: %v", err)
	}
	return bm, nil
}

func validateRoaring(b []byte) error {
	if len(b) < 4 {
		return corruptf("roaring bitmap of %d bytes", len(b))
	}
	cookie := binary.LittleEndian.Uint32(b)
	pos := 4
	var n int
	var runFlags []byte
	switch {
	case cookie == roaringCookieNoRuns:
		if len(b) < 8 {
			return corruptf("roaring bitmap header truncated")
		}
		c := binary.LittleEndian.Uint32(b[4:])
		if c > 1<<16 {
			return corruptf("roaring bitmap claims %d containers", c)
		}
		n = int(c)
		pos = 8
	case cookie&0xFFFF == roaringCookieRuns:
		n = int(cookie>>16) + 1
		fl := (n + 7) / 8
		if len(b) < pos+fl {
			return corruptf("roaring run flags truncated")
		}
		runFlags = b[pos : pos+fl]
		pos += fl
	default:
		return corruptf("roaring bitmap has unknown cookie %#x", cookie)
	}
	if len(b) < pos+4*n {
		return corruptf("roaring container headers truncated (%d containers)", n)
	}
	headers := b[pos : pos+4*n]
	pos += 4 * n
	hasOffsets := runFlags == nil || n >= roaringNoOffsetLimit
	var offsets []byte
	if hasOffsets {
		if len(b) < pos+4*n {
			return corruptf("roaring offsets truncated")
		}
		offsets = b[pos : pos+4*n]
		pos += 4 * n
	}
	prevKey := -1
	for i := 0; i < n; i++ {
		key := int(binary.LittleEndian.Uint16(headers[4*i:]))
		card := int(binary.LittleEndian.Uint16(headers[4*i+2:])) + 1
		if key <= prevKey {
			return corruptf("roaring container keys not increasing at %d", i)
		}
		prevKey = key
		if offsets != nil && int(binary.LittleEndian.Uint32(offsets[4*i:])) != pos {
			return corruptf("roaring container %d offset %d, expected %d", i, binary.LittleEndian.Uint32(offsets[4*i:]), pos)
		}
		isRun := runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0
		switch {
		case isRun:
			if len(b) < pos+2 {
				return corruptf("roaring run container %d truncated", i)
			}
			nr := int(binary.LittleEndian.Uint16(b[pos:]))
			pos += 2
			if len(b) < pos+4*nr {
				return corruptf("roaring run container %d truncated", i)
			}
			total, next := 0, 0
			for r := 0; r < nr; r++ {
				start := int(binary.LittleEndian.Uint16(b[pos+4*r:]))
				length := int(binary.LittleEndian.Uint16(b[pos+4*r+2:])) + 1
				if start < next || start+length > 1<<16 {
					return corruptf("roaring run container %d has overlapping or out-of-range runs", i)
				}
				next = start + length
				total += length
			}
			if total != card {
				return corruptf("roaring run container %d holds %d values, header says %d", i, total, card)
			}
			pos += 4 * nr
		case card <= roaringArrayMax:
			if len(b) < pos+2*card {
				return corruptf("roaring array container %d truncated", i)
			}
			prev := -1
			for j := 0; j < card; j++ {
				v := int(binary.LittleEndian.Uint16(b[pos+2*j:]))
				if v <= prev {
					return corruptf("roaring array container %d not strictly increasing", i)
				}
				prev = v
			}
			pos += 2 * card
		default:
			if len(b) < pos+roaringBitmapBytes {
				return corruptf("roaring bitmap container %d truncated", i)
			}
			ones := 0
			for j := 0; j < roaringBitmapBytes; j += 8 {
				ones += bits.OnesCount64(binary.LittleEndian.Uint64(b[pos+j:]))
			}
			if ones != card {
				return corruptf("roaring bitmap container %d holds %d values, header says %d", i, ones, card)
			}
			pos += roaringBitmapBytes
		}
	}
	if pos != len(b) {
		return corruptf("roaring bitmap has %d trailing bytes", len(b)-pos)
	}
	return nil
}
