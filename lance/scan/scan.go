// Package scan is the one reader of filtered rows of a Lance dataset
// version. A Scanner takes the columns to return, predicates on single
// columns (ANDed), a limit and an offset; it picks a scalar index that can
// answer the most selective predicate (lance/index), intersects the answers
// of indices on the other predicates, reads only the rows left from the
// fragments every used index covers, scans the other fragments, skips
// deleted rows and checks every remaining predicate on the rows it reads.
// Results stream as Arrow record batches of bounded size: memory does not
// grow with the table.
//
// Row addresses and index files stay inside lance/: callers see columns,
// predicates and a Plan (the chosen index, covered and uncovered fragments,
// estimated rows) to print for EXPLAIN. A writer that must change the rows
// it found asks for their addresses (Options.WithRowAddress) and hands them
// back to lance/dataset unread.
//
// Predicates have the semantics of a Lance index search (index.Query): a
// row matches exactly when an index on the column would return it, with or
// without the index. Nulls never match, except for IS NULL.
package scan

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/index"
)

// ErrInvalid is wrapped by the errors of options a Scanner cannot serve: an
// unknown column, a predicate that does not fit its column's type, an index
// that does not exist or cannot answer any predicate. It also wraps
// dataset.ErrInvalidArgument or index.ErrBadQuery where those apply.
var ErrInvalid = errors.New("scan: invalid options")

// Bound is one end of a Range predicate.
type Bound = index.Bound

// Predicate is a condition on one column, with Lance index semantics.
type Predicate struct {
	Column string
	Query  index.Query
	// Index, when set, is the only index that may answer this predicate
	// (the caller knows which index agrees with its own comparisons); ""
	// lets the scanner pick any index on Column that can answer it.
	Index string
	// Label is how the predicate is printed in a Plan ("" prints Column
	// and Query), e.g. the SQL text the caller derived it from.
	Label string
}

// Eq is column = v.
func Eq(column string, v any) Predicate { return Predicate{Column: column, Query: index.Eq(v)} }

// In is column IN (vs...).
func In(column string, vs ...any) Predicate {
	return Predicate{Column: column, Query: index.In(vs...)}
}

// Prefix is "column starts with p" on a string column.
func Prefix(column, p string) Predicate {
	return Predicate{Column: column, Query: index.Prefix(p)}
}

// Range is lo <(=) column <(=) hi; a nil bound is unbounded.
func Range(column string, lo, hi *Bound) Predicate {
	return Predicate{Column: column, Query: index.Range(lo, hi)}
}

// IsNull is column IS NULL.
func IsNull(column string) Predicate { return Predicate{Column: column, Query: index.IsNull()} }

// HasAny is array_has_any(column, labels) on a list column.
func HasAny(column string, labels ...any) Predicate {
	return Predicate{Column: column, Query: index.HasAny(labels...)}
}

// HasAll is array_has_all(column, labels) on a list column.
func HasAll(column string, labels ...any) Predicate {
	return Predicate{Column: column, Query: index.HasAll(labels...)}
}

func (p Predicate) String() string {
	if p.Label != "" {
		return p.Label
	}
	return p.Column + " " + p.Query.String()
}

// Options select what a Scanner returns.
type Options struct {
	// Columns are the top-level columns returned, in this order; nil
	// returns every column in schema order.
	Columns []string
	// Predicates restrict the rows (all must hold).
	Predicates []Predicate
	// Offset skips that many matching rows; Limit stops after that many
	// (0: no limit).
	Offset, Limit uint64
	// NoIndices scans every fragment, checking the predicates on each row.
	NoIndices bool
	// Indices, when set, keeps the indices opened by scans of the same
	// dataset version, so repeated scans (point lookups) do not reopen
	// them. It must have been made for the Scanner's dataset.
	Indices *Indices
	// WithRowAddress appends the column dataset.RowAddressColumn (fragment
	// id << 32 | offset) to the returned columns: the handle a row change
	// (dataset.Update, Delete) takes back.
	WithRowAddress bool
	// Index, when set, names the one index the scanner may use; New fails
	// when it does not exist or answers none of the predicates.
	Index string
	// BatchSize bounds the rows read at a time (default
	// dataset.DefaultBatchSize); output batches hold at most that many.
	BatchSize int
	// Allocator for the arrays built (default Go allocator).
	Allocator memory.Allocator
	// Filter, when set, drops the rows its Select does not keep, deciding
	// from its columns (some of Columns) before the scan decodes the
	// others (late materialization; see dataset.RowFilter). It holds with
	// the predicates; Offset and Limit count the rows both keep.
	Filter *RowFilter
}

