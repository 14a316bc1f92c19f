package catalog

import (
	"context"
	"errors"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/internal/failpoint"
)

// op is one catalog mutation. The engine plans every op of a mutation
// against a view (the latest snapshot plus the changes of the ops before it),
// runs the side effects the ops staged, commits the combined manifest change
// once, and retries the whole plan on a commit conflict.
type op interface {
	// plan validates the op against v and records its row changes, staged
	// side effects (run before the commit, undone if the mutation fails) and
	// post-commit effects. It is called again on every retry, on a fresh
	// view; ops keep what they staged (e.g. a chosen table directory) across
	// attempts and must not stage it twice.
	plan(ctx context.Context, v *view) error
}

// v1Op is an op that can run in directory-only mode (no manifest).
type v1Op interface {
	op
	runV1(ctx context.Context, c *Catalog) error
}

// effect is a side effect on storage staged by an op.
type effect struct {
	run  func(ctx context.Context) error
	undo func(ctx context.Context)
}

// view is the manifest as the ops of one attempt see it.
type view struct {
	c    *Catalog
	snap ManifestSnapshot
	// rows overlays the snapshot: a nil value is a deleted row.
	rows      map[string]*Row
	order     []string // object ids in rows, in first-touch order
	setMeta   map[string]string
	unsetMeta map[string]bool
	staged    []effect
	post      []func(ctx context.Context)
	// sync are files the staged effects wrote without syncing
	// (ManifestChange.Sync).
	sync []string
}

func newView(c *Catalog, snap ManifestSnapshot) *view {
	return &view{c: c, snap: snap, rows: map[string]*Row{}, setMeta: map[string]string{}, unsetMeta: map[string]bool{}}
}

func (v *view) get(ctx context.Context, id string) (Row, bool, error) {
	if r, ok := v.rows[id]; ok {
		if r == nil {
			return Row{}, false, nil
		}
		return r.Clone(), true, nil
	}
	r, ok, err := v.snap.Get(ctx, id)
	if err != nil {
		return Row{}, false, asCatalogError(err, "read %s row %q", ManifestDir, id)
	}
	return r, ok, nil
}

