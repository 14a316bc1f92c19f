package exec

import (
	"context"
	"errors"
	"io"
	"iter"
	"math"
	"math/bits"
)

// JoinKind is the kind of a join: which side keeps its unmatched rows.
type JoinKind int

const (
	// InnerJoin keeps matching pairs only (also CROSS JOIN and commas).
	InnerJoin JoinKind = iota + 1
	// LeftJoin also keeps each unmatched left row, with NULLs on the right.
	LeftJoin
	// RightJoin also keeps each unmatched right row, with NULLs on the left.
	RightJoin
	// FullJoin keeps the unmatched rows of both sides, each padded with
	// NULLs on the other.
	FullJoin
)

// JoinSpec says how two inputs join. Output rows are the left row's
// values followed by the right row's.
type JoinSpec struct {
	Kind                  JoinKind
	LeftWidth, RightWidth int
	// LeftKey and RightKey compute the equi-join keys of a hash join
	// (nil: a nested-loop join, every pair tested by Cond).
	LeftKey, RightKey func(row []any) ([]any, error)
	// Hash turns a key into its 64-bit hash; ok is false when the key
	// holds a NULL that joins nothing (as = does; a `<=>` key hashes its
	// NULLs). Keys that may be equal must hash alike; KeyEqual decides.
	Hash func(key []any) (h uint64, ok bool)
	// KeyEqual confirms two keys of the same hash are equal under the
	// engine's comparison (hashes normalize numbers, so they may collide).
	KeyEqual func(l, r []any) bool
	// IntKey promises that the keys are one value and that KeyEqual of
	// two keys both holding an int64 is their ==: a build side whose keys
	// are all int64 (or NULL) then keeps them in a dense array, and a
	// probe compares its int64 key there without calling KeyEqual or
	// touching the build row until it matches.
	IntKey bool
	// Cond is the rest of the join condition over the output row (nil:
	// true): only TRUE joins the pair.
	Cond func(row []any) (bool, error)
	// Budget is charged for the build side's rows; Name is the operator
	// named in a budget error.
	Budget *Budget
	Name   string
	// Spill, when set, lets a hash join whose build side passes the
	// budget partition both sides to temporary files there instead of
	// failing (spill.go). A nested-loop join never spills.
	Spill SpillArea
	// BuildLeft makes a LEFT hash join hold its left side and stream
	// its right side, emitting the unmatched left rows at the end (for a
	// left side much smaller than the right). Its rows then come in the
	// right side's order, the unmatched ones last.
	BuildLeft bool
	// KeyFilter, when set (an inner hash join), receives the build
	// side's values of key KeyFilter.Key once the build side is read,
	// before the probe side's first row is asked for (KeyFilter).
	KeyFilter *KeyFilter
	// BuildCols, when set, lists the positions of the build side's row
	// that may hold a value (the columns its scans read; the others are
	// always NULL): the join holds, charges and spills only these, and
	// puts them back in place in its output rows. A wide join row with a
	// few columns read (a join of joins) then costs its values, not its
	// width.
	BuildCols []int
	// Group, when set, makes the hash join a group join: an Aggregate
	// whose groups are the build side's rows folds each joined row into
	// its build row's states as the probe finds it, and the join yields
	// one row per group (Group's results) instead of the joined rows
	// (groupjoin.go). Only a hash join whose probe side keeps no unmatched
	// rows (INNER, or LEFT with BuildLeft) takes it.
	Group *GroupJoin
}

// KeyFilter carries a hash join's build keys to a scan under its probe
// side (a semi-join reduction): the scan drops the rows whose key column
// holds a value no build row has, or NULL, before it converts their other
// columns, and the join would drop them anyway (an inner join, every join
// between the scan and it inner too). Only integer keys are carried.
type KeyFilter struct {
	// Key is the position of the key among the join's keys.
	Key  int
	set  map[int64]struct{}
	bits *KeyBits // the keys as a bitmap, when they are dense enough
	// done: published; set or bits holds the keys (a join's build keys
	// only bits, when it is made), both nil for no filter.
	done bool
}

