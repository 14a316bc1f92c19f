package catalog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// This file is the seam between the catalog's semantics and Lance on disk.
// The catalog is written against the three small interfaces below; the
// Lance-backed implementations (manifest/...) read and write the `__manifest`
// Lance table, its scalar indices and the table datasets. In-memory fakes for
// tests live in package catalog/catalogtest.

// Object types of `__manifest` rows. Rows of any other type are preserved
// untouched by every rewrite and are never listed as namespaces or tables.
const (
	ObjectTypeNamespace    = "namespace"
	ObjectTypeTable        = "table"
	ObjectTypeTableVersion = "table_version"
)

// Keys of the `__manifest` table metadata map holding the catalog feature
// flags (decimal u64 bitmasks). lancecat understands no flag: any set bit
// refuses reading (reader flags) or writing (writer flags).
const (
	ReaderFeatureFlagsKey = "lance.namespace.manifest.reader_feature_flags"
	WriterFeatureFlagsKey = "lance.namespace.manifest.writer_feature_flags"
)

// Row is one row of the `__manifest` table.
type Row struct {
	// ObjectID is the namespace path and the name joined by "$"; the
	// (unenforced) primary key.
	ObjectID string
	// ObjectType is "namespace", "table", "table_version" or any other
	// string another client wrote (kept as is).
	ObjectType string
	// Location is the table directory relative to the catalog root; nil is
	// SQL NULL (namespaces).
	Location *string
	// Metadata is the JSON object text of string properties; nil is NULL.
	Metadata *string
	// BaseObjects is the base_objects list; nil is NULL, a non-nil empty
	// slice is an empty list.
	BaseObjects []string
	// Extra carries the values of columns the catalog does not know
	// (schema extensions written by other clients). It is opaque to the
	// catalog: the ManifestTable implementation fills it when it reads a row
	// and must write those values back when the row is upserted unchanged
	// in Extra. Rows the catalog builds from scratch have a nil Extra, which
	// means NULL in every extension column.
	Extra any
}

// Clone returns a deep copy of r (Extra is shared: it is immutable by
// contract).
func (r Row) Clone() Row {
	c := r
	if r.Location != nil {
		v := *r.Location
		c.Location = &v
	}
	if r.Metadata != nil {
		v := *r.Metadata
		c.Metadata = &v
	}
	if r.BaseObjects != nil {
		c.BaseObjects = append(make([]string, 0, len(r.BaseObjects)), r.BaseObjects...)
	}
	return c
}

// RowFilter selects rows of a snapshot. All set conditions must hold. The
// Lance implementation pushes them down: Types to the BITMAP index on
// object_type, IDPrefix to the BTREE index on object_id (a range scan), and
// BaseObject to the LABEL_LIST index on base_objects. Values are matched as
// exact byte strings: implementations must never build filter expressions by
// concatenating them into SQL text (names may hold quotes).
type RowFilter struct {
	// Types keeps rows whose object_type is one of these; empty keeps all.
	Types []string
	// IDPrefix keeps rows whose object_id starts with this prefix.
	IDPrefix string
	// DirectOnly additionally requires that the rest of object_id after
	// IDPrefix holds no "$": with IDPrefix "" these are the root's direct
	// children, with IDPrefix "a$b$" the direct children of namespace a.b.
	DirectOnly bool
	// BaseObject, when not empty, keeps rows whose base_objects list
	// contains it.
	BaseObject string
	// Limit stops after this many matching rows; 0 means no limit. Order of
	// the rows is unspecified (the catalog sorts).
	Limit int
}