// RowFilter selects rows by some of the scanned columns before the others
// are decoded.
type RowFilter = dataset.RowFilter

// Indices holds the scalar indices of one dataset version, each opened on
// first use and kept; safe for concurrent use. Opening reads an index's
// lookup structures (BTREE page lookup, bitmap keys), which costs more than
// a point lookup itself.
type Indices struct {
	ds   *dataset.Dataset
	mu   sync.Mutex
	open map[string]openedIndex
}

type openedIndex struct {
	ix  *index.Index
	err error
}

// NewIndices returns an empty cache of ds's indices.
func NewIndices(ds *dataset.Dataset) *Indices {
	return &Indices{ds: ds, open: map[string]openedIndex{}}
}

// get opens the index name once. An index that cannot serve (unsupported,
// absent) keeps its error; other errors (I/O, cancellation) are retried
// on the next call.
func (c *Indices) get(ctx context.Context, name string) (*index.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.open[name]; ok {
		return o.ix, o.err
	}
	ix, err := index.Open(ctx, c.ds, name)
	if err == nil || errors.Is(err, index.ErrUnsupported) || errors.Is(err, index.ErrNoIndex) {
		c.open[name] = openedIndex{ix, err}
	}
	return ix, err
}

// Scanner reads the rows of one dataset version that Options select. Plan
// and Records may be called several times; a Scanner is not safe for
// concurrent use.
type Scanner struct {
	ds   *dataset.Dataset
	opts Options
	mem  memory.Allocator
	// out are the returned columns; read are out followed by the predicate
	// columns out lacks (the names the underlying scan reads).
	out, read []string
	preds     []boundPredicate
	// choice is the index chosen from the manifest (nil: none); extra are
	// indices on other predicates whose answers are intersected with it
	// (not with Options.Index).
	choice *choice
	extra  []choice
	// used lists the predicates an index answered in the last search.
	used []int
	// searched caches the index answer (searchedOK false: not searched yet).
	searched   *index.Result
	searchedOK bool
	fallback   string // why the chosen index was not used ("" if it was)
	// filterAt are the positions in out (and read) of Options.Filter's
	// columns.
	filterAt []int
}

type boundPredicate struct {
	Predicate
	col     int // position in read
	matcher *index.Matcher
}

type choice struct {
	name string
	kind index.Kind
	pred int // index into preds
}

// New validates opts against ds and chooses an index (from the manifest
// alone; no file is read).
func New(ds *dataset.Dataset, opts Options) (*Scanner, error) {
	s := &Scanner{ds: ds, opts: opts, mem: opts.Allocator}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	if s.opts.BatchSize <= 0 {
		s.opts.BatchSize = dataset.DefaultBatchSize
	}
	if opts.Indices != nil && opts.Indices.ds != ds {
		return nil, fmt.Errorf("%w: Indices made for another dataset version", ErrInvalid)
	}
	s.out = opts.Columns
	if s.out == nil {
		for _, f := range ds.Schema().Fields {
			s.out = append(s.out, f.Name)
		}
	}
	for _, c := range s.out {
		if ds.Schema().Field(c) == nil {
			return nil, fmt.Errorf("%w: %w: no column %q in %s", ErrInvalid, dataset.ErrInvalidArgument, c, ds.URI())
		}
	}
	s.read = slices.Clone(s.out)
	if err := s.SetFilter(opts.Filter); err != nil {
		return nil, err
	}
	for _, p := range opts.Predicates {
		f := ds.Schema().Field(p.Column)
		if f == nil {
			return nil, fmt.Errorf("%w: %w: predicate on unknown column %q in %s", ErrInvalid, dataset.ErrInvalidArgument, p.Column, ds.URI())
		}
		t, err := f.ArrowType()
		if err != nil {
			return nil, err
		}
		m, err := index.NewMatcher(p.Query, t)
		if err != nil {
			return nil, fmt.Errorf("%w: predicate %s: %w", ErrInvalid, p, err)
		}
		col := slices.Index(s.read, p.Column)
		if col < 0 {
			col = len(s.read)
			s.read = append(s.read, p.Column)
		}
		s.preds = append(s.preds, boundPredicate{Predicate: p, col: col, matcher: m})
	}
	if opts.NoIndices {
		if opts.Index != "" {
			return nil, fmt.Errorf("%w: Index %q with NoIndices", ErrInvalid, opts.Index)
		}
		return s, nil
	}
	s.choice = s.chooseIndex()
	if s.choice != nil && opts.Index == "" {
		s.extra = s.otherIndices(s.choice.pred)
	}
	if opts.Index != "" && s.choice == nil {
		for _, info := range index.Describe(ds) {
			if info.Name == opts.Index {
				return nil, fmt.Errorf("%w: index %q (%s on %v) answers none of the predicates", ErrInvalid, opts.Index, info.Kind, info.Columns)
			}
		}
		return nil, fmt.Errorf("%w: %w: %q in %s", ErrInvalid, index.ErrNoIndex, opts.Index, ds.URI())
	}
	return s, nil
}

