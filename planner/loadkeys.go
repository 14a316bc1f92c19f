package planner

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
)

// The keys a streaming load (LOAD DATA, IMPORT INTO) writes, per enforced
// key, kept within a byte budget instead of one Go map entry per row: each
// key is its bytes in an arena plus a fixed-width entry (a 64-bit
// fingerprint, the arena slice, where the row was read as an integer) in an
// open-addressing table. A fingerprint match is only a candidate: the key
// bytes decide, so a hash collision never fails a valid load. Past the
// budget (Options.SortMemory for the whole statement, shared by its keys)
// the entries are sorted by (fingerprint, key) and written as a run to
// Options.SpillDir; at the end of the load all runs, and the table's keys
// (read once, not once per batch), are merged and any key given twice
// fails the statement naming both rows. With Options.NoSpill the budget is
// a limit instead.

// loadKeyHash fingerprints a key; tests swap in a weak one to force
// collisions.
var loadKeyHash = func(seed maphash.Seed, key []byte) uint64 { return maphash.Bytes(seed, key) }

// loadKeyRuns counts the sorted runs of keys spilled (tests read it).
var loadKeyRuns atomic.Int64

// keyEntryBytes is the memory one key costs beside its bytes: its entry
// and, at the table's load factor of one half, two slots.
const keyEntryBytes = 24 + 2*8

// whereInTable marks a key the table already holds (in a merge).
const whereInTable = -1

// keyEntry is one key of a loadKeySet.
type keyEntry struct {
	fp    uint64
	where int64 // loadWheres position; whereInTable for the table's rows
	off   uint32
	n     uint32
}

// loadKeySet is the keys of one enforced key.
type loadKeySet struct {
	seed    maphash.Seed
	budget  int64
	noSpill bool
	runs    spillFiles // the sorted runs, in Options.SpillDir
	arena   []byte
	ents    []keyEntry
	// slots hold the fingerprint's high 32 bits above index+1 into ents
	// (0 is empty): a probe compares them before it reads the entry.
	slots []uint64
	n     int64 // keys added, spilled ones included
}

func newLoadKeySet(seed maphash.Seed, budget int64, noSpill bool, spillDir string) *loadKeySet {
	if spillDir == "" {
		spillDir = os.TempDir()
	}
	return &loadKeySet{seed: seed, budget: budget, noSpill: noSpill, runs: spillFiles{base: spillDir}}
}

func (ks *loadKeySet) memory() int64 {
	return int64(len(ks.arena)) + int64(len(ks.ents))*24 + int64(len(ks.slots))*8
}

func (ks *loadKeySet) key(e keyEntry) []byte { return ks.arena[e.off : e.off+e.n] }

// find is the entry of key held in memory, if any.
func (ks *loadKeySet) find(fp uint64, key []byte) (keyEntry, bool) {
	if i := ks.findIndex(fp, key); i >= 0 {
		return ks.ents[i], true
	}
	return keyEntry{}, false
}

// findIndex is the index into ents of key held in memory, -1 if none.
func (ks *loadKeySet) findIndex(fp uint64, key []byte) int {
	if len(ks.slots) == 0 {
		return -1
	}
	mask := uint64(len(ks.slots) - 1)
	tag := fp >> 32
	for h := fp & mask; ; h = (h + 1) & mask {
		s := ks.slots[h]
		if s == 0 {
			return -1
		}
		if s>>32 != tag {
			continue
		}
		if i := int(uint32(s)) - 1; ks.ents[i].fp == fp && bytes.Equal(ks.key(ks.ents[i]), key) {
			return i
		}
	}
}

// add records key, read at where; it returns the where of an earlier copy
// held in memory (dup true). Copies in spilled runs are found by merge.
func (ks *loadKeySet) add(key []byte, where int64) (int64, bool, error) {
	fp := loadKeyHash(ks.seed, key)
	if e, ok := ks.find(fp, key); ok {
		return e.where, true, nil
	}
	return 0, false, ks.insert(fp, key, where)
}

// insert records key (fingerprint fp, not held in memory), read at where,
// spilling the memory first when the key would overrun the budget.
func (ks *loadKeySet) insert(fp uint64, key []byte, where int64) error {
	if int64(len(ks.arena)+len(key)) > 1<<32-1 || ks.memory()+int64(len(key))+keyEntryBytes > ks.budget && len(ks.ents) > 0 {
		if ks.noSpill {
			return errorf(catalog.CodeInvalidInput, "more than %d bytes of keys to check (planner.Options.SortMemory) and spilling is off (NoSpill): split the file", ks.budget)
		}
		if err := ks.spill(); err != nil {
			return err
		}
	}
	if 2*(len(ks.ents)+1) > len(ks.slots) {
		ks.grow()
	}
	ks.ents = append(ks.ents, keyEntry{fp: fp, where: where, off: uint32(len(ks.arena)), n: uint32(len(key))})
	ks.arena = append(ks.arena, key...)
	ks.place(len(ks.ents) - 1)
	ks.n++
	return nil
}