func (v *view) scan(ctx context.Context, f RowFilter) ([]Row, error) {
	limit := f.Limit
	inner := f
	if len(v.rows) > 0 {
		inner.Limit = 0 // overlay may hide rows: read all, then cut
	}
	rows, err := v.snap.Scan(ctx, inner)
	if err != nil {
		return nil, asCatalogError(err, "scan %s", ManifestDir)
	}
	if len(v.rows) == 0 {
		return rows, nil
	}
	out := rows[:0]
	for _, r := range rows {
		if _, touched := v.rows[r.ObjectID]; !touched {
			out = append(out, r)
		}
	}
	for _, id := range v.order {
		if r := v.rows[id]; r != nil && f.Match(*r) {
			out = append(out, r.Clone())
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (v *view) touch(id string) {
	if _, ok := v.rows[id]; !ok {
		v.order = append(v.order, id)
	}
}

func (v *view) upsert(r Row) {
	v.touch(r.ObjectID)
	c := r.Clone()
	v.rows[r.ObjectID] = &c
}

func (v *view) remove(id string) {
	v.touch(id)
	v.rows[id] = nil
}

func (v *view) setMetadata(k, val string) { delete(v.unsetMeta, k); v.setMeta[k] = val }
func (v *view) unsetMetadata(k string)    { delete(v.setMeta, k); v.unsetMeta[k] = true }

func (v *view) stage(e effect)                      { v.staged = append(v.staged, e) }
func (v *view) afterCommit(f func(context.Context)) { v.post = append(v.post, f) }

// change builds the manifest change of the attempt. Deletes of rows that are
// not in the snapshot (created and dropped within the same batch) are left
// out.
func (v *view) change(ctx context.Context) (*ManifestChange, error) {
	ch := &ManifestChange{BuildIndices: !v.c.opts.SkipIndexBuild}
	for _, id := range v.order {
		r := v.rows[id]
		if r != nil {
			ch.Upserts = append(ch.Upserts, *r)
			continue
		}
		_, existed, err := v.snap.Get(ctx, id)
		if err != nil {
			return nil, asCatalogError(err, "read %s row %q", ManifestDir, id)
		}
		if existed {
			ch.Deletes = append(ch.Deletes, id)
		}
	}
	if len(v.setMeta) > 0 {
		ch.SetMetadata = copyProps(v.setMeta)
	}
	for k := range v.unsetMeta {
		ch.UnsetMetadata = append(ch.UnsetMetadata, k)
	}
	sort.Strings(ch.UnsetMetadata)
	return ch, nil
}

// run executes a mutation made of ops: validation, side effects, one
// manifest commit with bounded retries on conflicts, cleanup of the side
// effects if the mutation fails, post-commit effects if it lands.
func (c *Catalog) run(ctx context.Context, ops ...op) error {
	if err := c.checkWritable(); err != nil {
		return err
	}
	if len(ops) == 0 {
		return nil
	}
	if !c.opts.Mode.manifest() {
		if len(ops) != 1 {
			return newErr(CodeUnsupported, nil, "atomic batches need the %s table (not available in %s mode)", ManifestDir, c.opts.Mode)
		}
		o, ok := ops[0].(v1Op)
		if !ok {
			return newErr(CodeUnsupported, nil, "operation is only supported when the %s table is enabled", ManifestDir)
		}
		return o.runV1(ctx, c)
	}

	c.mu.Lock()
	defer c.mu.Unlock()

	var undo []func(context.Context)
	cleanup := func() {
		// Side effects are undone even when ctx is cancelled.
		cctx := context.WithoutCancel(ctx)
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i](cctx)
		}
	}

	for attempt := 0; ; attempt++ {
		snap, err := c.snapshot(ctx)
		if err != nil {
			cleanup()
			return err
		}
		// Writer flags are checked before any side effect of the attempt.
		if err := checkFeatureFlags(snap.Metadata(), WriterFeatureFlagsKey, "modify"); err != nil {
			cleanup()
			return err
		}
		v := newView(c, snap)
		for _, o := range ops {
			if err := o.plan(ctx, v); err != nil {
				cleanup()
				return err
			}
		}
		ch, err := v.change(ctx)
		if err != nil {
			cleanup()
			return err
		}
		if !ch.Empty() && !c.created {
			if err := c.opts.Manifest.Create(ctx); err != nil {
				cleanup()
				if errors.Is(err, ErrCommitOutcomeUnknown) {
					return newErr(CodeServiceUnavailable, err, "creation of %s may or may not have landed", ManifestDir)
				}
				return asCatalogError(err, "create %s table", ManifestDir)
			}
			c.created = true
			if snap.Version() == 0 {
				// The table did not exist when we read it: re-plan on it.
				attempt--
				continue
			}
		}
		if snap.Version() > 0 {
			c.created = true
		}
		for _, e := range v.staged {
			if err := e.run(ctx); err != nil {
				cleanup()
				return err
			}
			if e.undo != nil {
				undo = append(undo, e.undo)
			}
		}
		ch.Sync = v.sync
		if ch.Empty() {
			for _, f := range v.post {
				f(context.WithoutCancel(ctx))
			}
			return nil
		}
		failpoint.Inject("catalog/side-effects-made")
		_, err = c.opts.Manifest.Commit(ctx, snap.Version(), ch)
		switch {
		case err == nil:
			failpoint.Inject("catalog/manifest-committed")
			for _, f := range v.post {
				f(context.WithoutCancel(ctx))
				failpoint.Inject("catalog/post-commit-step")
			}
			c.afterCommit(context.WithoutCancel(ctx))
			return nil
		case errors.Is(err, ErrCommitConflict):
			if attempt >= c.retries {
				cleanup()
				return newErr(CodeConcurrentModification, err, "%s still conflicting after %d retries", ManifestDir, c.retries)
			}
			if err := c.sleepBackoff(ctx, attempt+1); err != nil {
				cleanup()
				return err
			}
		case errors.Is(err, ErrCommitOutcomeUnknown):
			// It may have landed: keep every side effect.
			return newErr(CodeServiceUnavailable, err, "commit of %s may or may not have landed", ManifestDir)
		default:
			cleanup()
			return asCatalogError(err, "commit %s", ManifestDir)
		}
	}
}

// Batch collects namespace and table changes applied in one manifest commit:
// all or nothing. Each operation is validated against the latest snapshot
// plus the batch's own earlier operations. Directory side effects (new table
// datasets, reservation markers) are made before the commit and removed if
// the batch fails; table directories of dropped tables are removed after the
// commit lands. A Batch is not safe for concurrent use and is committed once.
type Batch struct {
	c   *Catalog
	ops []op
}

// NewBatch starts an empty batch.
func (c *Catalog) NewBatch() *Batch { return &Batch{c: c} }

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Commit applies the batch. An empty batch is a no-op.
func (b *Batch) Commit(ctx context.Context) error {
	ops := b.ops
	b.ops = nil
	return b.c.run(ctx, ops...)
}

// Discard drops the collected operations.
func (b *Batch) Discard() { b.ops = nil }

// PendingTable reports what the batch's operations so far say about table
// id, for the IF [NOT] EXISTS checks of a transaction's later statements:
// touched is false when none of them creates, declares, registers, drops,
// deregisters or renames it, or drops a namespace above it with CASCADE (the committed
// catalog decides); otherwise exists is whether the last of them leaves the
// table in place. These are the operations' intents, not their outcome: one
// that fails at Commit still counts (Commit then fails as a whole).
func (b *Batch) PendingTable(id Ident) (exists, touched bool) {
	oid := id.ObjectID()
	for _, o := range b.ops {
		switch o := o.(type) {
		case *createTableOp:
			if o.id.ObjectID() == oid {
				exists, touched = true, true
			}
		case *registerTableOp:
			if o.id.ObjectID() == oid {
				exists, touched = true, true
			}
		case *dropTableOp:
			if o.id.ObjectID() == oid {
				exists, touched = false, true
			}
		case *deregisterTableOp:
			if o.id.ObjectID() == oid {
				exists, touched = false, true
			}
		case *renameTableOp:
			if o.from.ObjectID() == oid {
				exists, touched = false, true
			}
			if o.to.ObjectID() == oid {
				exists, touched = true, true
			}
		case *dropNamespaceOp:
			if o.opts.Cascade && isAncestor(o.ns, id) {
				exists, touched = false, true
			}
		}
	}
	return exists, touched
}

// CreatedTables returns the tables the batch creates (CREATE TABLE, not
// register: a registered location is not ours to delete) and leaves in
// place under the same name, in order, so that a caller whose follow-up
// work fails after Commit can drop them again.
func (b *Batch) CreatedTables() []Ident {
	var out []Ident
	seen := map[string]bool{}
	for _, o := range b.ops {
		var id Ident
		c, ok := o.(*createTableOp)
		if !ok {
			continue
		}
		id = c.id
		oid := id.ObjectID()
		if seen[oid] {
			continue
		}
		if exists, _ := b.PendingTable(id); exists {
			seen[oid] = true
			out = append(out, append(Ident{}, id...))
		}
	}
	return out
}

// PendingSchema returns the schema of table id as the batch's last CREATE
// TABLE of it declares, or nil when the batch does not create it.
func (b *Batch) PendingSchema(id Ident) *arrow.Schema {
	if exists, _ := b.PendingTable(id); !exists {
		return nil
	}
	oid := id.ObjectID()
	var schema *arrow.Schema
	for _, o := range b.ops {
		if c, ok := o.(*createTableOp); ok && c.id.ObjectID() == oid {
			schema = c.schema
		}
	}
	return schema
}

// PendingNamespace is PendingTable for namespace ns: created, or dropped
// itself or with a namespace above it (CASCADE).
func (b *Batch) PendingNamespace(ns Ident) (exists, touched bool) {
	oid := ns.ObjectID()
	for _, o := range b.ops {
		switch o := o.(type) {
		case *createNamespaceOp:
			if o.ns.ObjectID() == oid {
				exists, touched = true, true
			}
		case *dropNamespaceOp:
			if o.ns.ObjectID() == oid || (o.opts.Cascade && isAncestor(o.ns, ns)) {
				exists, touched = false, true
			}
		}
	}
	return exists, touched
}

// isAncestor reports whether namespace ns strictly contains the object id.
func isAncestor(ns, id Ident) bool {
	if len(ns) == 0 || len(ns) >= len(id) {
		return false
	}
	for i := range ns {
		if ns[i] != id[i] {
			return false
		}
	}
	return true
}

// scanner returns the view's row scanner (nil without a manifest).
func (v *view) scanner() rowScanner {
	if v.snap == nil {
		return nil
	}
	return v.scan
}