// SetFilter replaces Options.Filter (nil: none) for the next Records.
func (s *Scanner) SetFilter(rf *RowFilter) error {
	var at []int
	if rf != nil {
		if rf.Select == nil || len(rf.Columns) == 0 {
			return fmt.Errorf("%w: a row filter needs columns and Select", ErrInvalid)
		}
		for _, c := range rf.Columns {
			i := slices.Index(s.out, c)
			if i < 0 || slices.Contains(at, i) {
				return fmt.Errorf("%w: row filter column %q is not returned or named twice", ErrInvalid, c)
			}
			at = append(at, i)
		}
	}
	s.opts.Filter, s.filterAt = rf, at
	return nil
}

// answers reports whether an index of kind k can answer op.
func answers(k index.Kind, op index.Op) bool {
	switch k {
	case index.KindBTree, index.KindBitmap:
		return op != index.OpHasAny && op != index.OpHasAll
	case index.KindLabelList:
		return op == index.OpHasAny || op == index.OpHasAll
	}
	return false
}

// answeredBy reports whether index info may answer p.
func (p Predicate) answeredBy(info index.Info) bool {
	if p.Index != "" && info.Name != p.Index {
		return false
	}
	return len(info.Columns) == 1 && info.Columns[0] == p.Column && answers(info.Kind, p.Query.Op)
}

// selectivity ranks predicates for index choice: point lookups before
// ranges before IS NULL.
func selectivity(op index.Op) int {
	switch op {
	case index.OpEq, index.OpIn, index.OpHasAll, index.OpHasAny:
		return 0
	case index.OpPrefix, index.OpRange:
		return 1
	}
	return 2
}

// chooseIndex picks, among the indices on one predicate's column that can
// answer it, the one for the most selective predicate (earliest on ties).
func (s *Scanner) chooseIndex() *choice {
	var best *choice
	infos := index.Describe(s.ds)
	for i, p := range s.preds {
		for _, info := range infos {
			if s.opts.Index != "" && info.Name != s.opts.Index {
				continue
			}
			if !p.answeredBy(info) {
				continue
			}
			if best == nil || selectivity(p.Query.Op) < selectivity(s.preds[best.pred].Query.Op) {
				best = &choice{name: info.Name, kind: info.Kind, pred: i}
			}
			break
		}
	}
	return best
}

// otherIndices lists, for each predicate but skip, the first index that
// answers it.
func (s *Scanner) otherIndices(skip int) []choice {
	var out []choice
	infos := index.Describe(s.ds)
	for i, p := range s.preds {
		if i == skip {
			continue
		}
		for _, info := range infos {
			if p.answeredBy(info) {
				out = append(out, choice{name: info.Name, kind: info.Kind, pred: i})
				break
			}
		}
	}
	return out
}