func (ks *loadKeySet) place(i int) {
	mask := uint64(len(ks.slots) - 1)
	fp := ks.ents[i].fp
	h := fp & mask
	for ks.slots[h] != 0 {
		h = (h + 1) & mask
	}
	ks.slots[h] = fp>>32<<32 | uint64(i+1)
}

func (ks *loadKeySet) grow() {
	n := 1024
	for n < 2*(len(ks.ents)+1) {
		n *= 2
	}
	if len(ks.slots) >= n {
		n = 2 * len(ks.slots)
	}
	ks.slots = make([]uint64, n)
	for i := range ks.ents {
		ks.place(i)
	}
}

// sorted sorts the entries held in memory by (fingerprint, key, where);
// the table of slots no longer matches them, so it is dropped.
func (ks *loadKeySet) sorted() []keyEntry {
	slices.SortFunc(ks.ents, func(a, b keyEntry) int {
		if c := cmp.Compare(a.fp, b.fp); c != 0 {
			return c
		}
		if c := bytes.Compare(ks.key(a), ks.key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.where, b.where)
	})
	ks.slots = nil
	return ks.ents
}

// spill writes the entries held in memory as one sorted run and empties
// the memory: per entry the fingerprint (8 bytes), where and the key's
// length (varints), the key.
func (ks *loadKeySet) spill() error {
	f, err := ks.runs.create("lancecat-keys-*.run")
	if err != nil {
		return errorf(catalog.CodeInternal, "key check spill: %v", err)
	}
	loadKeyRuns.Add(1)
	slots := ks.slots
	w := bufio.NewWriterSize(f, 1<<16)
	var buf [8 + 2*binary.MaxVarintLen64]byte
	for _, e := range ks.sorted() {
		binary.LittleEndian.PutUint64(buf[:8], e.fp)
		n := 8 + binary.PutVarint(buf[8:], e.where)
		n += binary.PutUvarint(buf[n:], uint64(e.n))
		w.Write(buf[:n])
		w.Write(ks.key(e))
	}
	if err := w.Flush(); err != nil {
		return errorf(catalog.CodeInternal, "key check spill: %v", err)
	}
	// The next run fills the same memory: the arena, entries and slots
	// keep their capacity (the slots emptied) instead of growing again.
	ks.arena, ks.ents = ks.arena[:0], ks.ents[:0]
	ks.slots = slots[:cap(slots)]
	clear(ks.slots)
	return nil
}

// close removes the runs.
func (ks *loadKeySet) close() { ks.runs.remove() }

// mergedKey is one key a merge source yields.
type mergedKey struct {
	fp    uint64
	where int64
	key   []byte
}

// keySource yields keys in (fingerprint, key) order.
type keySource interface {
	next() (mergedKey, bool, error)
}

type memKeys struct {
	ks   *loadKeySet
	ents []keyEntry
}

func (m *memKeys) next() (mergedKey, bool, error) {
	if len(m.ents) == 0 {
		return mergedKey{}, false, nil
	}
	e := m.ents[0]
	m.ents = m.ents[1:]
	return mergedKey{fp: e.fp, where: e.where, key: m.ks.key(e)}, true, nil
}

type runKeys struct {
	r *bufio.Reader
}

// maxRunKey bounds a key read back from a run: no key written is longer
// than the arena's 32-bit offsets allow.
const maxRunKey = 1<<32 - 1

func (r *runKeys) next() (mergedKey, bool, error) {
	var fpb [8]byte
	if _, err := io.ReadFull(r.r, fpb[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return mergedKey{}, false, nil
		}
		return mergedKey{}, false, err
	}
	where, err := binary.ReadVarint(r.r)
	if err != nil {
		return mergedKey{}, false, err
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return mergedKey{}, false, err
	}
	if n > maxRunKey {
		return mergedKey{}, false, fmt.Errorf("key of %d bytes in a run", n)
	}
	key := make([]byte, n)
	if _, err := io.ReadFull(r.r, key); err != nil {
		return mergedKey{}, false, err
	}
	return mergedKey{fp: binary.LittleEndian.Uint64(fpb[:]), where: where, key: key}, true, nil
}

// sources are the set's runs (rewound) and its sorted memory.
func (ks *loadKeySet) sources() ([]keySource, error) {
	var out []keySource
	for _, f := range ks.runs.files {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, errorf(catalog.CodeInternal, "key check spill: %v", err)
		}
		out = append(out, &runKeys{r: bufio.NewReaderSize(f, 1<<16)})
	}
	return append(out, &memKeys{ks: ks, ents: ks.sorted()}), nil
}

