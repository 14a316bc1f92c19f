package exec

import (
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"sort"
)

// The Window operator: window functions over the rows of its input. It
// reads the whole input (each row charged to the query's Budget; past it
// the query fails with ErrBudgetExceeded), sorts row positions once per
// distinct window ordering (PARTITION BY keys, then ORDER BY keys) and
// computes each function partition by partition over its frame. The
// output is the input's rows in input order, each extended by the
// functions' values.

// WindowKind is a window function.
type WindowKind int

// The window functions.
const (
	RowNumber WindowKind = iota + 1
	Rank
	DenseRank
	PercentRank
	CumeDist
	Ntile
	Lag
	Lead
	FirstValue
	LastValue
	NthValue
	WindowAggregate // SUM, AVG, COUNT, MIN, MAX over the frame
)

// BoundKind is a frame bound's kind.
type BoundKind int

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota + 1
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a frame: Offset rows (ROWS) or Offset units of
// the order key (RANGE) for Preceding and Following.
type FrameBound struct {
	Kind   BoundKind
	Offset float64
}

// Frame is a resolved frame: ROWS or RANGE between Start and End.
type Frame struct {
	Rows       bool
	Start, End FrameBound
}

// WindowOrder is one window ordering: Keys evaluates a row's PARTITION BY
// keys (the first NPartition values of dst) then its ORDER BY keys (one
// per Desc).
type WindowOrder struct {
	Keys       func(dst, row []any) error
	NPartition int
	Desc       []bool
}

// WindowFunc is one window function call.
type WindowFunc struct {
	Kind  WindowKind
	Order int // index into WindowSpec.Orders
	// Args evaluates the call's arguments on a row into dst (NArgs).
	Args  func(dst, row []any) error
	NArgs int
	// N is NTILE's bucket count, LAG/LEAD's offset, NTH_VALUE's N.
	N     int64
	Frame Frame
	// NewAgg returns an accumulator of the aggregate (WindowAggregate):
	// it is fed input rows.
	NewAgg func() Accumulator
}

// WindowSpec is what the Window operator computes.
type WindowSpec struct {
	Orders []WindowOrder
	Funcs  []WindowFunc
	// Compare orders two non-NULL key values.
	Compare func(a, b any) int
	// Number converts a non-NULL order key to a number, for RANGE frames
	// with offsets.
	Number func(v any) (float64, bool)
	Budget *Budget
	Name   string
}

// ErrWindowRange is returned when a RANGE frame with an offset meets an
// order key that is not a number.
var ErrWindowRange = errors.New("a RANGE frame with an offset needs a numeric ORDER BY key")

// Window returns the rows of in extended by the values of spec.Funcs.
func Window(in Operator, spec WindowSpec) Operator {
	return &windowOp{in: in, spec: spec, held: heldRows{budget: spec.Budget, name: spec.Name}}
}

type windowOp struct {
	in      Operator
	spec    WindowSpec
	held    heldRows // the input rows with the window results
	started bool
	err     error
}

func (o *windowOp) Start(ctx context.Context) error {
	if o.started {
		if o.err != nil && !errors.Is(o.err, io.EOF) {
			return o.err
		}
		return nil
	}
	o.started = true
	if err := o.compute(ctx); err != nil {
		o.err = err
		return err
	}
	return nil
}