// KeyBits is a set of integer keys as a bitmap from Lo: a scan tests a
// key with a shift and a mask instead of a map lookup (TPC-H Q21's scans
// of lineitem test 14 million keys against sets of 70,000 to 730,000
// order keys).
type KeyBits struct {
	Lo    int64
	Words []uint64
}

// Has reports whether v is in the set.
func (b *KeyBits) Has(v int64) bool {
	d := uint64(v - b.Lo) // a v below Lo wraps past the bitmap's end
	if d >= uint64(len(b.Words))*64 {
		return false
	}
	return b.Words[d>>6]&(1<<(d&63)) != 0
}

// Bitmaps are made for key sets whose span is at most keyBitsPerKey bits
// a key (a map holds ~40 bytes a key) and keyBitsMax bits in all.
const (
	keyBitsPerKey = 256
	keyBitsMax    = 1 << 27
)

// keyBitsOf is set as a bitmap, nil when its keys are too sparse.
func keyBitsOf(set map[int64]struct{}) *KeyBits {
	if len(set) == 0 {
		return nil
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for k := range set {
		lo, hi = min(lo, k), max(hi, k)
	}
	span := uint64(hi) - uint64(lo) // exact: hi >= lo
	if span >= keyBitsMax || span >= keyBitsPerKey*uint64(len(set)) {
		return nil
	}
	b := &KeyBits{Lo: lo, Words: make([]uint64, span/64+1)}
	for k := range set {
		d := uint64(k - lo)
		b.Words[d>>6] |= 1 << (d & 63)
	}
	return b
}

// Bits returns the build keys as a bitmap, nil when there is none (see
// Keys; keys too sparse for one).
func (f *KeyFilter) Bits() *KeyBits {
	if f == nil || !f.done {
		return nil
	}
	return f.bits
}

// maxKeyFilterKeys bounds the keys a KeyFilter holds (past it the scan
// is not filtered: ~40 bytes a key).
const maxKeyFilterKeys = 1 << 22

// Keys returns the build keys; ok is false when the scan must keep every
// row (not published, or a key that is not an integer, or too many). set
// is nil when Bits holds the keys (a join's build keys are not also kept
// as a map then).
func (f *KeyFilter) Keys() (set map[int64]struct{}, ok bool) {
	if f == nil || !f.done || f.set == nil && f.bits == nil {
		return nil, false
	}
	return f.set, true
}

// PublishedKeyFilter returns a key filter already holding the keys set
// (not from a join's build side: a semi join's outer key values).
func PublishedKeyFilter(set map[int64]struct{}) *KeyFilter {
	return &KeyFilter{set: set, bits: keyBitsOf(set), done: true}
}

// publish fills f from the build rows: a bitmap when the keys are dense
// enough (keyBitsOf's rule), else a map. The bitmap is made straight from
// the keys, without the map (~40 bytes a key: 730,000 order keys in
// TPC-H Q21).
func (f *KeyFilter) publish(b *buildSet) {
	f.done = true
	if len(b.rows) > maxKeyFilterKeys {
		return
	}
	vals := make([]int64, 0, b.hashed)
	for i := range b.rows {
		if b.rows[i].null {
			continue
		}
		if b.intPath {
			if f.Key != 0 {
				return
			}
			vals = append(vals, b.ints[i])
			continue
		}
		key := b.keys[i]
		if f.Key >= len(key) {
			return
		}
		v, ok := key[f.Key].(int64)
		if !ok {
			return // a key of another type: no filter
		}
		vals = append(vals, v)
	}
	if bits := denseKeyBits(vals); bits != nil {
		f.bits = bits
		return
	}
	set := make(map[int64]struct{}, len(vals))
	for _, v := range vals {
		set[v] = struct{}{}
	}
	f.set = set
}

// denseKeyBits is vals as a bitmap when keyBitsOf would make one of their
// set, else nil.
func denseKeyBits(vals []int64) *KeyBits {
	if len(vals) == 0 {
		return nil
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	span := uint64(hi) - uint64(lo) // exact: hi >= lo
	// len(vals) bounds the distinct keys: past it no bitmap is made.
	if span >= keyBitsMax || span >= keyBitsPerKey*uint64(len(vals)) {
		return nil
	}
	b := &KeyBits{Lo: lo, Words: make([]uint64, span/64+1)}
	for _, v := range vals {
		d := uint64(v - lo)
		b.Words[d>>6] |= 1 << (d & 63)
	}
	distinct := 0
	for _, w := range b.Words {
		distinct += bits.OnesCount64(w)
	}
	if span >= keyBitsPerKey*uint64(distinct) {
		return nil
	}
	return b
}

// Join returns the join of left and right: a hash join when spec has
// keys, else a nested-loop join. The build side (right for inner, left
// and full joins, left for right joins) is read into memory first,
// charged to the budget; the other side streams past it. Past the
// budget a hash join with spec.Spill turns into a partitioned (grace)
// hash join: both sides are split by key hash into partition files, and
// each partition pair is joined in memory in turn (re-partitioned when
// one build partition is itself too big). Both inputs are closed with the
// join, and its files removed.
func Join(ctx context.Context, left, right Operator, spec JoinSpec) Operator {
	return FromSeq(joinRows(ctx, left, right, spec))
}

// joinRec is one row of a join input with its key; null: the key holds a
// NULL and matches nothing.
type joinRec struct {
	Row  []any
	Key  []any
	Null bool
	h    uint64 // Hash(Key), when hashed and not Null (not written to files)
}

// recSource yields a join input's records; ok is false at the end.
type recSource func() (r joinRec, ok bool, err error)

type buildRow struct {
	row     []any
	h       uint64
	null    bool
	matched bool
}

// buildRowBytes is the memory of a buildRow beside its row's slice (which
// RowBytes counts).
const buildRowBytes = 16

// buildSet is the build side held in memory: its rows and their keys.
// While every non-NULL key is one int64 (JoinSpec.IntKey) the keys are
// ints alone, 8 bytes a row instead of a []any and its boxed value
// (Q21's and Q9's builds hold millions of rows); key derives a row's
// []any key from them for KeyEqual and the partition files.
type buildSet struct {
	rows []buildRow
	// keys holds each row's key when the keys are not all one int64
	// (nil on the int path).
	keys [][]any
	// ints holds each row's int64 key on the int path (0 for a NULL
	// one, which is in no chain), else it is nil.
	ints []int64
	// intPath: keys are kept in ints (IntKey, and every key so far one
	// int64 or NULL).
	intPath bool
	// hashed counts the rows whose key is not NULL (those the table
	// indexes).
	hashed int
}

func newBuildSet(intKey bool) *buildSet { return &buildSet{intPath: intKey} }

// intKeyOf is r's key on the int path: ok is false when it is not one
// int64 nor a NULL one (0).
func intKeyOf(r joinRec) (v int64, ok bool) {
	if len(r.Key) != 1 {
		return 0, false
	}
	if r.Null {
		return 0, r.Key[0] == nil
	}
	v, ok = r.Key[0].(int64)
	return v, ok
}

// derivedKeyBytes is the memory of a key derived from ints: its slice in
// keys and its one value (RowBytes) and the boxed int64.
const derivedKeyBytes = 40 + 8

// keyBytes is what holding r's key costs b (charged before add): 8 bytes
// on the int path; a key that ends it also pays for the earlier rows'
// keys, derived then.
func (b *buildSet) keyBytes(r joinRec) int64 {
	if b.intPath {
		if _, ok := intKeyOf(r); ok {
			return 8
		}
		return RowBytes(r.Key) + int64(len(b.rows))*derivedKeyBytes
	}
	return RowBytes(r.Key) // its slice in keys and its values
}

// add holds row (already copied) with r's key, hash and NULL flag. A key
// that is not one int64 (nor NULL) ends the int path: the earlier rows'
// keys are derived from ints, and every key is kept as it is from then on.
func (b *buildSet) add(row []any, r joinRec) {
	if b.intPath {
		if v, ok := intKeyOf(r); ok {
			b.ints = append(b.ints, v)
		} else {
			b.keys = make([][]any, len(b.rows), cap(b.rows))
			for i := range b.rows {
				b.keys[i] = b.key(i)
			}
			b.ints, b.intPath = nil, false
		}
	}
	if !b.intPath {
		b.keys = append(b.keys, r.Key)
	}
	b.rows = append(b.rows, buildRow{row: row, h: r.h, null: r.Null})
	if !r.Null {
		b.hashed++
	}
}

// key is row i's key (derived on the int path: a fresh slice).
func (b *buildSet) key(i int) []any {
	if !b.intPath {
		return b.keys[i]
	}
	if b.rows[i].null {
		return []any{nil}
	}
	return []any{b.ints[i]}
}

// dropRow forgets row i's values and key (partition wrote them out).
func (b *buildSet) dropRow(i int) {
	b.rows[i] = buildRow{}
	if b.keys != nil {
		b.keys[i] = nil
	}
}

// hashTable indexes the build rows by key hash: open addressing over the
// distinct hashes, each slot holding the first row of its hash's chain
// (next), the chain in build order. It is built once the build side is
// read, sized from its row count, so it never grows or rehashes, and it
// holds small arrays instead of a map entry and a slice per key. A slot
// keeps the high half of its hash, so that a probe passes the slots of
// other hashes without reading their build rows (a cache miss each once
// the build side outgrows the cache); 8 bytes a slot keep the table
// small. It is charged to the budget (hashTableBytes) before it is made.
type hashTable struct {
	mask  uint64
	slots []hashSlot
	next  []int32 // the next row (index + 1) of the same hash; 0: none
	// ints holds each build row's int64 key when every non-NULL build
	// key is one int64 (buildSet.ints), else it is nil.
	ints []int64
	// dense, when set (ints whose range is at most denseSpan times the
	// build rows: a table's integer key, customer's c_custkey 1..150000),
	// is the first row (index + 1) of the chain holding key denseMin + i:
	// a probe then reads one array entry instead of searching the slots.
	dense    []int32
	denseMin int64
}

// denseSpan bounds the key range of a dense index against the build rows
// (4 bytes a key: at most 8 bytes a build row, the slots' own size).
const denseSpan = 2

type hashSlot struct {
	tag uint32 // the high 32 bits of the row's hash
	row int32  // a row index + 1; 0: empty
}

// hashTableSize is the slot count of a table over n hashed rows (at most
// half full).
func hashTableSize(n int) int {
	size := 2
	for size < 2*n {
		size <<= 1
	}
	return size
}

// denseRange is the range of b's non-NULL int64 keys when it is at most
// denseSpan times the build rows (a dense index then pays), else ok is
// false.
func denseRange(b *buildSet) (lo, hi int64, ok bool) {
	if b.ints == nil {
		return 0, 0, false
	}
	seen := false
	for i, k := range b.ints {
		if b.rows[i].null {
			continue
		}
		if !seen || k < lo {
			lo = k
		}
		if !seen || k > hi {
			hi = k
		}
		seen = true
	}
	// hi-lo as uint64 cannot overflow; the span is checked before the
	// allocation.
	return lo, hi, seen && uint64(hi-lo) < uint64(denseSpan*len(b.rows))
}

// hashTableBytes is the memory of b's table: its slots and chain links,
// and its dense index when it gets one (the int64 keys are charged with
// the rows).
func hashTableBytes(b *buildSet) int64 {
	n := int64(hashTableSize(b.hashed))*8 + int64(len(b.rows))*4
	if lo, hi, ok := denseRange(b); ok {
		n += int64(uint64(hi-lo)+1) * 4
	}
	return n
}

func newHashTable(b *buildSet) *hashTable {
	all := b.rows
	size := hashTableSize(b.hashed)
	t := &hashTable{mask: uint64(size - 1), slots: make([]hashSlot, size), next: make([]int32, len(all)), ints: b.ints}
	lo, hi, dense := denseRange(b)
	// Backwards, so each chain is in build order (a probe row's matches
	// come out in the build side's order, as before).
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].null {
			continue
		}
		h := all[i].h
		tag := uint32(h >> 32)
		for p := mix64(h) & t.mask; ; p = (p + 1) & t.mask {
			s := &t.slots[p]
			if s.row == 0 {
				*s = hashSlot{tag: tag, row: int32(i + 1)}
				break
			}
			if s.tag == tag && all[s.row-1].h == h {
				t.next[i] = s.row
				s.row = int32(i + 1)
				break
			}
		}
	}
	if dense {
		t.dense, t.denseMin = make([]int32, hi-lo+1), lo
		for _, s := range t.slots {
			for ci := s.row; ci != 0; ci = t.next[ci-1] {
				if d := &t.dense[t.ints[ci-1]-lo]; *d == 0 {
					*d = s.row
				}
			}
		}
	}
	return t
}

