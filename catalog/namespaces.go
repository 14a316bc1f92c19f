package catalog

import (
	"context"
	"strings"
)

// NamespaceInfo describes a namespace.
type NamespaceInfo struct {
	Ident      Ident
	Properties map[string]string
}

func isFlagKey(k string) bool { return k == ReaderFeatureFlagsKey || k == WriterFeatureFlagsKey }

// requireNamespace checks that every level of ns exists as a namespace row.
func requireNamespace(ctx context.Context, v *view, ns Ident) error {
	for i := 1; i <= len(ns); i++ {
		id := ns[:i].ObjectID()
		r, ok, err := v.get(ctx, id)
		if err != nil {
			return err
		}
		if !ok || r.ObjectType != ObjectTypeNamespace {
			return newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", id)
		}
	}
	return nil
}

// ---- create ----

type createNamespaceOp struct {
	ns    Ident
	props map[string]string
}

func (o *createNamespaceOp) plan(ctx context.Context, v *view) error {
	if len(o.ns) == 0 {
		return newErr(CodeNamespaceAlreadyExists, nil, "the root namespace always exists")
	}
	if err := validateIdent("namespace", o.ns); err != nil {
		return err
	}
	if err := requireNamespace(ctx, v, o.ns.Namespace()); err != nil {
		return err
	}
	id := o.ns.ObjectID()
	if r, ok, err := v.get(ctx, id); err != nil {
		return err
	} else if ok {
		if r.ObjectType == ObjectTypeNamespace {
			return newErr(CodeNamespaceAlreadyExists, nil, "namespace %q already exists", id)
		}
		return newErr(CodeNamespaceAlreadyExists, nil, "a %s with id %q already exists", r.ObjectType, id)
	}
	meta, err := encodeProperties(o.props)
	if err != nil {
		return err
	}
	v.upsert(Row{ObjectID: id, ObjectType: ObjectTypeNamespace, Metadata: meta})
	return nil
}

func (o *createNamespaceOp) runV1(ctx context.Context, c *Catalog) error {
	if len(o.ns) == 0 {
		return newErr(CodeNamespaceAlreadyExists, nil, "the root namespace always exists")
	}
	return newErr(CodeUnsupported, nil, "child namespaces need the %s table (not available in %s mode)", ManifestDir, c.opts.Mode)
}

// CreateNamespace creates namespace ns (its parent must exist) with string
// properties.
func (c *Catalog) CreateNamespace(ctx context.Context, ns Ident, props map[string]string) error {
	return c.run(ctx, &createNamespaceOp{ns: ns, props: copyProps(props)})
}

// CreateNamespace adds a namespace creation to the batch.
func (b *Batch) CreateNamespace(ns Ident, props map[string]string) {
	b.ops = append(b.ops, &createNamespaceOp{ns: ns, props: copyProps(props)})
}

// ---- drop ----

// DropNamespaceOptions tunes DropNamespace.
type DropNamespaceOptions struct {
	// Cascade drops every child namespace and table (and their data).
	// Without it a namespace that is not empty is refused.
	Cascade bool
	// IfExists makes dropping a missing namespace a no-op.
	IfExists bool
}

type dropNamespaceOp struct {
	ns   Ident
	opts DropNamespaceOptions
	seen bool // the namespace existed in an earlier attempt
}

func (o *dropNamespaceOp) plan(ctx context.Context, v *view) error {
	if len(o.ns) == 0 {
		return newErr(CodeInvalidInput, nil, "the root namespace cannot be dropped")
	}
	id := o.ns.ObjectID()
	r, ok, err := v.get(ctx, id)
	if err != nil {
		return err
	}
	if !ok || r.ObjectType != ObjectTypeNamespace {
		if o.opts.IfExists {
			return nil
		}
		if o.seen {
			// Dropped by another writer between our attempts: that DROP
			// reported success, this one must not report it twice.
			return newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist (dropped concurrently by another writer)", id)
		}
		return newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", id)
	}
	o.seen = true
	limit := 1
	if o.opts.Cascade {
		limit = 0
	}
	children, err := v.scan(ctx, RowFilter{IDPrefix: id + Delimiter, Limit: limit})
	if err != nil {
		return err
	}
	if len(children) > 0 && !o.opts.Cascade {
		return newErr(CodeNamespaceNotEmpty, nil, "namespace %q is not empty", id)
	}
	var locs []string
	for _, ch := range children {
		v.remove(ch.ObjectID)
		if ch.ObjectType == ObjectTypeTable && ch.Location != nil {
			locs = append(locs, *ch.Location)
		}
	}
	v.remove(id)
	return removeTableDirsAfterCommit(ctx, v, locs)
}

func (o *dropNamespaceOp) runV1(ctx context.Context, c *Catalog) error {
	if len(o.ns) == 0 {
		return newErr(CodeInvalidInput, nil, "the root namespace cannot be dropped")
	}
	if o.opts.IfExists {
		return nil
	}
	return newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist (%s mode has only the root namespace)", o.ns.ObjectID(), c.opts.Mode)
}

// DropNamespace drops namespace ns.
func (c *Catalog) DropNamespace(ctx context.Context, ns Ident, opts DropNamespaceOptions) error {
	return c.run(ctx, &dropNamespaceOp{ns: ns, opts: opts})
}