func (o *windowOp) compute(ctx context.Context) error {
	defer o.in.Close()
	var rows [][]any
	for {
		batch, err := o.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for _, r := range batch {
			if err := o.held.charge(RowBytes(r) + int64(16*len(o.spec.Funcs))); err != nil {
				return err
			}
			rows = append(rows, r)
		}
	}
	n := len(rows)
	results := make([][]any, len(o.spec.Funcs))
	for i := range results {
		results[i] = make([]any, n)
	}
	for oi, ord := range o.spec.Orders {
		if err := ctx.Err(); err != nil {
			return err
		}
		width := ord.NPartition + len(ord.Desc)
		keys := make([][]any, n)
		for i, r := range rows {
			k := make([]any, width)
			if err := ord.Keys(k, r); err != nil {
				return err
			}
			keys[i] = k
			if err := o.held.charge(RowBytes(k) + 8); err != nil {
				return err
			}
		}
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		sort.SliceStable(perm, func(a, b int) bool {
			return o.cmpKeys(ord, keys[perm[a]], keys[perm[b]], width) < 0
		})
		// The partitions: runs of equal PARTITION BY keys.
		for lo := 0; lo < n; {
			hi := lo + 1
			for hi < n && o.cmpKeys(ord, keys[perm[lo]], keys[perm[hi]], ord.NPartition) == 0 {
				hi++
			}
			part := perm[lo:hi]
			for fi := range o.spec.Funcs {
				f := &o.spec.Funcs[fi]
				if f.Order != oi {
					continue
				}
				if err := o.partition(f, ord, rows, keys, part, results[fi]); err != nil {
					return err
				}
			}
			lo = hi
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	o.held.rows = make([][]any, n)
	for i, r := range rows {
		out := make([]any, len(r), len(r)+len(results))
		copy(out, r)
		for fi := range results {
			out = append(out, results[fi][i])
		}
		o.held.rows[i] = out
	}
	return nil
}

// cmpKeys compares the first width keys of two rows (NULLs first; DESC
// keys reversed).
func (o *windowOp) cmpKeys(ord WindowOrder, a, b []any, width int) int {
	for i := 0; i < width; i++ {
		c := cmpNullFirst(o.spec.Compare, a[i], b[i])
		if i >= ord.NPartition && ord.Desc[i-ord.NPartition] {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func cmpNullFirst(cmp func(a, b any) int, a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp(a, b)
}

// partition computes f over one partition (part: input row positions in
// window order).
func (o *windowOp) partition(f *WindowFunc, ord WindowOrder, rows, keys [][]any, part []int, res []any) error {
	n := len(part)
	width := ord.NPartition + len(ord.Desc)
	peer := func(i, j int) bool {
		return len(ord.Desc) == 0 || o.cmpKeys(ord, keys[part[i]], keys[part[j]], width) == 0
	}
	// Peer groups: first[i], last[i] are the first and last positions of
	// row i's peers.
	first := make([]int, n)
	last := make([]int, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && peer(i, j) {
			j++
		}
		for k := i; k < j; k++ {
			first[k], last[k] = i, j-1
		}
		i = j
	}
	var args [][]any
	if f.NArgs > 0 {
		args = make([][]any, n)
		for i, p := range part {
			a := make([]any, f.NArgs)
			if err := f.Args(a, rows[p]); err != nil {
				return err
			}
			args[i] = a
		}
	}
	switch f.Kind {
	case RowNumber:
		for i, p := range part {
			res[p] = int64(i + 1)
		}
	case Rank:
		for i, p := range part {
			res[p] = int64(first[i] + 1)
		}
	case DenseRank:
		d := int64(0)
		for i, p := range part {
			if first[i] == i {
				d++
			}
			res[p] = d
		}
	case PercentRank:
		for i, p := range part {
			if n <= 1 {
				res[p] = float64(0)
			} else {
				res[p] = float64(first[i]) / float64(n-1)
			}
		}
	case CumeDist:
		for i, p := range part {
			res[p] = float64(last[i]+1) / float64(n)
		}
	case Ntile:
		b := f.N
		q, r := int64(n)/b, int64(n)%b
		for i, p := range part {
			k := int64(i)
			if q == 0 || k < r*(q+1) {
				res[p] = k/(q+1) + 1
			} else {
				res[p] = r + (k-r*(q+1))/q + 1
			}
		}
	case Lag, Lead:
		for i, p := range part {
			t := int64(-1) // past either end: offsets up to 2^63-1 do not wrap
			if f.N <= int64(n) {
				t = int64(i) - f.N
				if f.Kind == Lead {
					t = int64(i) + f.N
				}
			}
			switch {
			case t >= 0 && t < int64(n):
				res[p] = args[t][0]
			case f.NArgs > 2:
				res[p] = args[i][2]
			default:
				res[p] = nil
			}
		}
	default:
		return o.framed(f, ord, rows, keys, part, first, last, args, res)
	}
	return nil
}

// framed computes the functions that read their frame.
func (o *windowOp) framed(f *WindowFunc, ord WindowOrder, rows, keys [][]any, part, first, last []int, args [][]any, res []any) error {
	n := len(part)
	var nums []float64 // the order key as a number (RANGE with offsets)
	desc := len(ord.Desc) > 0 && ord.Desc[0]
	offsets := !f.Frame.Rows && (f.Frame.Start.Kind == Preceding || f.Frame.Start.Kind == Following ||
		f.Frame.End.Kind == Preceding || f.Frame.End.Kind == Following)
	if offsets {
		nums = make([]float64, n)
		for i, p := range part {
			v := keys[p][ord.NPartition]
			if v == nil {
				// NULLs sort first ascending, last descending.
				nums[i] = math.Inf(-1)
				if desc {
					nums[i] = math.Inf(1)
				}
				continue
			}
			x, ok := o.spec.Number(v)
			if !ok {
				return ErrWindowRange
			}
			nums[i] = x
		}
	}
	// dist is row j's distance past row i along the window order.
	dist := func(i, j int) float64 {
		if desc {
			return nums[i] - nums[j]
		}
		return nums[j] - nums[i]
	}
	bound := func(i int, b FrameBound, start bool) int {
		switch b.Kind {
		case UnboundedPreceding:
			return 0
		case UnboundedFollowing:
			return n - 1
		case CurrentRow:
			if f.Frame.Rows {
				return i
			}
			if start {
				return first[i]
			}
			return last[i]
		}
		off := b.Offset
		if b.Kind == Preceding {
			off = -off
		}
		if f.Frame.Rows {
			// Offsets go up to 2^64-1: clamp in float64 so that i+off
			// cannot wrap, one past either end meaning an empty frame.
			return int(min(max(float64(i)+off, -1), float64(n)))
		}
		if math.IsInf(nums[i], 0) {
			// A NULL key: its frame is its peers.
			if start {
				return first[i]
			}
			return last[i]
		}
		if start { // the first row at distance >= off
			return sort.Search(n, func(j int) bool { return dist(i, j) >= off })
		}
		return sort.Search(n, func(j int) bool { return dist(i, j) > off }) - 1
	}
	var acc Accumulator
	accLo, accHi := 0, -1
	for i, p := range part {
		lo := max(bound(i, f.Frame.Start, true), 0)
		hi := min(bound(i, f.Frame.End, false), n-1)
		switch f.Kind {
		case FirstValue:
			if lo <= hi {
				res[p] = args[lo][0]
			}
		case LastValue:
			if lo <= hi {
				res[p] = args[hi][0]
			}
		case NthValue:
			if lo <= hi && f.N-1 <= int64(hi-lo) {
				res[p] = args[lo+int(f.N)-1][0]
			}
		case WindowAggregate:
			if acc == nil || lo != accLo || hi < accHi {
				acc, accLo, accHi = f.NewAgg(), lo, lo-1
			}
			for ; accHi < hi; accHi++ {
				if err := acc.Add(rows[part[accHi+1]]); err != nil {
					return err
				}
			}
			r, err := acc.Results()
			if err != nil {
				return err
			}
			res[p] = slices.Clone(r)[0]
		}
	}
	return nil
}

func (o *windowOp) Next(ctx context.Context) ([][]any, error) {
	if err := o.Start(ctx); err != nil {
		return nil, err
	}
	if o.err != nil {
		return nil, o.err
	}
	b, err := o.held.next()
	o.err = err
	return b, err
}

func (o *windowOp) Close() error {
	o.held.release()
	if o.err == nil {
		o.err = io.EOF
	}
	return o.in.Close()
}