// search asks the chosen index once. A nil result means no index is used:
// none was chosen, or it cannot serve this dataset (stable row ids, an
// unsupported value type), in which case s.fallback says why.
func (s *Scanner) search(ctx context.Context) (*index.Result, error) {
	if s.searchedOK {
		return s.searched, nil
	}
	if s.choice == nil {
		s.searchedOK = true
		return nil, nil
	}
	res, err := s.doSearch(ctx)
	if err != nil {
		if s.opts.Index == "" && (errors.Is(err, index.ErrUnsupported) || errors.Is(err, index.ErrBadQuery)) {
			s.fallback = err.Error()
			s.searchedOK = true
			return nil, nil
		}
		return nil, err
	}
	s.searched, s.searchedOK = res, true
	return res, nil
}

func (s *Scanner) doSearch(ctx context.Context) (*index.Result, error) {
	res, err := searchOne(ctx, s.ds, s.opts.Indices, *s.choice, s.preds)
	if err != nil {
		return nil, err
	}
	s.used = []int{s.choice.pred}
	// Intersect the answers of indices on other predicates. A fragment one
	// of them does not cover is scanned with every predicate, so hits there
	// are dropped. An index that cannot serve is skipped: its predicate
	// stays residual.
	unc := map[uint64]bool{}
	for _, id := range res.Uncovered {
		unc[id] = true
	}
	for _, c := range s.extra {
		more, err := searchOne(ctx, s.ds, s.opts.Indices, c, s.preds)
		if errors.Is(err, index.ErrUnsupported) || errors.Is(err, index.ErrBadQuery) {
			continue
		}
		if err != nil {
			return nil, err
		}
		res.Rows.And(more.Rows)
		for _, id := range more.Uncovered {
			unc[id] = true
		}
		s.used = append(s.used, c.pred)
	}
	if len(s.used) > 1 {
		res.Uncovered = res.Uncovered[:0]
		for id := range unc {
			res.Uncovered = append(res.Uncovered, id)
		}
		slices.Sort(res.Uncovered)
		res.Rows.RetainGroups(func(hi uint32) bool { return !unc[uint64(hi)] })
	}
	return res, nil
}

func searchOne(ctx context.Context, ds *dataset.Dataset, cache *Indices, c choice, preds []boundPredicate) (*index.Result, error) {
	var ix *index.Index
	var err error
	if cache != nil {
		ix, err = cache.get(ctx, c.name)
	} else {
		ix, err = index.Open(ctx, ds, c.name)
	}
	if err != nil {
		return nil, err
	}
	return ix.Search(ctx, preds[c.pred].Query)
}

// Plan is how a Scanner reads: what EXPLAIN prints.
type Plan struct {
	// Index is the name of the index used ("" for none), IndexKind its kind
	// (BTREE, BITMAP, LABEL_LIST) and IndexPredicate the predicate it answers.
	Index, IndexKind, IndexPredicate string
	// AlsoIndices describe the indices on other predicates whose answers
	// are intersected with Index's ("KIND "name" answers predicate").
	AlsoIndices []string
	// Indices names every index used: Index first, then those of
	// AlsoIndices.
	Indices []string
	// IndexHits counts the rows of covered fragments the indices matched
	// (before residual predicates, offset and limit).
	IndexHits uint64
	// Residual are the predicates no index answered, checked on every row
	// read. The rows of fragments read in full (Scanned) are checked against
	// every predicate.
	Residual []string
	// Covered are the fragments the index covers, HitFragments those of them
	// holding index hits (the only covered fragments read).
	Covered, HitFragments []uint64
	// Scanned are the fragments read in full: all of them without an index,
	// the uncovered ones with an index.
	Scanned []uint64
	// EstimatedRows bounds the rows returned: index hits plus the live rows
	// of scanned fragments, within Offset and Limit. It is exact when no
	// residual predicate applies.
	EstimatedRows uint64
	// Fallback says why an index chosen from the manifest was not used.
	Fallback string
}

