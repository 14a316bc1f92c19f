package planner

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/lancecat/lancecat/catalog"
)

// scanReader is loadReader's record splitting without LINES STARTING BY,
// over a window of the input instead of a bufio.Reader byte by byte: runs
// of bytes that cannot end a field, start an escape or end a line are
// copied at once, and a record's fields land in one reused buffer, not a
// string each. It takes the same decisions as loadReader.record in the
// same order (FuzzScanReaderMatches compares the two on any input), so the
// columnar load (loadfast.go) splits a file exactly as the row path does.
// Unlike loadReader it reports a failed read instead of ending the file
// there.
type scanReader struct {
	r        io.Reader
	buf      []byte // the window: buf[pos:end] is unread
	pos, end int
	eof      bool  // r has no more bytes
	err      error // r failed (not io.EOF)

	fieldTerm, lineTerm []byte
	encl, esc           byte // 0: none
	crlf                bool
	line, recLine       int
	// plain[c] / quotedPlain[c]: c is copied as is outside / inside an
	// enclosed field (it is none of the bytes a decision looks at).
	plain, quotedPlain [256]bool
	// lineFast: lines end at '\n' alone and fields at the one byte
	// fieldByte, so a line without an escape, enclosure or '\r' byte is
	// its fields split at fieldByte (fastRecord).
	lineFast  bool
	fieldByte byte
}

// rawRecord is one record's fields: field k is data[ends[k-1]:ends[k]].
type rawRecord struct {
	data []byte
	ends []int
	null []bool
}

func (r *rawRecord) reset() {
	r.data, r.ends, r.null = r.data[:0], r.ends[:0], r.null[:0]
}

func (r *rawRecord) fields() int { return len(r.ends) }

func (r *rawRecord) field(k int) []byte {
	start := 0
	if k > 0 {
		start = r.ends[k-1]
	}
	return r.data[start:r.ends[k]]
}

// scanWindow is the read size of a scanReader.
const scanWindow = 1 << 18

// newScanReader splits r as lr would (lr's options, lr.crlf); lr must have
// no LINES STARTING BY.
func newScanReader(r io.Reader, lr *loadReader) *scanReader {
	s := &scanReader{r: r, buf: make([]byte, scanWindow), fieldTerm: lr.fieldTerm, lineTerm: lr.lineTerm,
		encl: lr.encl, esc: lr.esc, crlf: lr.crlf, line: 1}
	for c := range s.plain {
		s.plain[c], s.quotedPlain[c] = true, true
	}
	s.plain['\n'], s.quotedPlain['\n'] = false, false // counted as lines
	if len(s.fieldTerm) > 0 {
		s.plain[s.fieldTerm[0]] = false
	}
	if len(s.lineTerm) > 0 {
		s.plain[s.lineTerm[0]] = false
	}
	if s.crlf {
		s.plain['\r'] = false
	}
	if s.esc != 0 {
		s.plain[s.esc], s.quotedPlain[s.esc] = false, false
	}
	if s.encl != 0 {
		s.quotedPlain[s.encl] = false
	}
	if string(s.lineTerm) == "\n" && len(s.fieldTerm) == 1 && s.fieldTerm[0] != '\n' &&
		s.fieldTerm[0] != s.esc && s.fieldTerm[0] != s.encl && s.fieldTerm[0] != '\r' {
		s.lineFast, s.fieldByte = true, s.fieldTerm[0]
	}
	return s
}

// fastRecord reads the next record into rec when it is a whole line in
// the window with none of the bytes that need record's decisions (an
// escape, an enclosure, a '\r' when "\r\n" ends lines): its fields are
// then the line split at the field terminator, none NULL, which is what
// record reads of it, found with bytes.IndexByte instead of a test per
// byte (the split was a quarter of a CSV load's CPU). false, with rec and
// the reader untouched, otherwise.
func (s *scanReader) fastRecord(rec *rawRecord) bool {
	win := s.buf[s.pos:s.end]
	n := bytes.IndexByte(win, '\n')
	if n < 0 || n > maxLoadLine {
		return false
	}
	line := win[:n]
	if (s.esc != 0 && bytes.IndexByte(line, s.esc) >= 0) ||
		(s.encl != 0 && bytes.IndexByte(line, s.encl) >= 0) ||
		(s.crlf && bytes.IndexByte(line, '\r') >= 0) {
		return false
	}
	for {
		i := bytes.IndexByte(line, s.fieldByte)
		if i < 0 {
			break
		}
		rec.data = append(rec.data, line[:i]...)
		rec.ends = append(rec.ends, len(rec.data))
		rec.null = append(rec.null, false)
		line = line[i+1:]
	}
	rec.data = append(rec.data, line...)
	rec.ends = append(rec.ends, len(rec.data))
	rec.null = append(rec.null, false)
	s.pos += n + 1
	s.line++
	return true
}

// avail reports whether n unread bytes are in the window, reading more
// when needed; false at the end of the input (or after a failed read,
// kept in s.err).
func (s *scanReader) avail(n int) bool {
	for s.end-s.pos < n {
		if s.eof || s.err != nil {
			return false
		}
		if s.pos > 0 {
			s.end = copy(s.buf, s.buf[s.pos:s.end])
			s.pos = 0
		}
		if s.end == len(s.buf) {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			s.err = err
		}
	}
	return true
}

