package planner

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/scan"
)

// Late materialization of a filtered scan in the scan itself. The
// filtered scan (scanfilter.go) already converts only the rows WHERE keeps,
// but the scan under it decoded every column it reads for every row. When
// WHERE begins with column-wise conjuncts that read only some of those
// columns, the scan is given them as a row filter (scan.RowFilter): per
// chunk it decodes their columns first, drops the rows one of them makes
// FALSE, skips the chunk when none is left and decodes the other columns
// only over the span of the rows left.
//
// The answers do not change: the filtered scan still evaluates the whole
// WHERE on the rows the scan returns. A row the row filter drops is one the
// filtered scan would have dropped at that conjunct, having evaluated only
// column-wise conjuncts before it, which raise no warning and no error
// (only conjuncts of such a prefix of WHERE, and the join key filters
// after a WHERE wholly of them, go into the row filter). A row with a
// NULL or undecided test is kept.

// scanRowFilter turns the row filter on (tests compare the answers with
// it and without it).
var scanRowFilter = true

// rowFilterPatience is how many chunks in a row the row filter may keep
// rows scattered over most of the chunk before it stops testing. Such a
// chunk saves no decoding (the kept rows' span is decoded) yet costs the
// tests twice and a gather of the kept rows: TPC-H's date ranges over
// lineitem keep 1-15% of rows spread uniformly, none of its chunks can be
// skipped. Chunks whose rows are all kept or all dropped (data clustered
// on the filtered columns) reset the count.
const rowFilterPatience = 4

// rowFilterTest is a conjunct of the row filter.
type rowFilterTest struct {
	t *vecTest
}

// rowFilter returns the scan's row filter, nil when WHERE has no prefix of
// column-wise conjuncts or they read every scanned column (nothing would
// be decoded later). It evaluates their constants now, on the operator's
// goroutine: the row filter runs on the scan's.
func (o *filterScanOp) rowFilter(ctx context.Context) *scan.RowFilter {
	if !scanRowFilter || o.dp.pushLimit || len(o.dp.pushed) > 0 {
		return nil
	}
	if n, err := o.dp.ds.CountRows(ctx); err != nil || n == 0 {
		// An empty table evaluates no constant (and raises no warning of
		// theirs) in the filtered scan either.
		return nil
	}
	var tests []rowFilterTest
	for _, fc := range o.conj {
		t := fc.vec
		if t == nil {
			break
		}
		if t.kind == vecKeySet {
			// Published keys do not change: the scan's goroutine may
			// read them.
			if _, ok := t.keys.Keys(); !ok {
				break
			}
			tests = append(tests, rowFilterTest{t: t})
			continue
		}
		if t.kind == vecInQuery {
			break
		}
		o.evalConsts(t)
		if t.constErr != nil {
			break
		}
		tests = append(tests, rowFilterTest{t: t})
	}
	// The filter's columns, in first use, and each test's positions in them.
	var cols []int
	at := map[int]int{}
	use := func(c int) {
		if _, ok := at[c]; !ok {
			at[c] = len(cols)
			cols = append(cols, c)
		}
	}
	for _, rt := range tests {
		use(rt.t.col)
		if rt.t.kind == vecCmpCols {
			use(rt.t.col2)
		}
	}
	if len(cols) == 0 || len(cols) >= len(o.dp.read) {
		return nil
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = o.dp.schema.Field(c).Name
	}
	scattered, off := 0, false
	var every []int // 0, 1, ...: the answer once off (the scan keeps no slice)
	return &scan.RowFilter{Columns: names, Select: func(batch arrow.RecordBatch) ([]int, error) {
		n := int(batch.NumRows())
		if off {
			if len(every) < n {
				every = allRows(n)
			}
			return every[:n], nil
		}
		fs := make([]func(i int) (int8, bool), 0, len(tests))
		for _, rt := range tests {
			arr := batch.Column(at[rt.t.col])
			var f func(i int) (int8, bool)
			switch rt.t.kind {
			case vecKeySet:
				f = keySetTest(arr, rt.t.keys)
			case vecCmpCols:
				f = pureTest(rt.t, arr, batch.Column(at[rt.t.col2]))
			default:
				f = pureTest(rt.t, arr, nil)
			}
			if f == nil {
				break // row-wise for this batch: the tests after it wait for it
			}
			fs = append(fs, f)
		}
		keep := make([]int, 0, n)
	rows:
		for i := 0; i < n; i++ {
			for _, f := range fs {
				r, ok := f(i)
				if !ok {
					break // undecided: the filtered scan decides
				}
				if r == 0 {
					continue rows
				}
			}
			keep = append(keep, i)
		}
		if k := len(keep); k > 0 && k < n && 10*(keep[k-1]-keep[0]+1) >= 9*n {
			if scattered++; scattered >= rowFilterPatience {
				off = true
			}
		} else {
			scattered = 0
		}
		return keep, nil
	}}
}

// allRows is 0, 1, ..., n-1.
func allRows(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
