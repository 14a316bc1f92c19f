package catalog

import (
	"context"
	"iter"
	"sort"
	"strings"
	"sync"
)

// declaredProbeConcurrency bounds the per-table dataset probes of a listing
// that excludes declared-only tables (as the reference does).
const declaredProbeConcurrency = 16

// resolveTable finds table id: its manifest entry, or (compatibility and
// directory-only modes, root tables) its V1 directory. snap may be nil in
// directory-only mode.
func (c *Catalog) resolveTable(ctx context.Context, snap ManifestSnapshot, id Ident) (tableRef, error) {
	if err := checkTableIdent(id); err != nil {
		return tableRef{}, err
	}
	objectID := id.ObjectID()
	if snap != nil {
		r, ok, err := snap.Get(ctx, objectID)
		if err != nil {
			return tableRef{}, asCatalogError(err, "read %s", ManifestDir)
		}
		if ok && r.ObjectType == ObjectTypeTable {
			loc := ""
			if r.Location != nil {
				loc = *r.Location
			}
			if loc != "" && (LocationsOverlap(loc, ManifestDir) || hasDotDotSegment(loc)) {
				// Registered by another writer (or before lancecat refused
				// it): writing through it would corrupt the catalog itself
				// or reach outside the root.
				return tableRef{}, newErr(CodeInvalidTableState, nil, "table %q is registered at %q, which is the catalog's %s table or outside the catalog root: drop or deregister it", objectID, loc, ManifestDir)
			}
			return tableRef{row: &r, location: loc}, nil
		}
	}
	if c.v1Fallback(id) {
		present, dereg, err := c.v1State(ctx, newView(c, snap), id.Name())
		if err != nil {
			return tableRef{}, err
		}
		if present && !dereg {
			dir := v1DirName(id.Name())
			// A root directory that is a symbolic link leads out of the
			// catalog: register_table refuses that location, so the
			// directory is not adopted either (never read or written
			// through).
			link, err := c.symlinkOnPath(ctx, dir)
			if err != nil {
				return tableRef{}, asCatalogError(err, "check %s", dir)
			}
			if link != "" {
				return tableRef{}, newErr(CodeInvalidTableState, nil, "table %q: its directory %q is a symbolic link; a table must live inside the catalog root (remove the link)", objectID, link)
			}
			return tableRef{location: dir}, nil
		}
	}
	return tableRef{}, newErr(CodeTableNotFound, nil, "table %q does not exist", objectID)
}

// readSnapshot returns the latest snapshot, or nil in directory-only mode.
func (c *Catalog) readSnapshot(ctx context.Context) (ManifestSnapshot, error) {
	if !c.opts.Mode.manifest() {
		return nil, nil
	}
	return c.snapshot(ctx)
}

