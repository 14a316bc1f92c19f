// Spilled partitions of a full-text index build: when the postings being
// built fill the build's memory budget they are written, in token id
// order, to a temporary file of a simple sequential format, and at the end
// the files are read back in one pass each and merged into the index's one
// partition (Build). Positions are spilled already encoded in the
// reference's per-document blocks and copied into the index as they are;
// the posting lists are re-encoded, since their blocks and block scores
// depend on the whole corpus.
package inverted

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// SpillArea is where a build's temporary files go: Acquire returns the
// directory (created on first use), Release ends one Acquire. The
// planner's per-process spill directory is one.
type SpillArea interface {
	Acquire() (dir string, err error)
	Release()
}

// tempDirArea is the system's temporary directory as a SpillArea.
type tempDirArea struct{}

func (tempDirArea) Acquire() (string, error) { return os.TempDir(), nil }
func (tempDirArea) Release()                 {}

// spillBufferBytes is the write buffer of a spill file; a merge reads each
// spill through a buffer of spillReadBytes.
const (
	spillBufferBytes = 1 << 20
	spillReadBytes   = 256 << 10
)

// spillFile is one spilled partition: a sequence of records, one per token
// of the partition in ascending token id, then a 0:
//
//	uvarint(token id + 1) uvarint(documents n)
//	n x uvarint(document id - previous one, the first from 0)
//	n x uvarint(frequency)
//	[with positions: uvarint(bytes m), m bytes: every document's
//	 positions as the index stores them (appendDocPositions)]
//
// Document ids are the index's (the build's scan order), so the merged
// list of a token is its spills' lists one after the other.
type spillFile struct {
	f    *os.File
	w    *bufio.Writer
	last int64 // the last token id written, -1 at the start
	num  []byte
}

func createSpill(dir string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, "lancecat-fts-*.spill")
	if err != nil {
		return nil, fmt.Errorf("full-text index spill: %w", err)
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, spillBufferBytes), last: -1}, nil
}

func (s *spillFile) uvarint(v uint64) {
	s.num = binary.AppendUvarint(s.num[:0], v)
	s.w.Write(s.num) // a write error sticks in the bufio.Writer: seen at Flush
}

// writePosting appends token tid's record (ids ascending).
func (s *spillFile) writePosting(tid uint32, docs, freqs []uint32, pos []byte, withPosition bool) {
	s.last = int64(tid)
	s.uvarint(uint64(tid) + 1)
	s.uvarint(uint64(len(docs)))
	prev := uint32(0)
	for _, d := range docs {
		s.uvarint(uint64(d - prev))
		prev = d
	}
	for _, f := range freqs {
		s.uvarint(uint64(f))
	}
	if withPosition {
		s.uvarint(uint64(len(pos)))
		s.w.Write(pos)
	}
}

// finish ends the records and flushes the file.
func (s *spillFile) finish() error {
	s.uvarint(0)
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("full-text index spill: %w", err)
	}
	s.w = nil
	return nil
}

// remove closes and deletes the file.
func (s *spillFile) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// spillReader reads a spill file's records in order.
type spillReader struct {
	r       *bufio.Reader
	name    string
	next    int64 // token id of the next record, -1 after the last
	maxDocs uint64
}

func (s *spillFile) reader(maxDocs uint64) (*spillReader, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("full-text index spill: %w", err)
	}
	r := &spillReader{r: bufio.NewReaderSize(s.f, spillReadBytes), name: s.f.Name(), next: -1, maxDocs: maxDocs}
	return r, r.advance()
}

func (r *spillReader) uvarint() (uint64, error) {
	v, err := binary.ReadUvarint(r.r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, corrupt("spill %s: %v", r.name, err)
	}
	return v, nil
}

// advance reads the token id of the next record.
func (r *spillReader) advance() error {
	v, err := r.uvarint()
	if err != nil {
		return err
	}
	if v > math.MaxUint32+1 || (v > 0 && int64(v-1) <= r.next && r.next >= 0) {
		return corrupt("spill %s: token id %d after %d", r.name, int64(v)-1, r.next)
	}
	r.next = int64(v) - 1
	return nil
}