// Lines renders the plan for EXPLAIN, one fact per line.
func (p *Plan) Lines() []string {
	var out []string
	if p.Index != "" {
		out = append(out, fmt.Sprintf("index %s %q answers %s", p.IndexKind, p.Index, p.IndexPredicate))
		for _, a := range p.AlsoIndices {
			out = append(out, "intersected with index "+a)
		}
		out = append(out, fmt.Sprintf("covered fragments %s, read %s", fragList(p.Covered), fragList(p.HitFragments)))
		if len(p.Scanned) > 0 {
			out = append(out, "uncovered fragments scanned "+fragList(p.Scanned)+", checking every predicate")
		} else {
			out = append(out, "uncovered fragments scanned none")
		}
	} else {
		out = append(out, "full scan of fragments "+fragList(p.Scanned))
	}
	if p.Fallback != "" {
		out = append(out, "index not used: "+p.Fallback)
	}
	if len(p.Residual) > 0 {
		out = append(out, "filter "+strings.Join(p.Residual, " AND "))
	}
	out = append(out, fmt.Sprintf("estimated rows %d", p.EstimatedRows))
	return out
}

func fragList(ids []uint64) string {
	if len(ids) == 0 {
		return "none"
	}
	const show = 8
	parts := make([]string, 0, show+1)
	for i, id := range ids {
		if i == show {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(ids)))
			break
		}
		parts = append(parts, fmt.Sprint(id))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Plan searches the chosen index (the answer is kept for Records) and
// reports how the scan reads.
func (s *Scanner) Plan(ctx context.Context) (*Plan, error) {
	res, err := s.search(ctx)
	if err != nil {
		return nil, err
	}
	p := &Plan{Fallback: s.fallback}
	var est uint64
	if res == nil {
		for _, bp := range s.preds {
			p.Residual = append(p.Residual, bp.String())
		}
		for _, f := range s.ds.Fragments() {
			p.Scanned = append(p.Scanned, f.ID)
			n, err := s.ds.FragmentLiveRows(ctx, f)
			if err != nil {
				return nil, err
			}
			est += n
		}
	} else {
		c := s.choice
		p.Index, p.IndexKind, p.IndexPredicate = c.name, c.kind.String(), s.preds[c.pred].String()
		p.Indices = []string{c.name}
		for _, e := range s.extra {
			if slices.Contains(s.used, e.pred) {
				p.AlsoIndices = append(p.AlsoIndices, fmt.Sprintf("%s %q answers %s", e.kind, e.name, s.preds[e.pred]))
				p.Indices = append(p.Indices, e.name)
			}
		}
		for i, bp := range s.preds {
			if !slices.Contains(s.used, i) {
				p.Residual = append(p.Residual, bp.String())
			}
		}
		for _, f := range s.ds.Fragments() {
			if slices.Contains(res.Uncovered, f.ID) {
				p.Scanned = append(p.Scanned, f.ID)
				n, err := s.ds.FragmentLiveRows(ctx, f)
				if err != nil {
					return nil, err
				}
				est += n
				continue
			}
			p.Covered = append(p.Covered, f.ID)
			if f.ID <= uint64(^uint32(0)) {
				if lows, ok := res.Rows.Group(uint32(f.ID)); ok && !lows.IsEmpty() {
					p.HitFragments = append(p.HitFragments, f.ID)
					est += lows.GetCardinality()
					p.IndexHits += lows.GetCardinality()
				}
			}
		}
	}
	est = max(est, s.opts.Offset) - s.opts.Offset
	if s.opts.Limit > 0 {
		est = min(est, s.opts.Limit)
	}
	p.EstimatedRows = est
	return p, nil
}

// errStop ends a dataset scan early (limit reached or the consumer stopped).
var errStop = errors.New("scan: stop")

// Records streams the selected rows as record batches of at most BatchSize
// rows, fragments in manifest order and rows in fragment order. A batch is
// valid until the loop body returns: Retain it to keep it. An error ends
// the sequence (yielded once, with a nil batch).
func (s *Scanner) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		r := &run{s: s, yield: yield, skip: s.opts.Offset, remaining: s.opts.Limit, limited: s.opts.Limit > 0}
		err := r.run(ctx)
		if err != nil && !errors.Is(err, errStop) {
			yield(nil, err)
		}
	}
}

// run is the state of one Records iteration.
type run struct {
	s         *Scanner
	yield     func(arrow.RecordBatch, error) bool
	schema    *arrow.Schema // of the output
	skip      uint64
	remaining uint64
	limited   bool
}