// chain is the first candidate (row index + 1, 0 for none) of probe
// record p (not NULL): the head of its hash's chain. intCmp reports an
// int64 key pInt against int64 build keys (table.ints), compared with ==
// so that a candidate of another key is skipped without its build row.
func (t *hashTable) chain(all []buildRow, p joinRec) (ci int32, pInt int64, intCmp bool) {
	if t.ints != nil && len(p.Key) == 1 {
		pInt, intCmp = p.Key[0].(int64)
	}
	if intCmp {
		return t.firstInt(all, p.h, pInt), pInt, true
	}
	return t.first(all, p.h), 0, false
}

// first is the first row (index + 1) of hash h, 0 for none.
func (t *hashTable) first(all []buildRow, h uint64) int32 {
	tag := uint32(h >> 32)
	for p := mix64(h) & t.mask; ; p = (p + 1) & t.mask {
		s := t.slots[p]
		if s.row == 0 || s.tag == tag && all[s.row-1].h == h {
			return s.row
		}
	}
}

// firstInt is first for a probe key k of hash h when the table has ints:
// a head row of key k is of hash h (equal keys hash alike), so the build
// row is read only when the keys differ.
func (t *hashTable) firstInt(all []buildRow, h uint64, k int64) int32 {
	if t.dense != nil {
		if off := uint64(k - t.denseMin); off < uint64(len(t.dense)) {
			return t.dense[off]
		}
		return 0
	}
	tag := uint32(h >> 32)
	for p := mix64(h) & t.mask; ; p = (p + 1) & t.mask {
		s := t.slots[p]
		if s.row == 0 || s.tag == tag && (t.ints[s.row-1] == k || all[s.row-1].h == h) {
			return s.row
		}
	}
}