// appendPosting appends the next record's documents, frequencies and
// encoded positions to p's and moves to the record after it.
func (r *spillReader) appendPosting(p *mergedPosting, withPosition bool) error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	if n == 0 || n > r.maxDocs {
		return corrupt("spill %s: token %d in %d documents", r.name, r.next, n)
	}
	var doc uint64
	for i := uint64(0); i < n; i++ {
		g, err := r.uvarint()
		if err != nil {
			return err
		}
		if doc += g; doc >= r.maxDocs {
			return corrupt("spill %s: token %d document %d", r.name, r.next, doc)
		}
		if k := len(p.docs); k > 0 && uint32(doc) <= p.docs[k-1] {
			return corrupt("spill %s: token %d document %d after %d", r.name, r.next, doc, p.docs[k-1])
		}
		p.docs = append(p.docs, uint32(doc))
	}
	for i := uint64(0); i < n; i++ {
		f, err := r.uvarint()
		if err != nil {
			return err
		}
		if f == 0 || f > math.MaxUint32 {
			return corrupt("spill %s: token %d frequency %d", r.name, r.next, f)
		}
		p.freqs = append(p.freqs, uint32(f))
	}
	if withPosition {
		m, err := r.uvarint()
		if err != nil {
			return err
		}
		if m > maxPostingBytes {
			return corrupt("spill %s: token %d positions of %d bytes", r.name, r.next, m)
		}
		from := len(p.pos)
		p.pos = append(p.pos, make([]byte, m)...)
		if _, err := io.ReadFull(r.r, p.pos[from:]); err != nil {
			return corrupt("spill %s: token %d positions: %v", r.name, r.next, err)
		}
	}
	return r.advance()
}

// mergedPosting is one token's posting list as the index writes it: its
// documents ascending, their frequencies and, with positions, every
// document's encoded positions one after the other (appendDocPositions).
type mergedPosting struct {
	docs, freqs []uint32
	pos         []byte
}

func (p *mergedPosting) reset() {
	p.docs, p.freqs, p.pos = p.docs[:0], p.freqs[:0], p.pos[:0]
}

// appendDocPositions appends one document's positions (ascending) as the
// index stores them: their count (u32), then a delta-coded BitPacker4x
// block per 128 ([first u32][bits u8][packed gaps from the first]) and
// the rest as plain u32s. Each of these is one value of the document's
// list in the _position column (splitDocPositions).
func appendDocPositions(b []byte, ps []uint32, blk *[blockSize]uint32) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ps)))
	full := len(ps) / blockSize
	for k := 0; k < full; k++ {
		chunk := ps[k*blockSize : (k+1)*blockSize]
		prev := chunk[0]
		for i := range chunk {
			blk[i] = chunk[i] - prev
			prev = chunk[i]
		}
		nb := bitsFor(blk[:])
		b = binary.LittleEndian.AppendUint32(b, chunk[0])
		b = append(b, byte(nb))
		b = pack4x(b, blk, nb)
	}
	for _, v := range ps[full*blockSize:] {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// splitDocPositions cuts the next document's entry of appendDocPositions
// off data, handing each of its values (count, blocks, tail) to value,
// and returns the rest of data. freq is the document's frequency, which
// the count must equal.
func splitDocPositions(data []byte, freq uint32, value func([]byte)) ([]byte, error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != freq {
		return nil, corrupt("spilled positions: count of %d positions", freq)
	}
	value(data[:4])
	data = data[4:]
	n := int(freq)
	for k := 0; k < n/blockSize; k++ {
		if len(data) < 5 || data[4] > 32 || len(data) < 5+16*int(data[4]) {
			return nil, corrupt("spilled positions: block %d of %d positions", k, n)
		}
		l := 5 + 16*int(data[4])
		value(data[:l])
		data = data[l:]
	}
	if rem := n % blockSize; rem > 0 {
		if len(data) < 4*rem {
			return nil, corrupt("spilled positions: tail of %d positions", rem)
		}
		value(data[:4*rem])
		data = data[4*rem:]
	}
	return data, nil
}
