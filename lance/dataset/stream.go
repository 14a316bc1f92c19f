package dataset

import (
	"bytes"
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// AppendStream appends every batch next yields (until it returns a nil
// batch) in one Append version: each batch is written as data files as it
// arrives (the caller bounds a batch's memory) and released, and the
// version is committed once at the end. An error from next, or from a
// write, deletes the files written so far and commits nothing. It rebases
// over concurrent commits as Append does.
func (d *Dataset) AppendStream(ctx context.Context, next func() (arrow.RecordBatch, error)) (*Dataset, error) {
	return d.AppendStreamChecked(ctx, next, nil)
}

// AppendStreamChecked is AppendStream with a recheck of every version a
// concurrent commit makes it rebase onto (RowChangeOptions.Recheck).
func (d *Dataset) AppendStreamChecked(ctx context.Context, next func() (arrow.RecordBatch, error), recheck func(ctx context.Context, latest *Dataset) error) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	if err := checkWriteFormat(d.manifest.DataFormat.Version); err != nil {
		return nil, err
	}
	var frags []*Fragment
	var staged []string
	var buf bytes.Buffer // every batch's data files, one after another
	fail := func(err error) (*Dataset, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, p := range staged {
			_ = d.store.Delete(cctx, p)
		}
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		rec, err := next()
		if err != nil {
			return fail(err)
		}
		if rec == nil {
			break
		}
		fs, files, err := writeFragmentsBuf(ctx, d.store, d.dir, d.manifest.Schema, d.manifest.DataFormat.Version, []arrow.RecordBatch{rec}, &buf)
		rec.Release()
		staged = append(staged, files...)
		if err != nil {
			return fail(err)
		}
		frags = append(frags, fs...)
	}
	if len(frags) == 0 {
		return d, nil
	}
	req := commitRequest{op: "Append", staged: staged, recheck: recheck, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		fresh := make([]*Fragment, len(frags))
		for i, f := range frags {
			fresh[i] = f.clone()
		}
		assignIDs(fresh, base.NextFragmentID())
		next.Fragments = append(next.Fragments, fresh...)
		ap := &tablepb.Transaction_Append{}
		for _, f := range fresh {
			pf := f.proto()
			pf.Id = 0
			ap.Fragments = append(ap.Fragments, pf)
		}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Append_{Append: ap}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}
