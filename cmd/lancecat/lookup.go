package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lancecat/lancecat/internal/arrowjson"
	"github.com/lancecat/lancecat/lance/index"
	"github.com/lancecat/lancecat/lance/scan"
)

// lookupFlags are the flags of `lancecat dataset lookup`.
type lookupFlags struct {
	datasetFlags
	index string
	pred  index.LookupFlags
}

// parseLookupFlags takes --index, one of --eq/--prefix/--in, and the
// dataset flags (URI, --version).
func parseLookupFlags(args []string) (lookupFlags, error) {
	var f lookupFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		switch name {
		case "--index", "--eq", "--prefix", "--in":
		default:
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return f, fmt.Errorf("%w: %s needs a value", errUsage, name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "--index":
			f.index = val
		case "--eq":
			f.pred.Eq, f.pred.HasEq = val, true
		case "--prefix":
			f.pred.Prefix, f.pred.HasPrefix = val, true
		case "--in":
			f.pred.In, f.pred.HasIn = val, true
		}
	}
	if f.index == "" {
		return f, fmt.Errorf("%w: missing --index NAME", errUsage)
	}
	n := 0
	for _, set := range []bool{f.pred.HasEq, f.pred.HasPrefix, f.pred.HasIn} {
		if set {
			n++
		}
	}
	if n != 1 {
		return f, fmt.Errorf("%w: give exactly one of --eq, --prefix, --in", errUsage)
	}
	var err error
	f.datasetFlags, err = parseDatasetFlags(rest, false)
	return f, err
}

// lookup prints the live rows an index finds, as JSON Lines (the same
// conventions as `dataset cat`), through lance/scan restricted to that
// index: index hits from the fragments it covers, a filtered scan of the
// others.
func lookup(ctx context.Context, f lookupFlags, stdout io.Writer) error {
	d, err := openDataset(ctx, f.datasetFlags)
	if err != nil {
		return err
	}
	defer d.Store().Close()
	q, err := index.QueryFromFlags(d, f.index, f.pred)
	if err != nil {
		return err
	}
	var column string
	for _, info := range index.Describe(d) {
		if info.Name == f.index && len(info.Columns) == 1 {
			column = info.Columns[0]
		}
	}
	s, err := scan.New(d, scan.Options{Index: f.index, Predicates: []scan.Predicate{{Column: column, Query: q}}})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	for rec, rerr := range s.Records(ctx) {
		if err = rerr; err == nil {
			err = arrowjson.WriteLines(w, rec)
		}
		if err != nil {
			break
		}
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}