func (r *run) run(ctx context.Context) error {
	s := r.s
	if len(s.preds) == 0 {
		// Nothing to filter: the dataset scan does offset and limit itself.
		return s.ds.Scan(ctx, dataset.ScanOptions{Columns: s.out, Offset: s.opts.Offset, Limit: s.opts.Limit, BatchSize: s.opts.BatchSize, Allocator: s.mem, WithRowAddress: s.opts.WithRowAddress, Filter: s.opts.Filter}, func(rec arrow.RecordBatch) error {
			if !r.yield(rec, nil) {
				return errStop
			}
			return nil
		})
	}
	if s.opts.Limit > 0 && r.limited && r.remaining == 0 {
		return nil
	}
	res, err := s.search(ctx)
	if err != nil {
		return err
	}
	all := make([]int, len(s.preds))
	for i := range all {
		all[i] = i
	}
	if res == nil {
		return s.ds.Scan(ctx, s.scanOptions(nil), func(rec arrow.RecordBatch) error {
			return r.filter(rec, nil, all)
		})
	}
	var residual []int
	for i := range s.preds {
		if !slices.Contains(s.used, i) {
			residual = append(residual, i)
		}
	}
	for _, f := range s.ds.Fragments() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if slices.Contains(res.Uncovered, f.ID) {
			if err := s.ds.Scan(ctx, s.scanOptions([]uint64{f.ID}), func(rec arrow.RecordBatch) error {
				return r.filter(rec, nil, all)
			}); err != nil {
				return err
			}
			continue
		}
		if f.ID > uint64(^uint32(0)) {
			continue
		}
		lows, ok := res.Rows.Group(uint32(f.ID))
		if !ok || lows.IsEmpty() {
			continue
		}
		if err := r.readHits(ctx, f, lows, residual); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scanner) scanOptions(frags []uint64) dataset.ScanOptions {
	return dataset.ScanOptions{Columns: s.read, Fragments: frags, BatchSize: s.opts.BatchSize, Allocator: s.mem, WithRowAddress: s.opts.WithRowAddress, Filter: s.opts.Filter}
}

// filterTaken applies Options.Filter to rows taken by address (the
// dataset scan applies it to the rows it reads): keep reports whether row
// i of rec passes (nil: no filter).
func (s *Scanner) filterTaken(rec arrow.RecordBatch) (keep func(i int) bool, err error) {
	rf := s.opts.Filter
	if rf == nil {
		return nil, nil
	}
	cols := make([]arrow.Array, len(s.filterAt))
	fields := make([]arrow.Field, len(s.filterAt))
	for i, at := range s.filterAt {
		cols[i], fields[i] = rec.Column(at), rec.Schema().Field(at)
	}
	batch := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer batch.Release()
	sel, err := rf.Select(batch)
	if err != nil {
		return nil, err
	}
	kept := make([]bool, rec.NumRows())
	for _, i := range sel {
		if i < 0 || i >= len(kept) {
			return nil, fmt.Errorf("%w: row filter selected row %d of %d", ErrInvalid, i, len(kept))
		}
		kept[i] = true
	}
	return func(i int) bool { return kept[i] }, nil
}

// sparse is the hit density below which the rows of a covered fragment are
// taken one by one instead of scanning it: a take decodes only the pages
// holding hits, a scan decodes every page once.
const sparse = 16

