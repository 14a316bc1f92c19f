package catalog

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// TableInfo is what a table mutation returns.
type TableInfo struct {
	Ident Ident
	// Location is the table directory relative to the catalog root, as
	// stored in `__manifest`; URI is its full URI.
	Location string
	URI      string
	// Version is the dataset version written (0 when none was).
	Version    uint64
	Properties map[string]string
}

// TableDescription is what DescribeTable returns.
type TableDescription struct {
	Ident      Ident
	Location   string
	URI        string
	Properties map[string]string
	// DeclaredOnly: the table is declared (reserved) but has no data yet.
	DeclaredOnly bool
	// V1 is true for a root table found only by directory listing.
	V1 bool
	// Version, Schema and RowCount describe the requested (or latest)
	// dataset version; zero/nil for a declared-only table or when
	// DescribeTableOptions.MetadataOnly is set.
	Version  uint64
	Schema   *arrow.Schema
	RowCount int64
}

// tableRef is a resolved table.
type tableRef struct {
	row      *Row // nil for a V1-only table
	location string
}

// validateLocation accepts only locations inside the catalog root.
func validateLocation(loc string) error {
	switch {
	case loc == "":
		return newErr(CodeInvalidInput, nil, "table location must not be empty")
	case strings.Contains(loc, "://"):
		return newErr(CodeInvalidInput, nil, "absolute URIs are not allowed as table location (%q): it must be a path relative to the catalog root", loc)
	case strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`):
		return newErr(CodeInvalidInput, nil, "absolute paths are not allowed as table location (%q): it must be a path relative to the catalog root", loc)
	case hasDotDotSegment(loc):
		return newErr(CodeInvalidInput, nil, "path traversal is not allowed in a table location (%q)", loc)
	case strings.ContainsRune(loc, 0):
		return newErr(CodeInvalidInput, nil, "table location must not contain NUL")
	}
	return nil
}

// hasDotDotSegment reports whether a slash- (or backslash-) separated path
// has a ".." segment. "my..data" is a legal directory name.
func hasDotDotSegment(loc string) bool {
	for seg := range strings.FieldsFuncSeq(loc, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// removableDir reports whether a stored location may be deleted as a table
// directory (never the root or the manifest table, never outside the root).
func removableDir(loc string) bool {
	loc = strings.Trim(loc, "/")
	if validateLocation(loc) != nil || loc == "." || loc == ManifestDir || strings.HasPrefix(loc, ManifestDir+"/") {
		return false
	}
	return true
}

// removeTableDirsAfterCommit deletes the directories of dropped tables once
// the drop has committed, except those that are not table directories and
// those another table still in the catalog uses (the same directory, or one
// above or below it): an alias another writer registered must not take the
// other table's data with it. One scan of the remaining tables serves all
// locations (DROP SCHEMA ... CASCADE drops many).
func removeTableDirsAfterCommit(ctx context.Context, v *view, locs []string) error {
	var todo []string
	for _, loc := range locs {
		if removableDir(loc) {
			todo = append(todo, loc)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	root := v.c.opts.Root
	for _, loc := range todo {
		others, err := v.tablesOverlapping(ctx, loc)
		if err != nil {
			return err
		}
		if len(others) > 0 {
			continue
		}
		v.afterCommit(func(ctx context.Context) {
			// The drop has landed: the table is unreachable whatever happens
			// here (spec: failure to delete data does not fail the drop).
			_, _ = root.DeletePrefix(ctx, strings.Trim(loc, "/"))
		})
	}
	return nil
}

// CleanLocation is a location as a slash-separated path without empty or
// "." segments, for comparing locations.
func CleanLocation(loc string) string {
	return strings.Trim(path.Clean("/"+strings.ReplaceAll(loc, `\`, "/")), "/")
}

// LocationsOverlap reports whether one location is the other or lies
// inside it.
func LocationsOverlap(a, b string) bool {
	a, b = CleanLocation(a), CleanLocation(b)
	return a == b || a == "" || b == "" || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// tablesOverlapping returns the tables of the view whose location overlaps
// loc: through the snapshot's LocationFinder when it has one (a DROP on a
// large catalog then costs no scan of every table row), otherwise from one
// scan of the table rows.
func (v *view) tablesOverlapping(ctx context.Context, loc string) ([]Row, error) {
	overlaps := func(r *Row) bool {
		return r.ObjectType == ObjectTypeTable && r.Location != nil && LocationsOverlap(*r.Location, loc)
	}
	lf, ok := v.snap.(LocationFinder)
	if !ok {
		rows, err := v.scan(ctx, RowFilter{Types: []string{ObjectTypeTable}})
		if err != nil {
			return nil, err
		}
		return slices.DeleteFunc(rows, func(r Row) bool { return !overlaps(&r) }), nil
	}
	rows, err := lf.TablesOverlapping(ctx, loc)
	if err != nil {
		return nil, asCatalogError(err, "scan %s", ManifestDir)
	}
	// The view's pending changes overlay the snapshot, as in scan.
	out := slices.DeleteFunc(rows, func(r Row) bool { _, touched := v.rows[r.ObjectID]; return touched })
	for _, id := range v.order {
		if r := v.rows[id]; r != nil && overlaps(r) {
			out = append(out, r.Clone())
		}
	}
	return out, nil
}

// tableAtLocation returns the object id of a table of the view (other than
// except) whose location overlaps loc, or "": the least such id, so that
// the answer does not depend on how the snapshot finds them.
func tableAtLocation(ctx context.Context, v *view, loc, except string) (string, error) {
	rows, err := v.tablesOverlapping(ctx, loc)
	if err != nil {
		return "", err
	}
	found := ""
	for _, r := range rows {
		if r.ObjectID != except && (found == "" || r.ObjectID < found) {
			found = r.ObjectID
		}
	}
	return found, nil
}

// rowScanner scans the manifest as some reader sees it (a snapshot, or a
// view with the pending changes of a mutation); nil means no manifest.
type rowScanner func(ctx context.Context, f RowFilter) ([]Row, error)

// v1State reports whether root table name exists as a V1 directory
// (<name>.lance holding objects, not the location of any manifest table) and
// whether it carries the deregistered marker. v is the catalog as the
// caller sees it (nil or without a manifest: no table owns the directory).
func (c *Catalog) v1State(ctx context.Context, v *view, name string) (present, deregistered bool, err error) {
	dir := v1DirName(name)
	present, err = c.opts.Root.HasObjects(ctx, dir)
	if err != nil || !present {
		return false, false, asCatalogError(err, "list %s", dir)
	}
	if v != nil && v.snap != nil {
		// Rare path (a directory exists): is it owned by a manifest entry,
		// e.g. a renamed table's? Found through the snapshot's
		// LocationFinder (binary searches in its sorted views) when it has
		// one, else by a scan of the table rows.
		rows, err := v.tablesOverlapping(ctx, dir)
		if err != nil {
			return false, false, err
		}
		for _, r := range rows {
			if r.Location != nil && strings.Trim(*r.Location, "/") == dir {
				return false, false, nil
			}
		}
	}
	deregistered, err = c.opts.Root.Exists(ctx, dir+"/"+DeregisteredMarker)
	return present, deregistered, asCatalogError(err, "stat %s", dir)
}

// v1Fallback reports whether lookups of id may fall back to V1 directories.
func (c *Catalog) v1Fallback(id Ident) bool {
	return c.opts.Mode.dirListing() && len(id) == 1
}

func mapDatasetErr(err error, id Ident, loc string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrDatasetExists):
		return newErr(CodeTableAlreadyExists, err, "table %q: location %q already holds a dataset", id.ObjectID(), loc)
	case errors.Is(err, ErrDatasetVersionNotFound):
		return newErr(CodeTableVersionNotFound, err, "table %q", id.ObjectID())
	case errors.Is(err, ErrDatasetNotFound):
		return newErr(CodeInvalidTableState, err, "table %q has no data at %q (declared only?)", id.ObjectID(), loc)
	case errors.Is(err, ErrDatasetColumnNotFound):
		return newErr(CodeTableColumnNotFound, err, "table %q", id.ObjectID())
	case errors.Is(err, ErrStoredSchemaRefused):
		return newErr(CodeInvalidTableState, err, "table %q at %q", id.ObjectID(), loc)
	case errors.Is(err, ErrDatasetColumnExists), errors.Is(err, ErrSchemaInvalid):
		return newErr(CodeTableSchemaValidationError, err, "table %q", id.ObjectID())
	}
	return asCatalogError(err, "table %q at %q", id.ObjectID(), loc)
}

func checkTableIdent(id Ident) error {
	if len(id) == 0 {
		return newErr(CodeInvalidInput, nil, "table identifier must not be empty")
	}
	return nil
}

// ---- create / declare ----

type createTableOp struct {
	id      Ident
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	props   map[string]string
	declare bool

	location     string // chosen on the first attempt, kept on retries
	staged       bool   // our directory side effect ran
	intoDeclared bool   // writing data into an already declared table
	// declaredGone: the declared table's row vanished or moved while its
	// data was written (a concurrent DROP): the reservation is not ours to
	// put back.
	declaredGone bool
	// unsynced are the dataset's files the side effect left unsynced;
	// every attempt's `__manifest` commit syncs them.
	unsynced []string
	result   TableInfo
}

func (o *createTableOp) validate() error {
	if err := checkTableIdent(o.id); err != nil {
		return err
	}
	if err := validateIdent("table", o.id); err != nil {
		return err
	}
	if !o.declare && o.schema == nil {
		return newErr(CodeInvalidInput, nil, "create table %q: a schema is required", o.id.ObjectID())
	}
	for _, b := range o.batches {
		if !b.Schema().Equal(o.schema) {
			return newErr(CodeTableSchemaValidationError, nil, "create table %q: a record batch does not match the table schema", o.id.ObjectID())
		}
	}
	return nil
}

func (o *createTableOp) plan(ctx context.Context, v *view) error {
	c := v.c
	if err := o.validate(); err != nil {
		return err
	}
	// A retry commits what an earlier attempt's side effect wrote.
	v.sync = append(v.sync, o.unsynced...)
	if err := requireNamespace(ctx, v, o.id.Namespace()); err != nil {
		return err
	}
	objectID := o.id.ObjectID()
	r, ok, err := v.get(ctx, objectID)
	if err != nil {
		return err
	}
	if o.intoDeclared {
		if !ok || r.ObjectType != ObjectTypeTable || r.Location == nil || *r.Location != o.location {
			o.declaredGone = true
			return newErr(CodeConcurrentModification, nil, "declared table %q changed while its data was being written", objectID)
		}
		// The row is written again unchanged so that the commit conflicts
		// with any change in between (commits never rebase): a DROP that
		// landed meanwhile is seen on the retry instead of the data being
		// written, reported created, into a directory the DROP removes.
		v.upsert(r)
		return nil
	}
	if ok {
		if r.ObjectType == ObjectTypeTable && !o.declare && r.Location != nil && !o.staged {
			has, err := c.opts.Datasets.Exists(ctx, *r.Location)
			if err != nil {
				return mapDatasetErr(err, o.id, *r.Location)
			}
			if !has {
				// Declared only: the data goes to the reserved location.
				if len(o.props) > 0 {
					return newErr(CodeInvalidInput, nil, "create table %q: cannot set properties of an already declared table", objectID)
				}
				o.intoDeclared = true
				o.location = *r.Location
				o.stageCreate(v, true)
				o.result = TableInfo{Ident: o.id, Location: o.location, URI: c.TableURI(o.location)}
				if o.result.Properties, err = decodeProperties(objectID, r.Metadata); err != nil {
					return err
				}
				// A table row whose location holds no dataset is either
				// declared or dropped by a commit newer than this snapshot
				// (its directory being removed): the unchanged row makes the
				// commit conflict in the second case (see above).
				v.upsert(r)
				return nil
			}
		}
		return newErr(CodeTableAlreadyExists, nil, "table %q already exists", objectID)
	}
	compatRoot := c.v1Fallback(o.id)
	if compatRoot && !(o.staged && o.location == v1DirName(o.id.Name())) {
		present, dereg, err := c.v1State(ctx, v, o.id.Name())
		if err != nil {
			return err
		}
		if present && !dereg {
			return newErr(CodeTableAlreadyExists, nil, "table %q already exists (directory %s)", objectID, v1DirName(o.id.Name()))
		}
	}
	if o.location == "" {
		o.location = newTableDirName(objectID)
		if compatRoot {
			dir := v1DirName(o.id.Name())
			used, err := c.opts.Root.HasObjects(ctx, dir)
			if err != nil {
				return asCatalogError(err, "list %s", dir)
			}
			if !used {
				o.location = dir
			}
		}
	}
	if !o.staged {
		o.stageCreate(v, false)
	}
	meta, err := encodeProperties(o.props)
	if err != nil {
		return err
	}
	loc := o.location
	v.upsert(Row{ObjectID: objectID, ObjectType: ObjectTypeTable, Location: &loc, Metadata: meta})
	o.result = TableInfo{Ident: o.id, Location: loc, URI: c.TableURI(loc), Properties: copyProps(o.props), Version: o.result.Version}
	return nil
}

// stageCreate stages the directory side effect: the reservation marker or
// the dataset's first version.
func (o *createTableOp) stageCreate(v *view, intoDeclared bool) {
	c := v.c
	loc := o.location
	var e effect
	if o.declare {
		e.run = func(ctx context.Context) error {
			err := c.opts.Root.PutIfAbsent(ctx, loc+"/"+ReservedMarker, nil)
			if errors.Is(err, ErrObjectExists) {
				return newErr(CodeTableAlreadyExists, err, "table %q: location %q is already reserved", o.id.ObjectID(), loc)
			}
			if err != nil {
				return asCatalogError(err, "reserve %s", loc)
			}
			o.staged = true
			return nil
		}
	} else {
		e.run = func(ctx context.Context) error {
			var info DatasetInfo
			var err error
			// A dataset no directory listing shows is reachable only
			// through the `__manifest` commit: it is made durable by
			// that commit's syncs (see DatasetsUnsyncedCreator).
			uc, deferrable := c.opts.Datasets.(DatasetsUnsyncedCreator)
			if deferrable && c.opts.Mode.manifest() && !(c.v1Fallback(o.id) && loc == v1DirName(o.id.Name())) {
				var files []string
				info, files, err = uc.CreateUnsynced(ctx, loc, o.schema, o.batches)
				if err == nil {
					o.unsynced = files
					v.sync = append(v.sync, files...)
				}
			} else {
				info, err = c.opts.Datasets.Create(ctx, loc, o.schema, o.batches)
			}
			if err != nil {
				return mapDatasetErr(err, o.id, loc)
			}
			o.staged = true
			o.result.Version = info.Version
			return nil
		}
	}
	e.undo = func(ctx context.Context) {
		if !removableDir(loc) {
			return
		}
		_, _ = c.opts.Root.DeletePrefix(ctx, loc)
		if intoDeclared && !o.declaredGone {
			// Put the reservation of the declared table back.
			_ = c.opts.Root.PutIfAbsent(ctx, loc+"/"+ReservedMarker, nil)
		}
	}
	v.stage(e)
}

func (o *createTableOp) runV1(ctx context.Context, c *Catalog) error {
	if err := o.validate(); err != nil {
		return err
	}
	if len(o.id) != 1 {
		return newErr(CodeUnsupported, nil, "tables in child namespaces need the %s table (not available in %s mode)", ManifestDir, c.opts.Mode)
	}
	if len(o.props) > 0 {
		return newErr(CodeUnsupported, nil, "table properties need the %s table (not available in %s mode)", ManifestDir, c.opts.Mode)
	}
	name := o.id.Name()
	present, _, err := c.v1State(ctx, nil, name)
	if err != nil {
		return err
	}
	if present {
		return newErr(CodeTableAlreadyExists, nil, "table %q already exists (directory %s)", name, v1DirName(name))
	}
	o.location = v1DirName(name)
	o.result = TableInfo{Ident: o.id, Location: o.location, URI: c.TableURI(o.location), Properties: map[string]string{}}
	v := &view{c: c}
	o.stageCreate(v, false)
	return v.staged[0].run(ctx)
}

// CreateTableOptions tunes CreateTable.
type CreateTableOptions struct {
	// Batches are written as the first version (all must have the schema).
	Batches []arrow.RecordBatch
	// Properties are stored in the `__manifest` metadata column.
	Properties map[string]string
}

// CreateTable creates table id (namespace path + name) as an empty dataset
// of schema, or with the given initial batches. In compatibility mode a root
// table lives in "<name>.lance"; any other table in a new
// "<8 hex>_<object_id>" directory. Creating a table that was only declared
// writes its data into the reserved directory.
func (c *Catalog) CreateTable(ctx context.Context, id Ident, schema *arrow.Schema, opts CreateTableOptions) (TableInfo, error) {
	o := &createTableOp{id: id, schema: schema, batches: opts.Batches, props: copyProps(opts.Properties)}
	if err := c.run(ctx, o); err != nil {
		return TableInfo{}, err
	}
	return o.result, nil
}

// CreateTable adds a table creation to the batch.
func (b *Batch) CreateTable(id Ident, schema *arrow.Schema, opts CreateTableOptions) {
	b.ops = append(b.ops, &createTableOp{id: id, schema: schema, batches: opts.Batches, props: copyProps(opts.Properties)})
}

// DeclareTable reserves table id: a ".lance-reserved" marker in its new
// directory and a manifest entry, without data.
func (c *Catalog) DeclareTable(ctx context.Context, id Ident, props map[string]string) (TableInfo, error) {
	o := &createTableOp{id: id, props: copyProps(props), declare: true}
	if err := c.run(ctx, o); err != nil {
		return TableInfo{}, err
	}
	return o.result, nil
}

// DeclareTable adds a table declaration to the batch.
func (b *Batch) DeclareTable(id Ident, props map[string]string) {
	b.ops = append(b.ops, &createTableOp{id: id, props: copyProps(props), declare: true})
}

// ---- register / deregister ----

type registerTableOp struct {
	id       Ident
	location string
	props    map[string]string
	result   TableInfo
}

func (o *registerTableOp) plan(ctx context.Context, v *view) error {
	if err := checkTableIdent(o.id); err != nil {
		return err
	}
	if err := validateIdent("table", o.id); err != nil {
		return err
	}
	if err := validateLocation(o.location); err != nil {
		return err
	}
	if err := requireNamespace(ctx, v, o.id.Namespace()); err != nil {
		return err
	}
	objectID := o.id.ObjectID()
	if err := checkRegisterLocation(ctx, v, o.location, objectID); err != nil {
		return err
	}
	if r, ok, err := v.get(ctx, objectID); err != nil {
		return err
	} else if ok {
		return newErr(CodeTableAlreadyExists, nil, "%s %q already exists", r.ObjectType, objectID)
	}
	if v.c.v1Fallback(o.id) {
		present, dereg, err := v.c.v1State(ctx, v, o.id.Name())
		if err != nil {
			return err
		}
		if present && !dereg && o.location != v1DirName(o.id.Name()) {
			return newErr(CodeTableAlreadyExists, nil, "table %q already exists (directory %s)", objectID, v1DirName(o.id.Name()))
		}
	}
	has, err := v.c.opts.Datasets.Exists(ctx, o.location)
	if err != nil {
		return mapDatasetErr(err, o.id, o.location)
	}
	if !has {
		return newErr(CodeInvalidInput, nil, "no Lance dataset at %q", o.location)
	}
	meta, err := encodeProperties(o.props)
	if err != nil {
		return err
	}
	loc := o.location
	v.upsert(Row{ObjectID: objectID, ObjectType: ObjectTypeTable, Location: &loc, Metadata: meta})
	o.result = TableInfo{Ident: o.id, Location: loc, URI: v.c.TableURI(loc), Properties: copyProps(o.props)}
	return nil
}

// checkRegisterLocation refuses a location that would let the catalog
// delete or write what is not the new table's: the `__manifest` table (or
// anything overlapping it), another table's directory (or one inside or
// around it), the root itself, or a path through a symbolic link (which
// could lead out of the root).
func checkRegisterLocation(ctx context.Context, v *view, loc, objectID string) error {
	clean := CleanLocation(loc)
	if clean != strings.Trim(loc, "/") {
		return newErr(CodeInvalidInput, nil, "table location %q must not have empty or \".\" segments", loc)
	}
	if LocationsOverlap(clean, ManifestDir) {
		return newErr(CodeInvalidInput, nil, "table location %q overlaps the catalog's %s table, which is never a table of the catalog", loc, ManifestDir)
	}
	if other, err := tableAtLocation(ctx, v, clean, objectID); err != nil {
		return err
	} else if other != "" {
		return newErr(CodeInvalidInput, nil, "table location %q overlaps the location of table %q", loc, other)
	}
	if other, err := v1TableAtLocation(ctx, v, clean, objectID); err != nil {
		return err
	} else if other != "" {
		return newErr(CodeInvalidInput, nil, "table location %q overlaps the directory of compatibility-mode root table %q", loc, other)
	}
	link, err := v.c.symlinkOnPath(ctx, clean)
	if err != nil {
		return asCatalogError(err, "register %s", loc)
	}
	if link != "" {
		return newErr(CodeInvalidInput, nil, "table location %q passes through the symbolic link %q: a table must live inside the catalog root", loc, link)
	}
	return nil
}

// v1TableAtLocation returns the name of a live compatibility-mode (V1) root table, one with no
// `__manifest` row, whose `<name>.lance` directory is loc or holds it, or "". The spec counts such
// a directory as a table, so registering another name there would make an alias that hides it
// and whose DROP deletes its data. Registering the same name at its own directory is the spec's
// V1-to-V2 migration step (adoption) and is not an overlap.
func v1TableAtLocation(ctx context.Context, v *view, loc, objectID string) (string, error) {
	if !v.c.opts.Mode.dirListing() {
		return "", nil
	}
	first, _, _ := strings.Cut(loc, "/")
	name, ok := strings.CutSuffix(first, ".lance")
	if !ok || name == "" || (name == objectID && loc == first) {
		return "", nil
	}
	present, dereg, err := v.c.v1State(ctx, v, name)
	if err != nil || !present || dereg {
		return "", err
	}
	return name, nil
}

// symlinkOnPath reports the first symbolic link on a path under the root,
// for roots that can have links (an optional RootDir capability).
func (c *Catalog) symlinkOnPath(ctx context.Context, p string) (string, error) {
	sc, ok := c.opts.Root.(interface {
		SymlinkOnPath(ctx context.Context, path string) (string, error)
	})
	if !ok {
		return "", nil
	}
	return sc.SymlinkOnPath(ctx, p)
}

// removeLink removes the symbolic link at p (a root "<name>.lance" that
// leads out of the catalog) without following it.
func (c *Catalog) removeLink(ctx context.Context, p string) error {
	lr, ok := c.opts.Root.(interface {
		RemoveLink(ctx context.Context, path string) error
	})
	if !ok {
		return newErr(CodeUnsupported, nil, "%s is a symbolic link, and the catalog root cannot remove links", p)
	}
	return asCatalogError(lr.RemoveLink(ctx, p), "remove the link %s", p)
}

// rootLink reports whether the root directory of V1 table name is itself a
// symbolic link (one that may lead out of the catalog, dangling or not).
func (c *Catalog) rootLink(ctx context.Context, name string) (bool, error) {
	dir := v1DirName(name)
	link, err := c.symlinkOnPath(ctx, dir)
	if err != nil {
		return false, asCatalogError(err, "check %s", dir)
	}
	return link == dir, nil
}

// RegisterTable adds an existing dataset at a location relative to the
// catalog root as table id. Absolute URIs, a leading "/" and ".." are
// refused.
func (c *Catalog) RegisterTable(ctx context.Context, id Ident, location string, props map[string]string) (TableInfo, error) {
	o := &registerTableOp{id: id, location: location, props: copyProps(props)}
	if err := c.run(ctx, o); err != nil {
		return TableInfo{}, err
	}
	return o.result, nil
}

// RegisterTable adds a table registration to the batch.
func (b *Batch) RegisterTable(id Ident, location string, props map[string]string) {
	b.ops = append(b.ops, &registerTableOp{id: id, location: location, props: copyProps(props)})
}

type deregisterTableOp struct {
	id     Ident
	seen   bool
	result TableInfo
}

func (o *deregisterTableOp) plan(ctx context.Context, v *view) error {
	objectID := o.id.ObjectID()
	r, ok, err := removeTableRow(ctx, v, o.id)
	if err != nil {
		return err
	}
	if ok {
		o.seen = true
		loc := ""
		if r.Location != nil {
			loc = *r.Location
		}
		props, err := decodeProperties(objectID, r.Metadata)
		if err != nil {
			return err
		}
		o.result = TableInfo{Ident: o.id, Location: loc, URI: v.c.TableURI(loc), Properties: props}
		if v.c.v1Fallback(o.id) && loc == v1DirName(o.id.Name()) {
			// The directory stays behind and directory listing would
			// bring the table back: mark it deregistered, as a V1 table.
			o.stageMarker(v, loc)
		}
		return nil
	}
	if o.seen {
		// Removed by another writer between our attempts: that one reported
		// success, this one must not report it twice.
		return newErr(CodeTableNotFound, nil, "table %q does not exist (removed concurrently by another writer)", objectID)
	}
	if v.c.v1Fallback(o.id) {
		return o.stageV1(ctx, v)
	}
	return newErr(CodeTableNotFound, nil, "table %q does not exist", objectID)
}

func (o *deregisterTableOp) stageV1(ctx context.Context, v *view) error {
	c := v.c
	name := o.id.Name()
	present, dereg, err := c.v1State(ctx, v, name)
	if err != nil {
		return err
	}
	if !present || dereg {
		return newErr(CodeTableNotFound, nil, "table %q does not exist", name)
	}
	loc := v1DirName(name)
	o.result = TableInfo{Ident: o.id, Location: loc, URI: c.TableURI(loc), Properties: map[string]string{}}
	o.stageMarker(v, loc)
	return nil
}

// stageMarker stages writing the ".lance-deregistered" marker into loc.
func (o *deregisterTableOp) stageMarker(v *view, loc string) {
	c := v.c
	name := o.id.Name()
	marker := loc + "/" + DeregisteredMarker
	v.stage(effect{
		run: func(ctx context.Context) error {
			err := c.opts.Root.PutIfAbsent(ctx, marker, nil)
			if errors.Is(err, ErrObjectExists) {
				return newErr(CodeTableNotFound, err, "table %q was deregistered concurrently", name)
			}
			return asCatalogError(err, "deregister %s", loc)
		},
		undo: func(ctx context.Context) { _ = c.opts.Root.Delete(ctx, marker) },
	})
}

func (o *deregisterTableOp) runV1(ctx context.Context, c *Catalog) error {
	if err := checkTableIdent(o.id); err != nil {
		return err
	}
	if len(o.id) != 1 {
		return newErr(CodeTableNotFound, nil, "table %q does not exist", o.id.ObjectID())
	}
	v := &view{c: c}
	if err := o.stageV1(ctx, v); err != nil {
		return err
	}
	return v.staged[0].run(ctx)
}

// DeregisterTable removes table id from the catalog and keeps its data. A
// V1 root table (no manifest entry) gets a ".lance-deregistered" marker.
func (c *Catalog) DeregisterTable(ctx context.Context, id Ident) (TableInfo, error) {
	o := &deregisterTableOp{id: id}
	if err := c.run(ctx, o); err != nil {
		return TableInfo{}, err
	}
	return o.result, nil
}

// DeregisterTable adds a table deregistration to the batch.
func (b *Batch) DeregisterTable(id Ident) {
	b.ops = append(b.ops, &deregisterTableOp{id: id})
}

// ---- drop ----

type dropTableOp struct {
	id       Ident
	ifExists bool
	seen     bool
}

func (o *dropTableOp) plan(ctx context.Context, v *view) error {
	objectID := o.id.ObjectID()
	r, ok, err := removeTableRow(ctx, v, o.id)
	if err != nil {
		return err
	}
	if ok {
		o.seen = true
		versions, err := v.scan(ctx, RowFilter{Types: []string{ObjectTypeTableVersion}, IDPrefix: objectID + Delimiter})
		if err != nil {
			return err
		}
		for _, tv := range versions {
			v.remove(tv.ObjectID)
		}
		if r.Location != nil {
			return removeTableDirsAfterCommit(ctx, v, []string{*r.Location})
		}
		return nil
	}
	if o.seen && !o.ifExists {
		// Dropped by another writer between our attempts (ours conflicted,
		// so it did not land): that DROP reported success, and this one
		// must not report a second drop of the same table.
		return newErr(CodeTableNotFound, nil, "table %q does not exist (dropped concurrently by another writer)", objectID)
	}
	if v.c.v1Fallback(o.id) {
		// A root "<name>.lance" that is a symbolic link is not a usable
		// table (never listed, read or written through), but its name is
		// taken: DROP removes the link itself once the batch has landed,
		// never what it points to. A link some table of the manifest owns
		// as its location is that table's, dropped (or not) with it.
		if owned, err := v.tablesOverlapping(ctx, v1DirName(o.id.Name())); err != nil {
			return err
		} else if len(owned) == 0 {
			link, err := v.c.rootLink(ctx, o.id.Name())
			if err != nil {
				return err
			}
			if link {
				dir := v1DirName(o.id.Name())
				v.afterCommit(func(ctx context.Context) { _ = v.c.removeLink(ctx, dir) })
				return nil
			}
		}
		present, _, err := v.c.v1State(ctx, v, o.id.Name())
		if err != nil {
			return err
		}
		if present {
			return removeTableDirsAfterCommit(ctx, v, []string{v1DirName(o.id.Name())})
		}
	}
	if o.ifExists {
		return nil
	}
	return newErr(CodeTableNotFound, nil, "table %q does not exist", objectID)
}

func (o *dropTableOp) runV1(ctx context.Context, c *Catalog) error {
	if err := checkTableIdent(o.id); err != nil {
		return err
	}
	if len(o.id) == 1 {
		if link, err := c.rootLink(ctx, o.id.Name()); err != nil {
			return err
		} else if link {
			return c.removeLink(ctx, v1DirName(o.id.Name()))
		}
		present, _, err := c.v1State(ctx, nil, o.id.Name())
		if err != nil {
			return err
		}
		if present {
			_, err := c.opts.Root.DeletePrefix(ctx, v1DirName(o.id.Name()))
			return asCatalogError(err, "drop %s", v1DirName(o.id.Name()))
		}
	}
	if o.ifExists {
		return nil
	}
	return newErr(CodeTableNotFound, nil, "table %q does not exist", o.id.ObjectID())
}

// DropTable removes table id from the catalog, then deletes its directory.
func (c *Catalog) DropTable(ctx context.Context, id Ident) error {
	return c.run(ctx, &dropTableOp{id: id})
}

// DropTableIfExists is DropTable that does nothing for a missing table.
func (c *Catalog) DropTableIfExists(ctx context.Context, id Ident) error {
	return c.run(ctx, &dropTableOp{id: id, ifExists: true})
}

// DropTable adds a table drop to the batch.
func (b *Batch) DropTable(id Ident, ifExists bool) {
	b.ops = append(b.ops, &dropTableOp{id: id, ifExists: ifExists})
}

// ---- rename ----

type renameTableOp struct {
	from, to Ident
	result   TableInfo
}

func (o *renameTableOp) plan(ctx context.Context, v *view) error {
	c := v.c
	if err := checkTableIdent(o.from); err != nil {
		return err
	}
	if err := checkTableIdent(o.to); err != nil {
		return err
	}
	if err := validateIdent("table", o.to); err != nil {
		return err
	}
	fromID, toID := o.from.ObjectID(), o.to.ObjectID()
	r, ok, err := v.get(ctx, fromID)
	if err != nil {
		return err
	}
	if !ok || r.ObjectType != ObjectTypeTable {
		if !c.v1Fallback(o.from) {
			return newErr(CodeTableNotFound, nil, "table %q does not exist", fromID)
		}
		present, dereg, err := c.v1State(ctx, v, o.from.Name())
		if err != nil {
			return err
		}
		if !present || dereg {
			return newErr(CodeTableNotFound, nil, "table %q does not exist", fromID)
		}
		// A V1 table enters the manifest under its new name; its directory
		// is not moved (and is hidden from directory listing from now on,
		// since a manifest entry owns it).
		loc := v1DirName(o.from.Name())
		r = Row{ObjectID: fromID, ObjectType: ObjectTypeTable, Location: &loc}
	} else {
		v.remove(fromID)
	}
	if fromID == toID {
		return newErr(CodeTableAlreadyExists, nil, "table %q already exists", toID)
	}
	if err := requireNamespace(ctx, v, o.to.Namespace()); err != nil {
		return err
	}
	if other, exists, err := v.get(ctx, toID); err != nil {
		return err
	} else if exists {
		return newErr(CodeTableAlreadyExists, nil, "%s %q already exists", other.ObjectType, toID)
	}
	if c.v1Fallback(o.to) {
		present, dereg, err := c.v1State(ctx, v, o.to.Name())
		if err != nil {
			return err
		}
		if present && !dereg && !(r.Location != nil && *r.Location == v1DirName(o.to.Name())) {
			return newErr(CodeTableAlreadyExists, nil, "table %q already exists (directory %s)", toID, v1DirName(o.to.Name()))
		}
	}
	moved := r
	moved.ObjectID = toID
	v.upsert(moved)
	// Managed table versions follow their table.
	versions, err := v.scan(ctx, RowFilter{Types: []string{ObjectTypeTableVersion}, IDPrefix: fromID + Delimiter})
	if err != nil {
		return err
	}
	for _, tv := range versions {
		suffix := strings.TrimPrefix(tv.ObjectID, fromID+Delimiter)
		if strings.Contains(suffix, Delimiter) {
			continue // a version row of a deeper object
		}
		v.remove(tv.ObjectID)
		tv.ObjectID = toID + Delimiter + suffix
		v.upsert(tv)
	}
	loc := ""
	if r.Location != nil {
		loc = *r.Location
	}
	props, err := decodeProperties(toID, r.Metadata)
	if err != nil {
		return err
	}
	o.result = TableInfo{Ident: o.to, Location: loc, URI: c.TableURI(loc), Properties: props}
	return nil
}

// RenameTable renames table from to to (possibly into another namespace).
// Only the manifest changes: the entry moves to the new object id and keeps
// its location, so no data is copied and the rename is one atomic commit. A
// table created in compatibility mode keeps its "<old name>.lance" directory,
// which from then on is owned by the manifest entry (V1 listing skips it); a
// V1-only root table is entered into the manifest under its new name.
func (c *Catalog) RenameTable(ctx context.Context, from, to Ident) (TableInfo, error) {
	o := &renameTableOp{from: from, to: to}
	if err := c.run(ctx, o); err != nil {
		return TableInfo{}, err
	}
	return o.result, nil
}

// RenameTable adds a table rename to the batch.
func (b *Batch) RenameTable(from, to Ident) {
	b.ops = append(b.ops, &renameTableOp{from: from, to: to})
}

// ---- table properties ----

type alterTablePropsOp struct {
	id    Ident
	set   map[string]string
	unset []string
}

func (o *alterTablePropsOp) plan(ctx context.Context, v *view) error {
	if err := checkTableIdent(o.id); err != nil {
		return err
	}
	objectID := o.id.ObjectID()
	r, ok, err := v.get(ctx, objectID)
	if err != nil {
		return err
	}
	if !ok || r.ObjectType != ObjectTypeTable {
		if v.c.v1Fallback(o.id) {
			if present, dereg, err := v.c.v1State(ctx, v, o.id.Name()); err != nil {
				return err
			} else if present && !dereg {
				return newErr(CodeUnsupported, nil, "table %q is a V1 table without a manifest entry: it has no properties (rename or register it first)", objectID)
			}
		}
		return newErr(CodeTableNotFound, nil, "table %q does not exist", objectID)
	}
	return upsertProperties(v, r, objectID, o.set, o.unset)
}

// AlterTableProperties sets and removes properties of table id.
func (c *Catalog) AlterTableProperties(ctx context.Context, id Ident, set map[string]string, unset []string) error {
	return c.run(ctx, &alterTablePropsOp{id: id, set: copyProps(set), unset: append([]string(nil), unset...)})
}

// AlterTableProperties adds a table property change to the batch.
func (b *Batch) AlterTableProperties(id Ident, set map[string]string, unset []string) {
	b.ops = append(b.ops, &alterTablePropsOp{id: id, set: copyProps(set), unset: append([]string(nil), unset...)})
}

// upsertProperties applies property changes to the metadata of row r
// (object id for error messages) and stages the updated row.
func upsertProperties(v *view, r Row, id string, set map[string]string, unset []string) error {
	props, err := decodeProperties(id, r.Metadata)
	if err != nil {
		return err
	}
	for _, k := range unset {
		delete(props, k)
	}
	for k, val := range set {
		props[k] = val
	}
	if r.Metadata, err = encodeProperties(props); err != nil {
		return err
	}
	v.upsert(r)
	return nil
}

// removeTableRow removes the manifest row of table id from the view when
// there is one and returns it (ok false: no such table row).
func removeTableRow(ctx context.Context, v *view, id Ident) (Row, bool, error) {
	if err := checkTableIdent(id); err != nil {
		return Row{}, false, err
	}
	objectID := id.ObjectID()
	r, ok, err := v.get(ctx, objectID)
	if err != nil || !ok || r.ObjectType != ObjectTypeTable {
		return Row{}, false, err
	}
	v.remove(objectID)
	return r, true, nil
}