// mix64 spreads a hash's bits (the finalizer of SplitMix64), so a weak
// Hash (small integers) still fills the table evenly.
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// errStopped: the consumer stopped reading.
var errStopped = errors.New("join: consumer stopped")

// joiner runs one join.
type joiner struct {
	ctx   context.Context
	spec  JoinSpec
	yield func([]any, error) bool
	// probeKeep, buildKeep: the side keeps its unmatched rows.
	probeKeep, buildKeep bool
	buildIsLeft          bool // the build side is the left input (RIGHT JOIN, or BuildLeft)
	hashed               bool
	probeNulls           []any // the NULLs padding an unmatched probe row
	buildNulls           []any // those padding an unmatched build row
	spill                *spillFiles
	slab                 []any // output rows are cut from it (combine)
	buildCols            []int // the build rows hold these positions only (JoinSpec.BuildCols)
}

// slabRows is how many output rows combine allocates at once.
const slabRows = 128

func joinRows(ctx context.Context, left, right Operator, spec JoinSpec) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		defer left.Close()
		defer right.Close()
		j := &joiner{ctx: ctx, spec: spec, yield: yield, hashed: spec.LeftKey != nil}
		build, probe := right, left
		buildKey, probeKey := spec.RightKey, spec.LeftKey
		j.probeNulls = make([]any, spec.RightWidth)
		j.buildNulls = make([]any, spec.LeftWidth)
		j.probeKeep = spec.Kind != InnerJoin
		j.buildKeep = spec.Kind == FullJoin
		buildLeft := spec.BuildLeft && spec.Kind == LeftJoin && j.hashed
		if spec.Kind == RightJoin || buildLeft {
			build, probe = left, right
			buildKey, probeKey = spec.LeftKey, spec.RightKey
			j.probeNulls, j.buildNulls = j.buildNulls, j.probeNulls
			j.buildIsLeft = true
		}
		if buildLeft {
			// The left side keeps its unmatched rows: it is the build
			// side now.
			j.probeKeep, j.buildKeep = false, true
		}
		buildSrc := j.opSource(build, buildKey)
		if cols := spec.BuildCols; cols != nil {
			j.buildCols = cols
			j.probeNulls = make([]any, len(cols))
			buildSrc = packedSource(buildSrc, cols)
		}
		if spec.Group != nil && (!j.hashed || j.probeKeep) {
			yield(nil, errors.New("join: a group join needs a hash join whose probe side keeps no unmatched rows"))
			return
		}
		defer j.removeFiles()
		err := j.run(buildSrc, j.opSource(probe, probeKey), 0, func() { build.Close() })
		if err != nil && !errors.Is(err, errStopped) {
			yield(nil, err)
		}
	}
}

