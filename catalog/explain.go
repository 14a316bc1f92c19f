package catalog

import (
	"context"
	"strings"
)

// EXPLAIN for catalog reads: each Explain method says how the read of the
// same name would read `__manifest` (the index it searches, or that it
// scans), asking the snapshot with the filter the read itself passes.

// ReadScanDirectory is the ReadPlan.Scan of a catalog without `__manifest`
// (directory-only mode): its tables are the root's directories.
const ReadScanDirectory = "catalog root directory listing"

// childrenFilter selects the rows of objType directly under parent whose
// name starts with namePrefix: what ListNamespaces and ListTables scan.
func childrenFilter(objType string, parent Ident, namePrefix string) RowFilter {
	return RowFilter{Types: []string{objType}, IDPrefix: childPrefix(parent) + namePrefix, DirectOnly: true}
}

// allTablesFilter selects every table row: what ListAllTables scans.
func allTablesFilter() RowFilter { return RowFilter{Types: []string{ObjectTypeTable}} }

// ExplainLookup says how a lookup of one table or namespace by its full
// identifier (DescribeTable, TableExists, DescribeNamespace,
// NamespaceExists) reads `__manifest`.
func (c *Catalog) ExplainLookup(ctx context.Context, id Ident) (ReadPlan, error) {
	if !c.opts.Mode.manifest() {
		return ReadPlan{Scan: ReadScanDirectory}, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return ReadPlan{}, err
	}
	p, err := snap.ExplainGet(ctx, id.ObjectID())
	return p, asCatalogError(err, "explain read of %s", ManifestDir)
}

// ExplainListTables says how ListTables(ns, opts) reads `__manifest`.
func (c *Catalog) ExplainListTables(ctx context.Context, ns Ident, opts ListTablesOptions) (ReadPlan, error) {
	return c.explainScan(ctx, childrenFilter(ObjectTypeTable, ns, opts.NamePrefix))
}

// ExplainListNamespaces says how ListNamespaces(parent) reads `__manifest`.
func (c *Catalog) ExplainListNamespaces(ctx context.Context, parent Ident) (ReadPlan, error) {
	return c.explainScan(ctx, childrenFilter(ObjectTypeNamespace, parent, ""))
}

// ExplainListAllTables says how ListAllTables reads `__manifest`.
func (c *Catalog) ExplainListAllTables(ctx context.Context) (ReadPlan, error) {
	return c.explainScan(ctx, allTablesFilter())
}

func (c *Catalog) explainScan(ctx context.Context, f RowFilter) (ReadPlan, error) {
	if !c.opts.Mode.manifest() {
		return ReadPlan{Scan: ReadScanDirectory}, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return ReadPlan{}, err
	}
	p, err := snap.ExplainScan(ctx, f)
	return p, asCatalogError(err, "explain scan of %s", ManifestDir)
}

// keepPrefixed keeps the entries whose name starts with prefix.
func keepPrefixed(entries []tableEntry, prefix string) []tableEntry {
	if prefix == "" {
		return entries
	}
	out := entries[:0:0]
	for _, e := range entries {
		if strings.HasPrefix(e.name, prefix) {
			out = append(out, e)
		}
	}
	return out
}
