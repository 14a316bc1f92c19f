package planner

import (
	"bufio"
	"container/heap"
	"encoding/gob"
	"errors"
	"io"
	"iter"
	"os"
	"time"

	"github.com/lancecat/lancecat/catalog"
)

// External sort for a full ORDER BY beyond the sort budget: every
// Options.MaxRows rows, the buffer is sorted and written to a temporary
// file (a run) in Options.SpillDir; the runs are then merged with a heap,
// streaming the result. Only the columns the query reads are written, with
// encoding/gob; the files are removed when the result is read to the end or
// closed. With Options.NoSpill the sort fails at the budget instead.

func init() {
	// Values of table data that gob carries inside interfaces ([]any).
	gob.Register(time.Time{})
	gob.Register([]byte(nil))
}

// spillRecord is one row of a run: its arrival number and the read columns.
type spillRecord struct {
	Seq  int64
	Vals []any
}

// spiller writes sorted runs of rows to temporary files.
type spiller struct {
	p *selectPipeline
	spillFiles
}

// writeRun sorts rows and writes them as one run. Under a LIMIT only the
// run's first LIMIT+OFFSET rows can be in the result: the rest is dropped.
func (s *spiller) writeRun(rows []sortedRow) error {
	if err := s.p.sortRows(rows); err != nil {
		return err
	}
	if s.p.limit >= 0 && int64(len(rows)) > s.p.limit+s.p.offset {
		rows = rows[:s.p.limit+s.p.offset]
	}
	f, err := s.create("lancecat-sort-*.run")
	if err != nil {
		return errorf(catalog.CodeInternal, "ORDER BY spill: %v", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	enc := gob.NewEncoder(w)
	positions := s.p.spillPositions()
	rec := spillRecord{Vals: make([]any, len(positions))}
	for _, r := range rows {
		rec.Seq = r.seq
		for j, c := range positions {
			rec.Vals[j] = r.row[c]
		}
		if err := enc.Encode(&rec); err != nil {
			return errorf(catalog.CodeInternal, "ORDER BY spill: encode: %v", err)
		}
	}
	if err := w.Flush(); err != nil {
		return errorf(catalog.CodeInternal, "ORDER BY spill: %v", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return errorf(catalog.CodeInternal, "ORDER BY spill: %v", err)
	}
	return nil
}

// runReader reads one run back.
type runReader struct {
	dec *gob.Decoder
	cur sortedRow
}

func (r *runReader) next(p *selectPipeline) (bool, error) {
	var rec spillRecord
	if err := r.dec.Decode(&rec); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, errorf(catalog.CodeInternal, "ORDER BY spill: decode: %v", err)
	}
	row := make([]any, len(p.env.cols))
	positions := p.spillPositions()
	if len(rec.Vals) != len(positions) {
		return false, errorf(catalog.CodeInternal, "ORDER BY spill: a run row has %d values, want %d", len(rec.Vals), len(positions))
	}
	for j, c := range positions {
		row[c] = rec.Vals[j]
	}
	cur, err := p.keyed(row, rec.Seq)
	if err != nil {
		return false, err
	}
	r.cur = cur
	return true, nil
}

// runHeap orders the runs' current rows, smallest first.
type runHeap struct {
	p    *selectPipeline
	runs []*runReader
}

func (h *runHeap) Len() int           { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool { return h.p.less(h.runs[i].cur, h.runs[j].cur) }
func (h *runHeap) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)         { h.runs = append(h.runs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	x := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return x
}

// merge streams the rows of the runs in order, applying OFFSET and LIMIT,
// and removes the files when done (or when the consumer stops).
func (s *spiller) merge() iter.Seq2[[][]any, error] {
	return func(yield func([][]any, error) bool) {
		defer s.remove()
		h := &runHeap{p: s.p}
		for _, f := range s.files {
			r := &runReader{dec: gob.NewDecoder(bufio.NewReaderSize(f, 1<<16))}
			ok, err := r.next(s.p)
			if err != nil {
				yield(nil, err)
				return
			}
			if ok {
				h.runs = append(h.runs, r)
			}
		}
		heap.Init(h)
		skip, left := s.p.offset, s.p.limit
		batch := make([][]any, 0, streamBatch)
		for h.Len() > 0 && left != 0 {
			r := h.runs[0]
			if skip > 0 {
				skip--
			} else {
				out, err := s.p.project(r.cur.row)
				if err != nil {
					yield(nil, err)
					return
				}
				batch = append(batch, out)
				if left > 0 {
					left--
				}
				if len(batch) == streamBatch {
					if !yield(batch, nil) {
						return
					}
					batch = make([][]any, 0, streamBatch)
				}
			}
			ok, err := r.next(s.p)
			if err != nil {
				yield(nil, err)
				return
			}
			if ok {
				heap.Fix(h, 0)
			} else {
				heap.Pop(h)
			}
		}
		if len(batch) > 0 {
			yield(batch, nil)
		}
	}
}

// spillDirectory is where runs go.
func (p *selectPipeline) spillDirectory() string {
	if p.spillDir != "" {
		return p.spillDir
	}
	return os.TempDir()
}

// spillPositions are the positions of a row a run writes: keep, or all of
// the source's columns.
func (p *selectPipeline) spillPositions() []int {
	if p.keep != nil {
		return p.keep
	}
	out := make([]int, len(p.env.cols))
	for i := range out {
		out[i] = i
	}
	return out
}