// packedSource yields the records of src with only the values at cols in
// their rows, in a buffer valid until the next call (run copies the rows
// it holds; partition writes them out at once).
func packedSource(src recSource, cols []int) recSource {
	buf := make([]any, len(cols))
	return func() (joinRec, bool, error) {
		r, ok, err := src()
		if ok {
			for k, pos := range cols {
				buf[k] = r.Row[pos]
			}
			r.Row = buf
		}
		return r, ok, err
	}
}

// opSource reads an operator's rows as records.
func (j *joiner) opSource(op Operator, key func([]any) ([]any, error)) recSource {
	var batch [][]any
	i := 0
	return func() (joinRec, bool, error) {
		for i >= len(batch) {
			b, err := op.Next(j.ctx)
			if errors.Is(err, io.EOF) {
				return joinRec{}, false, nil
			}
			if err != nil {
				return joinRec{}, false, err
			}
			if err := j.ctx.Err(); err != nil {
				return joinRec{}, false, err
			}
			batch, i = b, 0
		}
		r := joinRec{Row: batch[i]}
		i++
		if key != nil {
			k, err := key(r.Row)
			if err != nil {
				return joinRec{}, false, err
			}
			r.Key = k
			h, ok := j.spec.Hash(k)
			r.h, r.Null = h, !ok
		}
		return r, true, nil
	}
}