func (s *scanReader) hasPrefix(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	if s.end-s.pos >= len(p) { // the common case: decided by the first byte
		return s.buf[s.pos] == p[0] && (len(p) == 1 || bytes.Equal(s.buf[s.pos:s.pos+len(p)], p))
	}
	return s.avail(len(p)) && bytes.Equal(s.buf[s.pos:s.pos+len(p)], p)
}

func (s *scanReader) hasByte(c byte) bool {
	return (s.pos < s.end || s.avail(1)) && s.buf[s.pos] == c
}

// skip drops n bytes the caller has seen are there, counting lines.
func (s *scanReader) skip(n int) {
	for _, c := range s.buf[s.pos : s.pos+n] {
		if c == '\n' {
			s.line++
		}
	}
	s.pos += n
}

var crlfBytes = []byte("\r\n")

func (s *scanReader) lineEnd() int {
	if s.crlf && s.hasPrefix(crlfBytes) {
		return 2
	}
	if s.hasPrefix(s.lineTerm) {
		return len(s.lineTerm)
	}
	return 0
}

// readErr is the error of a failed read, typed as the statement's.
func (s *scanReader) readErr() error {
	return &catalog.Error{Code: catalog.CodeInvalidInput, Message: fmt.Sprintf("LOAD DATA line %d: reading the file", s.line), Cause: s.err}
}

// skipLine drops one record (IGNORE n LINES).
func (s *scanReader) skipLine(rec *rawRecord) error { return s.record(rec) }

// record reads the next record into rec; io.EOF when there is none.
func (s *scanReader) record(rec *rawRecord) error {
	rec.reset()
	s.recLine = s.line
	if !s.avail(1) {
		if s.err != nil {
			return s.readErr()
		}
		return io.EOF
	}
	if s.lineFast && s.fastRecord(rec) {
		return nil
	}
	size := 0
	for {
		quoted, escapedOnly := false, false
		if s.encl != 0 && s.hasByte(s.encl) {
			quoted = true
			s.skip(1)
		}
		start := len(rec.data)
		endRecord := false
		for {
			if size > maxLoadLine {
				return errorf(catalog.CodeInvalidInput, "LOAD DATA line %d: a record longer than %d MiB", s.recLine, maxLoadLine>>20)
			}
			// A run of bytes no decision looks at is copied at once. Tried
			// first: such a byte starts no terminator, enclosure or escape,
			// so every test below would fail on it anyway.
			plain := &s.plain
			if quoted {
				plain = &s.quotedPlain
			}
			if i := s.pos; i < s.end && plain[s.buf[i]] {
				for i < s.end && plain[s.buf[i]] {
					i++
				}
				rec.data = append(rec.data, s.buf[s.pos:i]...)
				size += i - s.pos
				s.pos = i
				escapedOnly = false
				continue
			}
			if quoted {
				if s.hasPrefix([]byte{s.encl, s.encl}) {
					rec.data = append(rec.data, s.encl)
					s.skip(2)
					size++
					continue
				}
				if s.hasByte(s.encl) {
					s.skip(1)
					quoted = false
					if s.hasPrefix(s.fieldTerm) || s.lineEnd() > 0 || !s.avail(1) {
						continue
					}
					return errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d: text after the closing %q", s.line, rec.fields()+1, s.encl)
				}
			} else {
				if s.hasPrefix(s.fieldTerm) {
					s.skip(len(s.fieldTerm))
					break
				}
				if n := s.lineEnd(); n > 0 {
					s.skip(n)
					endRecord = true
					break
				}
			}
			if !s.avail(1) {
				if s.err != nil {
					return s.readErr()
				}
				if quoted {
					return errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d: %q not closed", s.line, rec.fields()+1, s.encl)
				}
				endRecord = true
				break
			}
			// The window was empty above: the run test again, now that
			// avail has read.
			if i := s.pos; plain[s.buf[i]] {
				for i < s.end && plain[s.buf[i]] {
					i++
				}
				rec.data = append(rec.data, s.buf[s.pos:i]...)
				size += i - s.pos
				s.pos = i
				escapedOnly = false
				continue
			}
			c := s.buf[s.pos]
			s.pos++
			size++
			if c == '\n' {
				s.line++
			}
			if s.esc != 0 && c == s.esc {
				if !s.avail(1) {
					if s.err != nil {
						return s.readErr()
					}
					rec.data = append(rec.data, c)
					continue
				}
				e := s.buf[s.pos]
				s.pos++
				if e == '\n' {
					s.line++
				}
				switch e {
				case '0':
					rec.data = append(rec.data, 0)
				case 'b':
					rec.data = append(rec.data, '\b')
				case 'n':
					rec.data = append(rec.data, '\n')
				case 'r':
					rec.data = append(rec.data, '\r')
				case 't':
					rec.data = append(rec.data, '\t')
				case 'Z':
					rec.data = append(rec.data, 26)
				case 'N':
					if len(rec.data) == start {
						escapedOnly = true
						continue
					}
					rec.data = append(rec.data, 'N')
				default:
					rec.data = append(rec.data, e)
				}
				escapedOnly = false
				continue
			}
			escapedOnly = false
			rec.data = append(rec.data, c)
		}
		rec.ends = append(rec.ends, len(rec.data))
		rec.null = append(rec.null, escapedOnly && len(rec.data) == start)
		if endRecord {
			return nil
		}
	}
}