// readHits reads the rows lows (offsets, live) of covered fragment f and
// checks the residual predicates on them.
func (r *run) readHits(ctx context.Context, f *dataset.Fragment, lows *roaring.Bitmap, residual []int) error {
	s := r.s
	hits := lows.GetCardinality()
	if f.PhysicalRows > 0 && hits*sparse >= f.PhysicalRows {
		opts := s.scanOptions([]uint64{f.ID})
		opts.WithRowAddress = true
		return s.ds.Scan(ctx, opts, func(rec arrow.RecordBatch) error {
			addrs, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
			if !ok {
				return fmt.Errorf("scan: row address column of type %s", rec.Column(int(rec.NumCols())-1).DataType())
			}
			return r.filter(rec, func(i int) bool { return lows.Contains(uint32(addrs.Value(i))) }, residual)
		})
	}
	batch := make([]uint64, 0, min(hits, uint64(s.opts.BatchSize)))
	it := lows.Iterator()
	for it.HasNext() {
		batch = append(batch, f.ID<<32|uint64(it.Next()))
		if len(batch) == cap(batch) || !it.HasNext() {
			rec, err := s.ds.Take(ctx, batch, dataset.TakeOptions{Columns: s.read, Allocator: s.mem, WithRowAddress: s.opts.WithRowAddress})
			if err != nil {
				return err
			}
			keep, err := s.filterTaken(rec)
			if err == nil {
				err = r.filter(rec, keep, residual)
			}
			rec.Release()
			if err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}

// filter keeps the rows of rec (read columns, maybe a trailing row address)
// that pass keep (nil: all) and the predicates preds, applies offset and
// limit, and yields them projected to the output columns.
func (r *run) filter(rec arrow.RecordBatch, keep func(int) bool, preds []int) error {
	if r.limited && r.remaining == 0 {
		return errStop
	}
	s := r.s
	var rows []int
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		if keep != nil && !keep(i) {
			continue
		}
		ok := true
		for _, pi := range preds {
			bp := &s.preds[pi]
			m, err := bp.matcher.Match(rec.Column(bp.col), i)
			if err != nil {
				return fmt.Errorf("scan: predicate %s: %w", bp.Predicate, err)
			}
			if !m {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, i)
		}
	}
	if uint64(len(rows)) <= r.skip {
		r.skip -= uint64(len(rows))
		return nil
	}
	rows = rows[r.skip:]
	r.skip = 0
	if r.limited && uint64(len(rows)) > r.remaining {
		rows = rows[:r.remaining]
	}
	out, err := r.project(rec, rows)
	if err != nil {
		return err
	}
	if r.limited {
		r.remaining -= uint64(len(rows))
	}
	more := r.yield(out, nil)
	out.Release()
	if !more || (r.limited && r.remaining == 0) {
		return errStop
	}
	return nil
}

// project returns rows (ascending) of the first len(out) columns of rec,
// and of its last column (the row address) WithRowAddress.
func (r *run) project(rec arrow.RecordBatch, rows []int) (arrow.RecordBatch, error) {
	src := make([]arrow.Array, len(r.s.out), len(r.s.out)+1)
	for i := range src {
		src[i] = rec.Column(i)
	}
	if r.s.opts.WithRowAddress {
		src = append(src, rec.Column(int(rec.NumCols())-1))
	}
	if r.schema == nil {
		fields := make([]arrow.Field, len(src))
		for i := range src {
			fields[i] = rec.Schema().Field(i)
		}
		if r.s.opts.WithRowAddress {
			fields[len(src)-1] = rec.Schema().Field(int(rec.NumCols()) - 1)
		}
		r.schema = arrow.NewSchema(fields, nil)
	}
	return SelectRows(r.s.mem, r.schema, src, rows, int(rec.NumRows()))
}

// SelectRows returns a record batch of schema whose columns hold the given
// rows (ascending positions) of cols, columns of n rows: the columns
// themselves when rows are all of them, else slices of each run of
// consecutive rows, concatenated when there are several (no per-value
// copy). The caller releases the batch; cols are not released.
func SelectRows(mem memory.Allocator, schema *arrow.Schema, cols []arrow.Array, rows []int, n int) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	out := make([]arrow.Array, len(cols))
	defer func() {
		for _, c := range out {
			if c != nil {
				c.Release()
			}
		}
	}()
	if len(rows) == n {
		for c, col := range cols {
			out[c] = col
			col.Retain()
		}
		return array.NewRecordBatch(schema, out, int64(n)), nil
	}
	type span struct{ lo, hi int64 }
	var spans []span
	for _, i := range rows {
		if len(spans) > 0 && spans[len(spans)-1].hi == int64(i) {
			spans[len(spans)-1].hi++
			continue
		}
		spans = append(spans, span{int64(i), int64(i) + 1})
	}
	for c, col := range cols {
		switch len(spans) {
		case 0:
			out[c] = array.MakeArrayOfNull(mem, col.DataType(), 0)
			continue
		case 1:
			out[c] = array.NewSlice(col, spans[0].lo, spans[0].hi)
			continue
		}
		parts := make([]arrow.Array, len(spans))
		for i, sp := range spans {
			parts[i] = array.NewSlice(col, sp.lo, sp.hi)
		}
		var err error
		out[c], err = array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(schema, out, int64(len(rows))), nil
}