// Match reports whether r satisfies the filter (Limit aside). Fakes and
// implementations without index push-down use it as the definition.
func (f RowFilter) Match(r Row) bool {
	if len(f.Types) > 0 {
		ok := false
		for _, t := range f.Types {
			if r.ObjectType == t {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.ObjectID) < len(f.IDPrefix) || r.ObjectID[:len(f.IDPrefix)] != f.IDPrefix {
		return false
	}
	if f.DirectOnly {
		for i := len(f.IDPrefix); i < len(r.ObjectID); i++ {
			if r.ObjectID[i] == '$' {
				return false
			}
		}
	}
	if f.BaseObject != "" {
		found := false
		for _, b := range r.BaseObjects {
			if b == f.BaseObject {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ManifestSnapshot is one committed version of the `__manifest` table. It is
// immutable: every method answers for that version only.
type ManifestSnapshot interface {
	// Version is the Lance version number of the snapshot; 0 when the
	// `__manifest` table does not exist yet (an empty snapshot).
	Version() uint64
	// Metadata returns a copy of the table metadata map (root namespace
	// properties and feature flags live there).
	Metadata() map[string]string
	// Get looks up one row by object_id (the BTREE index). found is false
	// when there is no such row. More than one row with the id is a
	// corrupted catalog and must be reported as an error.
	Get(ctx context.Context, objectID string) (row Row, found bool, err error)
	// Scan returns the rows matching filter, in any order. A failed read is
	// an error, never an empty result.
	Scan(ctx context.Context, filter RowFilter) ([]Row, error)
	// ExplainGet and ExplainScan say how Get and Scan would answer now,
	// from the same decision the reads make (they may read index files to
	// decide, never rows). EXPLAIN prints them.
	ExplainGet(ctx context.Context, objectID string) (ReadPlan, error)
	ExplainScan(ctx context.Context, filter RowFilter) (ReadPlan, error)
}

// RowVisitor is implemented by snapshots that can hand the rows a filter
// selects to a callback without copying them, so that listing tens of
// thousands of tables allocates only the listing. VisitRows calls visit
// once, with the number of rows selected (to size the result) and the
// rows, in Scan's order and within its Limit. visit must neither keep nor
// modify a row (its pointer fields are shared with the snapshot), and may
// range over rows only once.
type RowVisitor interface {
	VisitRows(ctx context.Context, filter RowFilter, visit func(n int, rows iter.Seq[*Row])) error
}

// LocationFinder is implemented by snapshots that can find the tables whose
// location overlaps a given one (LocationsOverlap: the same directory, one
// above or one below it) without reading every table row, which dropping a
// table checks so that an alias does not take another table's data with it.
// Snapshots without it are scanned.
type LocationFinder interface {
	// TablesOverlapping returns the rows of object_type table whose
	// location overlaps loc, in any order.
	TablesOverlapping(ctx context.Context, loc string) ([]Row, error)
}

// ReadPlan is how a snapshot answers one read of `__manifest`.
type ReadPlan struct {
	// Indices are the `__manifest` scalar indices searched (object_id_btree,
	// object_type_bitmap, base_objects_label_list), in the order applied;
	// empty when the read scans.
	Indices []string
	// Scan says how rows are read without an index: "rows in memory" (the
	// version is already decoded), "full decode" (every row is read), or
	// "" when Indices answer the read.
	Scan string
	// UncoveredFragments counts the fragments (appended since the indices
	// were built) that an indexed read scans whole besides its index hits.
	UncoveredFragments int
}

// String renders the plan for EXPLAIN: "index object_id_btree",
// "indices object_type_bitmap, object_id_btree", "scan (full decode)".
func (p ReadPlan) String() string {
	unc := ""
	if p.UncoveredFragments > 0 {
		unc = fmt.Sprintf(" + scan of %d unindexed fragments", p.UncoveredFragments)
	}
	switch {
	case len(p.Indices) == 1:
		return "index " + p.Indices[0] + unc
	case len(p.Indices) > 1:
		return "indices " + strings.Join(p.Indices, ", ") + unc
	case p.Scan != "":
		return "scan (" + p.Scan + ")"
	}
	return "scan"
}

// The Scan values of a ReadPlan.
const (
	ReadScanMemory     = "rows in memory"
	ReadScanFullDecode = "full decode"
)

// ManifestChange is what one catalog commit changes, applied atomically to
// the base snapshot: rows of Deletes are removed, rows of Upserts replace the
// row of the same object_id or are added, metadata keys are set/removed.
// Rows not named are carried over unchanged, extension columns included.
// An object_id appears at most once across Upserts and Deletes.
type ManifestChange struct {
	Upserts       []Row
	Deletes       []string
	SetMetadata   map[string]string
	UnsetMetadata []string
	// BuildIndices asks the implementation to rebuild the three scalar
	// indices with this commit (Options.BuildIndices passed down).
	BuildIndices bool
	// Sync lists files (paths in the catalog root's store) that the
	// mutation's side effects wrote without making them durable: the new
	// tables' datasets (DatasetsUnsyncedCreator). The implementation makes
	// them durable before it publishes the version, in the same round of
	// syncs as the version's own files, so no durable `__manifest` version
	// names a table a crash can lose.
	Sync []string
}

// Empty reports whether the change changes nothing.
func (c *ManifestChange) Empty() bool {
	return len(c.Upserts) == 0 && len(c.Deletes) == 0 && len(c.SetMetadata) == 0 && len(c.UnsetMetadata) == 0
}

// Errors a ManifestTable reports.
var (
	// ErrCommitConflict: another writer committed base+1 first. The change
	// did not land; the catalog re-reads and re-validates.
	ErrCommitConflict = errors.New("manifest commit conflict")
	// ErrCommitOutcomeUnknown: the commit may or may not have landed and
	// the implementation could not find out (it first tries: it reads the
	// target version and checks whether that version is its own write). The
	// catalog then keeps every side effect of the operation.
	ErrCommitOutcomeUnknown = errors.New("manifest commit outcome unknown")
)

// ManifestTable is the `__manifest` Lance table of a catalog.
//
// Contract:
//   - Latest must return the latest committed version at the time of the
//     call (it may cache, but must check for a successor version on each
//     call; no stale snapshot). If the table does not exist, Latest returns
//     an empty snapshot of Version 0.
//   - Create creates the table (schema with the primary-key field metadata,
//     no rows, no feature flags) if it does not exist; concurrent creators
//     must both succeed and see the same table.
//   - Commit applies change on top of snapshot version base and commits
//     version base+1 with an atomic put-if-not-exists. It returns nil only
//     when the commit landed, an error wrapping ErrCommitConflict when
//     version base+1 already exists and is not ours (nothing landed; staged
//     files cleaned up by the implementation), an error wrapping
//     ErrCommitOutcomeUnknown when it cannot tell, and any other error when
//     nothing landed. base is never 0: the catalog calls Create first.
//     The files of change.Sync are durable before version base+1 can be
//     seen (on stores that sync).
//   - Vacuum deletes files of old versions as described at VacuumOptions.
//
// Implementations must be safe for concurrent use.
type ManifestTable interface {
	Latest(ctx context.Context) (ManifestSnapshot, error)
	Create(ctx context.Context) error
	Commit(ctx context.Context, base uint64, change *ManifestChange) (version uint64, err error)
	Vacuum(ctx context.Context, opts VacuumOptions) (VacuumReport, error)
}

// VacuumOptions says which old versions of the `__manifest` table may be
// cleaned. A version is eligible when it has been superseded (its successor
// committed) longer than Retention ago; the latest version is always kept.
type VacuumOptions struct {
	// Retention is the grace period; zero means DefaultVacuumRetention.
	Retention time.Duration
	// Now is the clock (zero: time.Now()).
	Now time.Time
	// KeepVersionFiles keeps the `_versions/*.manifest` files of eligible
	// versions and deletes only the data and index files no kept version
	// references. The reference implementation detects new versions by
	// probing for version N+1, so deleting version files can leave a
	// long-running peer process on a stale snapshot forever; lancecat
	// therefore keeps them by default (see DefaultVacuumOptions).
	KeepVersionFiles bool
}

// DefaultVacuumRetention is the default grace period of Vacuum.
const DefaultVacuumRetention = time.Hour

// VacuumReport says what a Vacuum freed.
type VacuumReport struct {
	VersionsRemoved int   // version files deleted
	FilesRemoved    int   // files deleted in total (version, data, index files)
	BytesRemoved    int64 // their total size (of the `__manifest` files)
	OldestKept      uint64
	// OrphanDirsRemoved counts root directories no catalog entry owned.
	OrphanDirsRemoved int
	// StagedFilesRemoved and StagedBytesRemoved count the files inside
	// tables' directories that no version of the table referenced (staged by
	// writes that never committed), with their size.
	StagedFilesRemoved int
	StagedBytesRemoved int64
}

// StagedFileVacuumer is implemented by Datasets that can delete the files a
// dataset's directory holds that no version references and that are older
// than opts.Retention (opts.Now is the clock). Catalog.Vacuum calls it for
// every table the catalog owns; it never removes a version.
type StagedFileVacuumer interface {
	VacuumStaged(ctx context.Context, location string, opts VacuumOptions) (VacuumReport, error)
}

// DatasetInfo describes one version of a Lance dataset.
type DatasetInfo struct {
	Version  uint64
	Schema   *arrow.Schema
	RowCount int64
}

// Dataset is one opened, immutable version of a table dataset. The catalog
// never reads rows; readers (the planner) reach them through the
// implementation's own type: the Lance implementation (manifest.Datasets)
// returns a value with a Lance() method giving the lance/dataset version to
// scan with lance/scan.
type Dataset interface {
	// Location is the dataset directory relative to the catalog root.
	Location() string
	// Version is the version opened.
	Version() uint64
	// Schema is the version's Arrow schema.
	Schema() *arrow.Schema
}

// ColumnRename renames one top-level column.
type ColumnRename struct {
	From, To string
}

// Errors a Datasets implementation reports (wrapped). They belong to the
// storage contract and say what the dataset found; the catalog maps each to
// a namespace-spec code (mapDatasetErr) and keeps it as the cause, so
// ErrDatasetColumnNotFound reaches callers inside an error of code
// TableColumnNotFound (ErrTableColumnNotFound, which driver.ErrColumnNotFound
// is): match the code to ask "was the column unknown?", whatever layer
// noticed it, and these sentinels only when talking to a Datasets directly.
var (
	ErrDatasetExists          = errors.New("dataset already exists")
	ErrDatasetNotFound        = errors.New("dataset not found")
	ErrDatasetVersionNotFound = errors.New("dataset version not found")
	ErrDatasetColumnNotFound  = errors.New("dataset column not found")
	ErrDatasetColumnExists    = errors.New("dataset column already exists")
	ErrSchemaInvalid          = errors.New("invalid schema")
	// ErrStoredSchemaRefused: the schema stored with a dataset breaks a
	// limit (vector dimension, decimal scale, nesting depth) and is
	// refused instead of being used.
	ErrStoredSchemaRefused = errors.New("stored schema refused")
)

// DatasetsUnsyncedCreator is implemented by Datasets that can create a
// dataset without making it durable, returning the paths (in the catalog
// root's store) of the files to sync: the catalog passes them to the
// `__manifest` commit that names the table (ManifestChange.Sync), so a new
// table costs no round of syncs of its own. Until that commit a crash may
// lose the dataset or part of it; that is harmless only where no catalog
// entry can reach it, so the catalog does not use it for tables a
// directory listing would show (root tables in compatibility mode).
type DatasetsUnsyncedCreator interface {
	CreateUnsynced(ctx context.Context, location string, schema *arrow.Schema, batches []arrow.RecordBatch) (DatasetInfo, []string, error)
}

// Datasets is what the catalog needs from Lance table datasets. Locations
// are relative to the catalog root (e.g. "t.lance", "1a2b3c4d_ns$t").
//
// Contract: Create commits version 1 of a new dataset with an atomic
// put-if-not-exists and returns ErrDatasetExists if the location already
// holds a dataset (it must then leave the existing files alone). Describe
// with version 0 describes the latest version. AddColumns adds nullable
// columns (all values null); DropColumns and RenameColumns fail with
// ErrDatasetColumnNotFound for an unknown column; each returns the new version.
// Exists reports whether the location holds at least one committed version
// (a `_versions/*.manifest`); a directory with only a `.lance-reserved`
// marker does not. Open opens a version (0: the latest) for reading rows,
// failing like Describe (ErrDatasetNotFound, ErrDatasetVersionNotFound).
// Safe for concurrent use.
type Datasets interface {
	Open(ctx context.Context, location string, version uint64) (Dataset, error)
	Create(ctx context.Context, location string, schema *arrow.Schema, batches []arrow.RecordBatch) (DatasetInfo, error)
	Describe(ctx context.Context, location string, version uint64) (DatasetInfo, error)
	AddColumns(ctx context.Context, location string, fields []arrow.Field) (version uint64, err error)
	DropColumns(ctx context.Context, location string, names []string) (version uint64, err error)
	RenameColumns(ctx context.Context, location string, renames []ColumnRename) (version uint64, err error)
	Exists(ctx context.Context, location string) (bool, error)
}