// DropNamespace adds a namespace drop to the batch.
func (b *Batch) DropNamespace(ns Ident, opts DropNamespaceOptions) {
	b.ops = append(b.ops, &dropNamespaceOp{ns: ns, opts: opts})
}

// ---- alter properties ----

type alterNamespaceOp struct {
	ns    Ident
	set   map[string]string
	unset []string
}

func (o *alterNamespaceOp) plan(ctx context.Context, v *view) error {
	if len(o.ns) == 0 {
		for k := range o.set {
			if isFlagKey(k) {
				return newErr(CodeInvalidInput, nil, "%q is a catalog feature flag, not a property", k)
			}
		}
		for _, k := range o.unset {
			if isFlagKey(k) {
				return newErr(CodeInvalidInput, nil, "%q is a catalog feature flag, not a property", k)
			}
			v.unsetMetadata(k)
		}
		for k, val := range o.set {
			v.setMetadata(k, val)
		}
		return nil
	}
	id := o.ns.ObjectID()
	r, ok, err := v.get(ctx, id)
	if err != nil {
		return err
	}
	if !ok || r.ObjectType != ObjectTypeNamespace {
		return newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", id)
	}
	return upsertProperties(v, r, id, o.set, o.unset)
}

// AlterNamespaceProperties sets and removes properties of namespace ns. The
// root namespace's properties live in the `__manifest` table metadata; the
// feature-flag keys cannot be touched this way.
func (c *Catalog) AlterNamespaceProperties(ctx context.Context, ns Ident, set map[string]string, unset []string) error {
	return c.run(ctx, &alterNamespaceOp{ns: ns, set: copyProps(set), unset: append([]string(nil), unset...)})
}

// AlterNamespaceProperties adds a namespace property change to the batch.
func (b *Batch) AlterNamespaceProperties(ns Ident, set map[string]string, unset []string) {
	b.ops = append(b.ops, &alterNamespaceOp{ns: ns, set: copyProps(set), unset: append([]string(nil), unset...)})
}

// ---- reads ----

// namespaceExists answers on a snapshot (root always exists).
func namespaceExists(ctx context.Context, snap ManifestSnapshot, ns Ident) (bool, error) {
	if len(ns) == 0 {
		return true, nil
	}
	r, ok, err := snap.Get(ctx, ns.ObjectID())
	if err != nil {
		return false, asCatalogError(err, "read %s", ManifestDir)
	}
	return ok && r.ObjectType == ObjectTypeNamespace, nil
}

// NamespaceExists reports whether namespace ns exists.
func (c *Catalog) NamespaceExists(ctx context.Context, ns Ident) (bool, error) {
	if len(ns) == 0 {
		return true, nil
	}
	if !c.opts.Mode.manifest() {
		return false, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return false, err
	}
	return namespaceExists(ctx, snap, ns)
}

// DescribeNamespace returns the properties of namespace ns (an empty map
// when it has none).
func (c *Catalog) DescribeNamespace(ctx context.Context, ns Ident) (NamespaceInfo, error) {
	if !c.opts.Mode.manifest() {
		if len(ns) == 0 {
			return NamespaceInfo{Ident: Ident{}, Properties: map[string]string{}}, nil
		}
		return NamespaceInfo{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist (%s mode has only the root namespace)", ns.ObjectID(), c.opts.Mode)
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return NamespaceInfo{}, err
	}
	if len(ns) == 0 {
		props := snap.Metadata()
		for k := range props {
			if isFlagKey(k) {
				delete(props, k)
			}
		}
		return NamespaceInfo{Ident: Ident{}, Properties: props}, nil
	}
	id := ns.ObjectID()
	r, ok, err := snap.Get(ctx, id)
	if err != nil {
		return NamespaceInfo{}, asCatalogError(err, "read %s", ManifestDir)
	}
	if !ok || r.ObjectType != ObjectTypeNamespace {
		return NamespaceInfo{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", id)
	}
	props, err := decodeProperties(id, r.Metadata)
	if err != nil {
		return NamespaceInfo{}, err
	}
	return NamespaceInfo{Ident: append(Ident{}, ns...), Properties: props}, nil
}

// ListNamespaces lists the names of the direct child namespaces of parent.
func (c *Catalog) ListNamespaces(ctx context.Context, parent Ident, opts ListOptions) (Page, error) {
	if !c.opts.Mode.manifest() {
		if len(parent) == 0 {
			return paginate(nil, opts), nil
		}
		return Page{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist (%s mode has only the root namespace)", parent.ObjectID(), c.opts.Mode)
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return Page{}, err
	}
	prefix := childPrefix(parent)
	rows, err := snap.Scan(ctx, childrenFilter(ObjectTypeNamespace, parent, ""))
	if err != nil {
		return Page{}, asCatalogError(err, "scan %s", ManifestDir)
	}
	if len(rows) == 0 {
		if ok, err := namespaceExists(ctx, snap, parent); err != nil {
			return Page{}, err
		} else if !ok {
			return Page{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", parent.ObjectID())
		}
	}
	names := make([]string, 0, len(rows))
	for _, r := range rows {
		names = append(names, strings.TrimPrefix(r.ObjectID, prefix))
	}
	return paginate(names, opts), nil
}
