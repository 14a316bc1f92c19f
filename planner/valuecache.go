package planner

import (
	"hash/maphash"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/sqltypes"
)

// A scan turns each value it passes up into a Go value in an interface:
// a DECIMAL into its text, a DATE into a time.Time, a string into a
// string. Each of those is a heap allocation (the text, the boxed value),
// and in TPC-H's lineitem scans that boxing and the garbage collection
// after it were a large share of the query. Those columns hold few
// distinct values (l_discount 11, l_shipdate ~2,500, l_shipmode 7), so a
// scan column keeps the values it made in a small direct-mapped cache keyed
// by the Arrow value (the unscaled DECIMAL, the day number, the string's
// bytes) and hands out the same immutable value again. A column whose
// values do not repeat (a key, a comment) turns its cache off after a probe
// window and converts as before. The values are exactly those of
// sqltypes.Reader: a miss stores what it returns.

const (
	valueCacheBits = 12
	valueCacheSize = 1 << valueCacheBits
	// valueCacheProbe lookups decide whether a column's cache pays: it stays
	// on when at least a quarter of them hit.
	valueCacheProbe   = 4096
	valueCacheMinHits = valueCacheProbe / 4
	// valueCacheMaxString is the longest string cached (longer ones rarely
	// repeat, and hashing them costs more than the allocation saved).
	valueCacheMaxString = 32
)

// valueCache is one scan column's cache, kept across its batches.
type valueCache struct {
	off           bool
	lookups, hits int
	intKeys       []int64
	strKeys       []string
	vals          []any
	seed          maphash.Seed
	// kind and scale are what the keys mean; a batch of another Arrow type
	// or DECIMAL scale clears the cache.
	kind  arrow.Type
	scale int32
}

// counted records a lookup and switches the cache off at the end of the
// probe window when too few hit.
func (c *valueCache) counted(hit bool) {
	c.lookups++
	if hit {
		c.hits++
	}
	if c.lookups == valueCacheProbe && c.hits < valueCacheMinHits {
		c.off, c.intKeys, c.strKeys, c.vals = true, nil, nil, nil
	}
}

// reset makes the cache empty for keys of kind (and scale).
func (c *valueCache) reset(kind arrow.Type, scale int32, strs bool) {
	if c.vals != nil && c.kind == kind && c.scale == scale {
		return
	}
	c.kind, c.scale = kind, scale
	c.vals = make([]any, valueCacheSize)
	c.intKeys, c.strKeys = nil, nil
	if strs {
		c.strKeys = make([]string, valueCacheSize)
		c.seed = maphash.MakeSeed()
	} else {
		c.intKeys = make([]int64, valueCacheSize)
	}
}

// slot is the cache position of an integer key (Fibonacci hashing).
func slot(k int64) uint64 { return (uint64(k) * 0x9E3779B97F4A7C15) >> (64 - valueCacheBits) }

// cachedReaderFor is readerFor through c for the column types worth it
// (int64-sized DECIMALs, DATEs, strings); others read as readerFor does.
func cachedReaderFor(c *valueCache, f arrow.Field, arr arrow.Array) (sqltypes.ValueReader, error) {
	r, err := readerFor(f, arr)
	if err != nil || c == nil || c.off || sqltypes.IsJSON(f) {
		return r, err
	}
	switch a := arr.(type) {
	case *array.Decimal128:
		t := a.DataType().(*arrow.Decimal128Type)
		c.reset(arrow.DECIMAL128, t.Scale, false)
		return func(i int) (any, error) {
			if c.off || a.IsNull(i) {
				return r(i)
			}
			v := a.Value(i)
			hi, lo := v.HighBits(), v.LowBits()
			if !(hi == 0 && lo <= math.MaxInt64) && !(hi == -1 && lo > math.MaxInt64) {
				return r(i) // past an int64: not a key
			}
			return c.intValue(int64(lo), i, r)
		}, nil
	case *array.Date32:
		c.reset(arrow.DATE32, 0, false)
		return func(i int) (any, error) {
			if c.off || a.IsNull(i) {
				return r(i)
			}
			return c.intValue(int64(a.Value(i)), i, r)
		}, nil
	case *array.String:
		c.reset(arrow.STRING, 0, true)
		return func(i int) (any, error) {
			if c.off || a.IsNull(i) {
				return r(i)
			}
			s := a.Value(i)
			if len(s) > valueCacheMaxString {
				return r(i)
			}
			h := maphash.String(c.seed, s) >> (64 - valueCacheBits)
			if v := c.vals[h]; v != nil && c.strKeys[h] == s {
				c.counted(true)
				return v, nil
			}
			v, err := r(i)
			if err != nil {
				return v, err
			}
			if got, ok := v.(string); !ok || got != s {
				c.off = true // the column's values are not its bytes
				return v, nil
			}
			c.counted(false)
			if !c.off {
				// The string Reader returns shares the batch's buffer: the
				// cache keeps a copy, not the batch.
				s = strings.Clone(s)
				v = s
				c.strKeys[h], c.vals[h] = s, v
			}
			return v, nil
		}, nil
	}
	return r, nil
}

// intValue is the cached value of integer key k, made by r(i) on a miss.
func (c *valueCache) intValue(k int64, i int, r sqltypes.ValueReader) (any, error) {
	h := slot(k)
	if v := c.vals[h]; v != nil && c.intKeys[h] == k {
		c.counted(true)
		return v, nil
	}
	v, err := r(i)
	if err != nil || v == nil {
		return v, err
	}
	c.counted(false)
	if !c.off {
		c.intKeys[h], c.vals[h] = k, v
	}
	return v, nil
}