// emit passes a row to the consumer.
func (j *joiner) emit(row []any) error {
	if !j.yield(row, nil) {
		return errStopped
	}
	return nil
}

// combine makes the output row of a probe row and a build row.
func (j *joiner) combine(p, b []any) []any {
	w := j.spec.LeftWidth + j.spec.RightWidth
	if len(j.slab) < w {
		j.slab = make([]any, w*slabRows)
	}
	row := j.slab[:w:w]
	j.slab = j.slab[w:]
	probeAt, buildAt := 0, j.spec.LeftWidth
	if j.buildIsLeft {
		probeAt, buildAt = j.spec.LeftWidth, 0
	}
	copy(row[probeAt:], p)
	if j.buildCols == nil {
		copy(row[buildAt:], b)
		return row
	}
	// The slab is fresh (all NULL): only the held positions are set.
	for k, pos := range j.buildCols {
		row[buildAt+pos] = b[k]
	}
	return row
}

// run joins build and probe, holding the build side in memory; past the
// budget (a hash join with a spill area) it partitions both to files and
// joins the partitions. buildDone is called once the build side is read.
func (j *joiner) run(build, probe recSource, depth int, buildDone func()) error {
	b := newBuildSet(j.spec.IntKey && j.hashed)
	var arena []any // the build rows' values are cut from it
	var charged int64
	budget := j.spec.Budget
	defer func() {
		if budget != nil {
			budget.Release(charged)
		}
	}()
	// overBudget spills past the budget: the rows held (b) and, when
	// cur is set, the one that did not fit and the rest of build.
	overBudget := func(err error, cur *joinRec) error {
		if !j.hashed || j.spec.Spill == nil || depth >= maxSpillDepth {
			return err
		}
		budget.Release(charged)
		charged = 0
		return j.partition(b, cur, build, probe, depth, buildDone)
	}
	for {
		r, ok, err := build()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r.Null && !j.buildKeep {
			continue // a NULL key joins nothing and the build side keeps nothing
		}
		n := RowBytes(r.Row) + buildRowBytes
		if j.hashed {
			n += b.keyBytes(r)
		}
		if j.spec.Group != nil {
			n += j.spec.Group.Bytes
		}
		if budget != nil {
			if err := budget.Grow(j.spec.Name, n); err != nil {
				budget.Release(n)
				return overBudget(err, &r)
			}
		}
		charged += n
		// Copied (an operator's rows are valid until its next batch), to
		// a slab of slabRows rows: one allocation for many rows, and
		// rows read together stay together.
		if len(arena) < len(r.Row) {
			arena = make([]any, len(r.Row)*slabRows)
		}
		row := arena[:len(r.Row):len(r.Row)]
		arena = arena[len(r.Row):]
		copy(row, r.Row)
		if j.hashed {
			b.add(row, r)
		} else {
			b.rows = append(b.rows, buildRow{row: row})
		}
	}
	if buildDone != nil {
		buildDone()
		buildDone = nil
	}
	all := b.rows
	var table *hashTable
	if j.hashed {
		// The table is charged too: a build side whose rows fit the
		// budget but not with their table spills (or fails) here.
		n := hashTableBytes(b)
		if budget != nil {
			if err := budget.Grow(j.spec.Name, n); err != nil {
				budget.Release(n)
				return overBudget(err, nil)
			}
		}
		charged += n
		if depth == 0 && j.spec.KeyFilter != nil && j.spec.Kind == InnerJoin {
			j.spec.KeyFilter.publish(b)
		}
		if len(all) == 0 && !j.probeKeep {
			return nil
		}
		table = newHashTable(b)
	}
	if len(all) == 0 && !j.probeKeep {
		return nil
	}
	if j.spec.Group != nil {
		return j.groupProbe(b, table, probe)
	}
	// One boxed key reused for KeyEqual of a derived build key (a probe
	// key that is not an int64 against int64 build keys).
	var derived [1]any
	for n := 0; ; n++ {
		if n%BatchSize == 0 {
			if err := j.ctx.Err(); err != nil {
				return err
			}
		}
		p, ok, err := probe()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		// The candidates: the chain of p's hash (hashed), else every
		// build row. ci is a row index + 1.
		// An int64 probe key against int64 build keys is compared in
		// table.ints (JoinSpec.IntKey): equal is ==, and a candidate of
		// another key is skipped without reading its build row.
		var ci int32
		var pInt int64
		intCmp := false
		switch {
		case !j.hashed && len(all) > 0:
			ci = 1
		case j.hashed && !p.Null:
			ci, pInt, intCmp = table.chain(all, p)
		}
		matched := false
		for ; ci != 0; ci = nextCand(table, ci, len(all)) {
			if intCmp && table.ints[ci-1] != pInt {
				continue
			}
			br := &all[ci-1]
			if j.hashed && !intCmp {
				var bk []any
				if b.intPath {
					derived[0] = b.ints[ci-1]
					bk = derived[:]
				} else {
					bk = b.keys[ci-1]
				}
				lk, rk := p.Key, bk
				if j.buildIsLeft {
					lk, rk = bk, p.Key
				}
				if !j.spec.KeyEqual(lk, rk) {
					continue
				}
			}
			row := j.combine(p.Row, br.row)
			if j.spec.Cond != nil {
				ok, err := j.spec.Cond(row)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			matched, br.matched = true, true
			if err := j.emit(row); err != nil {
				return err
			}
		}
		if !matched && j.probeKeep {
			if err := j.emit(j.combine(p.Row, j.probeNulls)); err != nil {
				return err
			}
		}
	}
	if j.buildKeep {
		for i := range all {
			if !all[i].matched {
				if err := j.emit(j.combine(j.buildNulls, all[i].row)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// nextCand is the candidate after ci (index + 1): the next of its hash's
// chain, or of every build row (table nil: a nested loop over n rows).
func nextCand(t *hashTable, ci int32, n int) int32 {
	if t == nil {
		if int(ci) >= n {
			return 0
		}
		return ci + 1
	}
	return t.next[ci-1]
}

// partition spills: the build rows read so far (held), the one that did
// not fit (cur) and the rest of build (nil cur: build is read already,
// held is all of it), and all of probe go to spillFanout partition files
// each, by key hash; then each pair of partitions is joined (run again,
// one level deeper).
func (j *joiner) partition(held *buildSet, cur *joinRec, build, probe recSource, depth int, buildDone func()) error {
	if j.spill == nil {
		j.spill = &spillFiles{area: j.spec.Spill}
	}
	bparts, err := j.spill.create(spillFanout, "build")
	if err != nil {
		return err
	}
	write := func(parts []*spillFile, r joinRec) error {
		i := 0
		if !r.Null {
			i = partitionOf(r.h, depth)
		}
		return parts[i].write(r)
	}
	for i, b := range held.rows {
		if err := write(bparts, joinRec{Row: b.row, Key: held.key(i), Null: b.null, h: b.h}); err != nil {
			return err
		}
		held.dropRow(i)
	}
	held.rows, held.keys, held.ints = nil, nil, nil
	for cur != nil {
		if err := write(bparts, *cur); err != nil {
			return err
		}
		cur = nil
		for cur == nil {
			r, ok, err := build()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if !r.Null || j.buildKeep {
				cur = &r
			}
		}
	}
	if buildDone != nil {
		buildDone()
	}
	pparts, err := j.spill.create(spillFanout, "probe")
	if err != nil {
		return err
	}
	for {
		r, ok, err := probe()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r.Null {
			// Matches nothing: out now if the probe side keeps its rows.
			if j.probeKeep {
				if err := j.emit(j.combine(r.Row, j.probeNulls)); err != nil {
					return err
				}
			}
			continue
		}
		if err := write(pparts, r); err != nil {
			return err
		}
	}
	for i := range bparts {
		if err := bparts[i].finish(); err != nil {
			return err
		}
		if err := pparts[i].finish(); err != nil {
			return err
		}
	}
	for i := range bparts {
		err := j.run(bparts[i].source(j.ctx, j.spec.Hash), pparts[i].source(j.ctx, j.spec.Hash), depth+1, nil)
		j.spill.remove(bparts[i])
		j.spill.remove(pparts[i])
		if err != nil {
			return err
		}
	}
	return nil
}

func (j *joiner) removeFiles() {
	if j.spill != nil {
		j.spill.close()
	}
}