// TableExists reports whether table id exists (declared-only tables
// included).
func (c *Catalog) TableExists(ctx context.Context, id Ident) (bool, error) {
	snap, err := c.readSnapshot(ctx)
	if err != nil {
		return false, err
	}
	if _, err := c.resolveTable(ctx, snap, id); err != nil {
		if code, _ := CodeOf(err); code == CodeTableNotFound {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// DescribeTableOptions tunes DescribeTable.
type DescribeTableOptions struct {
	// Version describes that dataset version instead of the latest.
	Version uint64
	// MetadataOnly skips opening the dataset (no version, schema, row
	// count); DeclaredOnly is still reported.
	MetadataOnly bool
}

// DescribeTable returns the location, properties and (unless MetadataOnly)
// the version, schema and row count of table id.
func (c *Catalog) DescribeTable(ctx context.Context, id Ident, opts DescribeTableOptions) (TableDescription, error) {
	snap, err := c.readSnapshot(ctx)
	if err != nil {
		return TableDescription{}, err
	}
	ref, err := c.resolveTable(ctx, snap, id)
	if err != nil {
		return TableDescription{}, err
	}
	d := TableDescription{
		Ident:      append(Ident{}, id...),
		Location:   ref.location,
		URI:        c.TableURI(ref.location),
		Properties: map[string]string{},
		V1:         ref.row == nil,
	}
	if ref.row != nil {
		if d.Properties, err = decodeProperties(id.ObjectID(), ref.row.Metadata); err != nil {
			return TableDescription{}, err
		}
	}
	has, err := c.opts.Datasets.Exists(ctx, ref.location)
	if err != nil {
		return TableDescription{}, mapDatasetErr(err, id, ref.location)
	}
	d.DeclaredOnly = !has
	if d.DeclaredOnly {
		if opts.Version != 0 {
			return TableDescription{}, newErr(CodeTableVersionNotFound, nil, "table %q is declared only: it has no version %d", id.ObjectID(), opts.Version)
		}
		return d, nil
	}
	if opts.MetadataOnly {
		return d, nil
	}
	info, err := c.opts.Datasets.Describe(ctx, ref.location, opts.Version)
	if err != nil {
		return TableDescription{}, mapDatasetErr(err, id, ref.location)
	}
	d.Version, d.Schema, d.RowCount = info.Version, info.Schema, info.RowCount
	return d, nil
}

// ListTablesOptions tunes ListTables.
type ListTablesOptions struct {
	ListOptions
	// ExcludeDeclared leaves out tables that are declared but have no data
	// (one dataset probe per table, as in the reference).
	ExcludeDeclared bool
	// NamePrefix lists only the tables whose name starts with it (a LIKE
	// 'prefix%'), searched through the object_id BTREE.
	NamePrefix string
}

// tableEntry is a listed table: its name and location.
type tableEntry struct{ name, location string }

// ListTables lists the names of the tables directly in namespace ns. In
// compatibility mode a root listing merges the manifest with the
// "<name>.lance" directories of the root (the manifest wins; directories
// owned by a manifest entry or carrying ".lance-deregistered" are skipped).
// Rows of other object types (namespaces, table versions, unknown) are never
// listed.
func (c *Catalog) ListTables(ctx context.Context, ns Ident, opts ListTablesOptions) (Page, error) {
	var entries []tableEntry
	if c.opts.Mode.manifest() {
		snap, err := c.snapshot(ctx)
		if err != nil {
			return Page{}, err
		}
		prefix := childPrefix(ns)
		add := func(r *Row) {
			loc := ""
			if r.Location != nil {
				loc = *r.Location
			}
			entries = append(entries, tableEntry{name: strings.TrimPrefix(r.ObjectID, prefix), location: loc})
		}
		filter := childrenFilter(ObjectTypeTable, ns, opts.NamePrefix)
		if v, ok := snap.(RowVisitor); ok {
			err := v.VisitRows(ctx, filter, func(n int, rows iter.Seq[*Row]) {
				entries = make([]tableEntry, 0, n)
				for r := range rows {
					add(r)
				}
			})
			if err != nil {
				return Page{}, asCatalogError(err, "scan %s", ManifestDir)
			}
		} else {
			rows, err := snap.Scan(ctx, filter)
			if err != nil {
				return Page{}, asCatalogError(err, "scan %s", ManifestDir)
			}
			entries = make([]tableEntry, 0, len(rows))
			for i := range rows {
				add(&rows[i])
			}
		}
		if len(entries) == 0 {
			if ok, err := namespaceExists(ctx, snap, ns); err != nil {
				return Page{}, err
			} else if !ok {
				return Page{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist", ns.ObjectID())
			}
		}
		if len(ns) == 0 && c.opts.Mode.dirListing() {
			v1, err := c.v1Tables(ctx, snap, entries)
			if err != nil {
				return Page{}, err
			}
			entries = append(entries, keepPrefixed(v1, opts.NamePrefix)...)
		}
	} else {
		if len(ns) != 0 {
			return Page{}, newErr(CodeNamespaceNotFound, nil, "namespace %q does not exist (%s mode has only the root namespace)", ns.ObjectID(), c.opts.Mode)
		}
		v1, err := c.v1Tables(ctx, nil, nil)
		if err != nil {
			return Page{}, err
		}
		entries = keepPrefixed(v1, opts.NamePrefix)
	}
	if opts.ExcludeDeclared {
		var err error
		if entries, err = c.withData(ctx, entries); err != nil {
			return Page{}, err
		}
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.name
	}
	return paginate(names, opts.ListOptions), nil
}

// v1Tables lists the root "<name>.lance" directories that are tables in the
// V1 sense and are not shadowed by the manifest: a manifest table of the
// same name wins, and a directory that is the location of any manifest table
// (e.g. a renamed one) belongs to that table.
func (c *Catalog) v1Tables(ctx context.Context, snap ManifestSnapshot, manifestRoot []tableEntry) ([]tableEntry, error) {
	dirs, err := c.opts.Root.ChildDirs(ctx, "")
	if err != nil {
		return nil, asCatalogError(err, "list catalog root")
	}
	owned := map[string]bool{}
	names := map[string]bool{}
	for _, e := range manifestRoot {
		names[e.name] = true
	}
	var candidates []string
	for _, d := range dirs {
		d = strings.TrimSuffix(d, "/")
		if !strings.HasSuffix(d, ".lance") || len(d) == len(".lance") {
			continue
		}
		if names[strings.TrimSuffix(d, ".lance")] {
			continue
		}
		// A root "<name>.lance" that is a symbolic link may lead out of
		// the catalog: it is never read or written through (register_table
		// refuses such a location), so it is not listed as a table. Its
		// name resolves to InvalidTableState, and DROP TABLE removes the
		// link.
		if link, err := c.rootLink(ctx, strings.TrimSuffix(d, ".lance")); err != nil {
			return nil, err
		} else if link {
			continue
		}
		candidates = append(candidates, d)
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	if snap != nil {
		rows, err := snap.Scan(ctx, allTablesFilter())
		if err != nil {
			return nil, asCatalogError(err, "scan %s", ManifestDir)
		}
		for _, r := range rows {
			if r.Location != nil {
				owned[strings.Trim(*r.Location, "/")] = true
			}
		}
	}
	var out []tableEntry
	for _, d := range candidates {
		if owned[d] {
			continue
		}
		dereg, err := c.opts.Root.Exists(ctx, d+"/"+DeregisteredMarker)
		if err != nil {
			return nil, asCatalogError(err, "stat %s", d)
		}
		if dereg {
			continue
		}
		out = append(out, tableEntry{name: strings.TrimSuffix(d, ".lance"), location: d})
	}
	return out, nil
}

// withData keeps the entries whose location holds a dataset.
func (c *Catalog) withData(ctx context.Context, entries []tableEntry) ([]tableEntry, error) {
	keep := make([]bool, len(entries))
	errs := make([]error, len(entries))
	sem := make(chan struct{}, declaredProbeConcurrency)
	var wg sync.WaitGroup
	for i := range entries {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			keep[i], errs[i] = c.opts.Datasets.Exists(ctx, entries[i].location)
		}(i)
	}
	wg.Wait()
	out := entries[:0:0]
	for i, e := range entries {
		if errs[i] != nil {
			return nil, mapDatasetErr(errs[i], Ident{e.name}, e.location)
		}
		if keep[i] {
			out = append(out, e)
		}
	}
	return out, nil
}

// ListAllTables lists every table of the catalog, in every namespace,
// sorted by object id.
func (c *Catalog) ListAllTables(ctx context.Context) ([]Ident, error) {
	var ids []string
	seen := map[string]bool{}
	var rootEntries []tableEntry
	snap, err := c.readSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap != nil {
		rows, err := snap.Scan(ctx, allTablesFilter())
		if err != nil {
			return nil, asCatalogError(err, "scan %s", ManifestDir)
		}
		for _, r := range rows {
			ids = append(ids, r.ObjectID)
			seen[r.ObjectID] = true
			if !strings.Contains(r.ObjectID, Delimiter) {
				rootEntries = append(rootEntries, tableEntry{name: r.ObjectID})
			}
		}
	}
	if c.opts.Mode.dirListing() {
		v1, err := c.v1Tables(ctx, snap, rootEntries)
		if err != nil {
			return nil, err
		}
		for _, e := range v1 {
			if !seen[e.name] {
				ids = append(ids, e.name)
			}
		}
	}
	sort.Strings(ids)
	out := make([]Ident, len(ids))
	for i, id := range ids {
		out[i] = ParseObjectID(id)
	}
	return out, nil
}

// OpenTable opens version (0: the latest) of a table's dataset for
// reading, resolving the identifier as DescribeTable does. A table declared
// without data fails with CodeInvalidTableState.
func (c *Catalog) OpenTable(ctx context.Context, id Ident, version uint64) (Dataset, error) {
	snap, err := c.readSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	ref, err := c.resolveTable(ctx, snap, id)
	if err != nil {
		return nil, err
	}
	ds, err := c.opts.Datasets.Open(ctx, ref.location, version)
	if err != nil {
		return nil, mapDatasetErr(err, id, ref.location)
	}
	return ds, nil
}