type keyHeap struct {
	heads []mergedKey
	srcs  []keySource
}

func (h *keyHeap) Len() int { return len(h.heads) }
func (h *keyHeap) Less(i, j int) bool {
	a, b := h.heads[i], h.heads[j]
	if a.fp != b.fp {
		return a.fp < b.fp
	}
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.where < b.where
}
func (h *keyHeap) Swap(i, j int) {
	h.heads[i], h.heads[j] = h.heads[j], h.heads[i]
	h.srcs[i], h.srcs[j] = h.srcs[j], h.srcs[i]
}
func (h *keyHeap) Push(any) {}
func (h *keyHeap) Pop() any {
	n := len(h.heads) - 1
	h.heads, h.srcs = h.heads[:n], h.srcs[:n]
	return nil
}

// newKeyHeap is a heap over the first key of each of srcs (those not
// empty), for a merge in (fingerprint, key, where) order.
func newKeyHeap(srcs []keySource) (*keyHeap, error) {
	h := &keyHeap{}
	for _, s := range srcs {
		k, ok, err := s.next()
		if err != nil {
			return nil, errorf(catalog.CodeInternal, "key check spill: %v", err)
		}
		if ok {
			h.heads, h.srcs = append(h.heads, k), append(h.srcs, s)
		}
	}
	heap.Init(h)
	return h, nil
}

// advance replaces the least key with the next key of its source, or
// drops the source at its end.
func (h *keyHeap) advance() error {
	next, ok, err := h.srcs[0].next()
	if err != nil {
		return errorf(catalog.CodeInternal, "key check spill: %v", err)
	}
	if ok {
		h.heads[0] = next
		heap.Fix(h, 0)
	} else {
		heap.Pop(h)
	}
	return nil
}

// mergeKeys merges srcs and calls dup(earlier, later) for the first key
// the statement gives twice or the table already holds (earlier.where is
// whereInTable then); keys only the table holds twice are not the
// statement's to check.
func mergeKeys(srcs []keySource, dup func(earlier, later mergedKey) error) error {
	h, err := newKeyHeap(srcs)
	if err != nil {
		return err
	}
	var prev mergedKey
	have := false
	for h.Len() > 0 {
		k := h.heads[0]
		// The table's copies sort first (whereInTable is the least where).
		if have && prev.fp == k.fp && bytes.Equal(prev.key, k.key) && k.where != whereInTable {
			return dup(prev, k)
		}
		prev, have = k, true
		if err := h.advance(); err != nil {
			return err
		}
	}
	return nil
}

// loadWheres names the rows of a load by an integer: the source (its
// place in the statement's list) in the top bits, the source's own row or
// line number below.
type loadWheres struct {
	srcs []loadSource
}

const whereNumBits = 40

func (lw *loadWheres) at(src int, num int64) int64 { return int64(src)<<whereNumBits | num }

func (lw *loadWheres) name(w int64) string {
	src, num := int(w>>whereNumBits), w&(1<<whereNumBits-1)
	if src < len(lw.srcs) {
		if ns, ok := lw.srcs[src].(numberedSource); ok {
			return ns.whereNum(num)
		}
	}
	return fmt.Sprintf("record %d", num)
}

// numberedSource numbers its rows for key messages: rowNum is the number
// of the row back rows before the last one read, whereNum names row n as
// where() does.
type numberedSource interface {
	rowNum(back int) int64
	whereNum(n int64) string
}

// shownKey is MySQL's text of a key (the values joined by '-') from
// keyAt's comparable form.
func shownKey(key []byte, cols int) string {
	if cols == 1 {
		return string(key)
	}
	var out []byte
	for j := 0; j < cols && len(key) > 0; j++ {
		colon := bytes.IndexByte(key, ':')
		if colon < 0 {
			break
		}
		var n int
		fmt.Sscanf(string(key[:colon]), "%d", &n)
		key = key[colon+1:]
		if n > len(key) {
			n = len(key)
		}
		if j > 0 {
			out = append(out, '-')
		}
		out = append(out, key[:n]...)
		key = key[n:]
		if len(key) > 0 && key[0] == 0 {
			key = key[1:]
		}
	}
	return string(out)
}

// checkLoadTable checks the statement's keys (ks, of key k) against the
// live rows of ds (frags, if non-nil, restricts it to those fragments: a
// recheck), reading the key's columns once. Without spilled runs each
// table key is looked up in memory; with them the table's keys are
// gathered (within the same budget) and merged with the runs.
func (s *Session) checkLoadTable(ctx context.Context, ds *dataset.Dataset, spec *loadSpec, lw *loadWheres, k tableKey, ks *loadKeySet) error {
	return s.checkLoadFragments(ctx, ds, spec, lw, k, ks, nil)
}

func (s *Session) checkLoadFragments(ctx context.Context, ds *dataset.Dataset, spec *loadSpec, lw *loadWheres, k tableKey, ks *loadKeySet, frags []uint64) error {
	if ks.n == 0 || (frags != nil && len(frags) == 0) {
		return nil
	}
	schema := spec.schema
	names := k.names(schema)
	cols := make([]int, len(names))
	for i := range cols {
		cols[i] = i
	}
	dupErr := func(earlier, later mergedKey) error {
		shown := shownKey(later.key, len(k.cols))
		if earlier.where == whereInTable {
			return loadDupError(spec, k, lw.name(later.where), shown, "the table already holds it")
		}
		return loadDupError(spec, k, lw.name(later.where), shown, "also at "+lw.name(earlier.where))
	}
	if len(ks.runs.files) == 0 {
		if frags == nil && ks.n <= keyIndexLookupMax {
			batch := make(map[string]int64, len(ks.ents))
			for _, e := range ks.ents {
				batch[string(ks.key(e))] = e.where
			}
			if keyIndexLookup(ds, schema, k, batch) != nil {
				return checkKeyAgainstFn(ctx, s, ds, schema, k, batch, nil, nil, func(shown string, where int64) error {
					return loadDupError(spec, k, lw.name(where), shown, "the table already holds it")
				})
			}
		}
		var key []byte
		return ds.Scan(ctx, dataset.ScanOptions{Columns: names, Fragments: frags}, func(rec arrow.RecordBatch) error {
			for i := 0; i < int(rec.NumRows()); i++ {
				var ok bool
				if key, ok = appendRowKey(key[:0], rec, cols, i); !ok {
					continue
				}
				if e, dup := ks.find(loadKeyHash(ks.seed, key), key); dup {
					return dupErr(mergedKey{where: whereInTable}, mergedKey{where: e.where, key: ks.key(e)})
				}
			}
			return nil
		})
	}
	table := newLoadKeySet(ks.seed, ks.budget, false, ks.runs.base)
	defer table.close()
	var key []byte
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: names, Fragments: frags}, func(rec arrow.RecordBatch) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			var ok bool
			if key, ok = appendRowKey(key[:0], rec, cols, i); !ok {
				continue
			}
			if _, _, err := table.add(key, whereInTable); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ks.merge(table, dupErr)
}

// merge merges the statement's keys (ks) with the table's (table, or nil)
// and fails on the first duplicate.
func (ks *loadKeySet) merge(table *loadKeySet, dup func(earlier, later mergedKey) error) error {
	srcs, err := ks.sources()
	if err != nil {
		return err
	}
	defer ks.rehash()
	if table != nil {
		more, err := table.sources()
		if err != nil {
			return err
		}
		srcs = append(srcs, more...)
	}
	return mergeKeys(srcs, dup)
}

// rehash rebuilds the slots after sorted dropped them.
func (ks *loadKeySet) rehash() {
	if ks.slots == nil && len(ks.ents) > 0 {
		ks.grow()
	}
}

// appendRowKey appends keyAt's comparable form of row i's key to buf without
// building strings for the common column types (the same text as
// valueKey: base-10 integers, a string's own bytes); ok is false when a
// key column is NULL.
func appendRowKey(buf []byte, rec arrow.RecordBatch, cols []int, i int) ([]byte, bool) {
	if len(cols) == 1 {
		arr := rec.Column(cols[0])
		if arr.IsNull(i) {
			return buf, false
		}
		return appendValueKey(buf, arr, i), true
	}
	for j, c := range cols {
		arr := rec.Column(c)
		if arr.IsNull(i) {
			return buf, false
		}
		if j > 0 {
			buf = append(buf, 0)
		}
		// The length first, as keyAt writes it: a placeholder of the
		// value's digits is not known before the value, so the value is
		// appended after its length is computed.
		start := len(buf)
		buf = appendValueKey(buf, arr, i)
		v := len(buf) - start
		var lenb [20]byte
		l := strconv.AppendInt(lenb[:0], int64(v), 10)
		buf = append(buf, l...)
		buf = append(buf, ':')
		copy(buf[start+len(l)+1:], buf[start:start+v])
		copy(buf[start:], l)
		buf[start+len(l)] = ':'
	}
	return buf, true
}

func appendValueKey(buf []byte, arr arrow.Array, i int) []byte {
	switch a := arr.(type) {
	case *array.Int64:
		return strconv.AppendInt(buf, a.Value(i), 10)
	case *array.Int32:
		return strconv.AppendInt(buf, int64(a.Value(i)), 10)
	case *array.String:
		return append(buf, a.Value(i)...)
	}
	return append(buf, valueKey(arr, i)...)
}
