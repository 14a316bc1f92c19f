package dataset

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
	"github.com/lancecat/lancecat/storage"
)

// DefaultDataStorageVersion is the Lance file version new datasets use.
const DefaultDataStorageVersion = "2.1"

// maxRowsPerFile splits large writes into several fragments (Lance's
// default max_rows_per_file is 1Mi rows as well).
const maxRowsPerFile = 1 << 20

// CreateOptions configures Create and CreateWithData.
type CreateOptions struct {
	// DataStorageVersion is the Lance file version of the data files: "2.1"
	// (default) or "2.0".
	DataStorageVersion string
	// TableMetadata and Config seed the manifest's table_metadata and config.
	TableMetadata map[string]string
	Config        map[string]string
	// DeferSync writes every file of version 1, its version file included,
	// without making it durable (storage.PutDeferred and
	// storage.PutIfAbsentDeferred); Dataset.Unsynced lists them. The caller
	// makes them durable before anything durable refers to the dataset: a
	// catalog passes them to the sync of the `__manifest` commit that names
	// the new table, so the table costs no sync round of its own. Until
	// then a crash may lose the dataset, or keep its version file and lose
	// a file it refers to.
	DeferSync bool
}

// Create creates version 1 of a dataset with the given schema and no rows.
// Field ids are assigned in pre-order from 0. An existing dataset at dir
// fails with ErrAlreadyExists.
func Create(ctx context.Context, store storage.Store, dir string, schema *arrow.Schema, opts CreateOptions) (*Dataset, error) {
	return CreateWithData(ctx, store, dir, schema, nil, opts)
}

// CreateWithData creates version 1 of a dataset holding records.
func CreateWithData(ctx context.Context, store storage.Store, dir string, schema *arrow.Schema, records []arrow.RecordBatch, opts CreateOptions) (*Dataset, error) {
	version := opts.DataStorageVersion
	if version == "" {
		version = DefaultDataStorageVersion
	}
	if err := checkWriteFormat(version); err != nil {
		return nil, err
	}
	ls, err := lanceschema.FromArrow(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if err := checkSchema(ls); err != nil {
		return nil, err
	}
	if _, err := ListVersions(ctx, store, dir); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrAlreadyExists, store.Location(dir))
	}
	frags, staged, err := writeFragments(ctx, store, dir, ls, version, records)
	if err != nil {
		return nil, err
	}
	req := commitRequest{op: "Overwrite", staged: staged, deferSync: opts.DeferSync, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := &Manifest{
			Schema:        ls.Clone(),
			DataFormat:    DataFormat{FileFormat: "lance", Version: version},
			Config:        cloneOrNil(opts.Config),
			TableMetadata: cloneOrNil(opts.TableMetadata),
		}
		assignIDs(frags, 0)
		next.Fragments = frags
		return next, overwriteTx(next, opts.Config), nil
	}}
	return commit(ctx, store, dir, NamingV2, nil, req)
}

func overwriteTx(m *Manifest, config map[string]string) *tablepb.Transaction {
	fields, md := m.Schema.Proto()
	ow := &tablepb.Transaction_Overwrite{Schema: fields, SchemaMetadata: md, ConfigUpsertValues: cloneOrNil(config)}
	for _, f := range m.Fragments {
		ow.Fragments = append(ow.Fragments, f.proto())
	}
	return &tablepb.Transaction{Operation: &tablepb.Transaction_Overwrite_{Overwrite: ow}}
}

func assignIDs(frags []*Fragment, first uint64) {
	for i, f := range frags {
		f.ID = first + uint64(i)
	}
}

// checkSchema rejects schemas Lance cannot hold.
func checkSchema(s *lanceschema.Schema) error {
	if len(s.Fields) == 0 {
		return invalidf("a dataset needs at least one column")
	}
	seen := map[string]bool{}
	for _, f := range s.Fields {
		if f.Name == "" {
			return invalidf("empty column name")
		}
		if seen[f.Name] {
			return invalidf("duplicate column %q", f.Name)
		}
		seen[f.Name] = true
		if _, err := f.ArrowType(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	}
	return nil
}

// Overwrite replaces every row with records. A nil schema keeps the
// dataset's schema (and field ids); a new schema gets fresh field ids.
// Indices are dropped, as Lance does.
func (d *Dataset) Overwrite(ctx context.Context, records []arrow.RecordBatch, schema *arrow.Schema) (*Dataset, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	version := d.manifest.DataFormat.Version
	if err := checkWriteFormat(version); err != nil {
		return nil, err
	}
	ls := d.manifest.Schema
	if schema != nil {
		var err error
		if ls, err = lanceschema.FromArrow(schema); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		if err := checkSchema(ls); err != nil {
			return nil, err
		}
	}
	frags, staged, err := writeFragments(ctx, d.store, d.dir, ls, version, records)
	if err != nil {
		return nil, err
	}
	req := commitRequest{op: "Overwrite", staged: staged, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		next.Schema = ls.Clone()
		next.Indices = nil
		assignIDs(frags, 0)
		next.Fragments = frags
		return next, overwriteTx(next, nil), nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// DropColumns removes top-level columns (a metadata-only Project; data files
// keep the bytes). Indices on dropped columns are dropped.
func (d *Dataset) DropColumns(ctx context.Context, names ...string) (*Dataset, error) {
	for _, n := range names {
		if d.manifest.Schema.Field(n) == nil {
			return nil, invalidf("no column %q", n)
		}
	}
	return d.project(ctx, func(s *lanceschema.Schema) error {
		s.Fields = slices.DeleteFunc(s.Fields, func(f *lanceschema.Field) bool { return slices.Contains(names, f.Name) })
		if len(s.Fields) == 0 {
			return invalidf("cannot drop every column")
		}
		return nil
	})
}

// RenameColumn renames a top-level column (metadata only).
func (d *Dataset) RenameColumn(ctx context.Context, from, to string) (*Dataset, error) {
	return d.project(ctx, func(s *lanceschema.Schema) error {
		f := s.Field(from)
		if f == nil {
			return invalidf("no column %q", from)
		}
		if to == "" || strings.Contains(to, ".") {
			return invalidf("bad column name %q", to)
		}
		if s.Field(to) != nil {
			return invalidf("column %q already exists", to)
		}
		f.Name = to
		return nil
	})
}

func (d *Dataset) project(ctx context.Context, change func(*lanceschema.Schema) error) (*Dataset, error) {
	req := commitRequest{op: "Project", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		if err := change(next.Schema); err != nil {
			return nil, nil, err
		}
		keep := map[int32]bool{}
		for _, f := range next.Schema.Flatten() {
			keep[f.ID] = true
		}
		for _, f := range next.Fragments {
			f.Files = slices.DeleteFunc(f.Files, func(df DataFile) bool {
				return !slices.ContainsFunc(df.Fields, func(id int32) bool { return keep[id] })
			})
		}
		next.Indices = retainIndices(next.Indices, keep)
		fields, _ := next.Schema.Proto()
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Project_{Project: &tablepb.Transaction_Project{Schema: fields}}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

func retainIndices(ixs []*IndexMetadata, keep map[int32]bool) []*IndexMetadata {
	return slices.DeleteFunc(slices.Clone(ixs), func(ix *IndexMetadata) bool {
		return !slices.ContainsFunc(ix.Fields, func(id int32) bool { return keep[id] }) && len(ix.Fields) > 0
	})
}

// AddNullableColumns adds nullable columns that read as null in every
// existing row. Like Lance's add-columns with an all-null value, this is a
// metadata-only Merge: the new fields get fresh ids and no data file holds
// them, so readers fill them with nulls.
func (d *Dataset) AddNullableColumns(ctx context.Context, fields ...arrow.Field) (*Dataset, error) {
	if len(fields) == 0 {
		return d, nil
	}
	added := make([]*lanceschema.Field, 0, len(fields))
	for _, af := range fields {
		if !af.Nullable {
			return nil, invalidf("column %q must be nullable to be added without data", af.Name)
		}
		f, err := lanceschema.FieldFromArrow(af)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		added = append(added, f)
	}
	req := commitRequest{op: "Merge", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		// New ids start after every id the schema or any data file used
		// (dropped columns' ids stay taken).
		maxID := next.Schema.MaxID()
		for _, f := range next.Fragments {
			for _, df := range f.Files {
				for _, id := range df.Fields {
					maxID = max(maxID, id)
				}
			}
		}
		for _, f := range added {
			c := f.Clone()
			var reset func(*lanceschema.Field)
			reset = func(x *lanceschema.Field) {
				x.ID = -1
				for _, ch := range x.Children {
					reset(ch)
				}
			}
			reset(c)
			next.Schema.Fields = append(next.Schema.Fields, c)
		}
		if err := checkSchema(next.Schema); err != nil {
			return nil, nil, err
		}
		assignFrom(next.Schema, maxID+1)
		fields, md := next.Schema.Proto()
		mg := &tablepb.Transaction_Merge{Schema: fields, SchemaMetadata: md}
		for _, f := range next.Fragments {
			mg.Fragments = append(mg.Fragments, f.proto())
		}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Merge_{Merge: mg}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// assignFrom gives fields with negative ids fresh ids from next upward, in
// pre-order, and fixes parent ids.
func assignFrom(s *lanceschema.Schema, next int32) {
	var walk func(fs []*lanceschema.Field, parent int32)
	walk = func(fs []*lanceschema.Field, parent int32) {
		for _, f := range fs {
			if f.ID < 0 {
				f.ID = next
				next++
			}
			f.ParentID = parent
			walk(f.Children, f.ID)
		}
	}
	walk(s.Fields, -1)
}

// UpdateTableMetadata sets and removes keys of the manifest's table
// metadata (an UpdateConfig transaction).
func (d *Dataset) UpdateTableMetadata(ctx context.Context, set map[string]string, remove []string) (*Dataset, error) {
	return d.updateConfig(ctx, nil, nil, &mapUpdate{set: set, remove: remove})
}

// UpdateConfig sets and removes keys of the manifest's config.
func (d *Dataset) UpdateConfig(ctx context.Context, set map[string]string, remove []string) (*Dataset, error) {
	return d.updateConfig(ctx, &mapUpdate{set: set, remove: remove}, nil, nil)
}

// UpdateSchemaMetadata sets and removes keys of the schema metadata.
func (d *Dataset) UpdateSchemaMetadata(ctx context.Context, set map[string]string, remove []string) (*Dataset, error) {
	return d.updateConfig(ctx, nil, &mapUpdate{set: set, remove: remove}, nil)
}

type mapUpdate struct {
	set    map[string]string
	remove []string
}

func (u *mapUpdate) apply(m map[string]string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range u.remove {
		delete(out, k)
	}
	maps.Copy(out, u.set)
	if len(out) == 0 {
		return nil
	}
	return out
}

func (u *mapUpdate) proto() *tablepb.Transaction_UpdateMap {
	if u == nil {
		return nil
	}
	um := &tablepb.Transaction_UpdateMap{}
	for _, k := range u.remove {
		um.UpdateEntries = append(um.UpdateEntries, &tablepb.Transaction_UpdateMapEntry{Key: k})
	}
	for _, k := range slices.Sorted(maps.Keys(u.set)) {
		um.UpdateEntries = append(um.UpdateEntries, &tablepb.Transaction_UpdateMapEntry{Key: k, Value: proto.String(u.set[k])})
	}
	return um
}

func (d *Dataset) updateConfig(ctx context.Context, config, schemaMD, tableMD *mapUpdate) (*Dataset, error) {
	req := commitRequest{op: "UpdateConfig", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		if config != nil {
			next.Config = config.apply(next.Config)
		}
		if schemaMD != nil {
			next.Schema.Metadata = schemaMD.apply(next.Schema.Metadata)
		}
		if tableMD != nil {
			next.TableMetadata = tableMD.apply(next.TableMetadata)
		}
		uc := &tablepb.Transaction_UpdateConfig{
			ConfigUpdates:         config.proto(),
			SchemaMetadataUpdates: schemaMD.proto(),
			TableMetadataUpdates:  tableMD.proto(),
		}
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_UpdateConfig_{UpdateConfig: uc}}, nil
	}}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// CommitIndices commits a version whose index section adds newIndices
// (replacing existing indices of the same name) and drops the indices whose
// UUIDs are in removed (a CreateIndex transaction). The index files must
// already be written under _indices/<uuid>/.
func (d *Dataset) CommitIndices(ctx context.Context, newIndices []*IndexMetadata, removed []string) (*Dataset, error) {
	for _, ix := range newIndices {
		if ix.Name == "" {
			return nil, invalidf("index without a name")
		}
		if _, err := uuid.Parse(ix.UUID); err != nil {
			return nil, invalidf("index %q: uuid %q: %v", ix.Name, ix.UUID, err)
		}
		for _, id := range ix.Fields {
			if d.manifest.Schema.FieldByID(id) == nil {
				return nil, invalidf("index %q: no field id %d", ix.Name, id)
			}
		}
	}
	req := commitRequest{op: "CreateIndex", build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := nextFrom(base)
		ci := &tablepb.Transaction_CreateIndex{}
		var keep []*IndexMetadata
		for _, ix := range next.Indices {
			gone := slices.Contains(removed, ix.UUID) || slices.ContainsFunc(newIndices, func(n *IndexMetadata) bool { return n.Name == ix.Name })
			if gone {
				pi, err := ix.proto()
				if err != nil {
					return nil, nil, err
				}
				ci.RemovedIndices = append(ci.RemovedIndices, pi)
				continue
			}
			keep = append(keep, ix)
		}
		for _, ix := range newIndices {
			pi, err := ix.proto()
			if err != nil {
				return nil, nil, err
			}
			ci.NewIndices = append(ci.NewIndices, pi)
			keep = append(keep, ix)
		}
		next.Indices = keep
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_CreateIndex_{CreateIndex: ci}}, nil
	}}
	for _, ix := range newIndices {
		for _, f := range ix.Files {
			req.written = append(req.written, joinPath(d.dir, indicesDir, ix.UUID, f.Path))
		}
	}
	return commit(ctx, d.store, d.dir, d.loc.Scheme, d.manifest, req)
}

// ---------------------------------------------------------------- data files

// newDataFileName makes a data file name the way Lance does: the first 3
// bytes of a random UUID as 24 binary digits, the other 13 as hex.
func newDataFileName() string {
	id := uuid.New()
	var sb strings.Builder
	for _, b := range id[:3] {
		fmt.Fprintf(&sb, "%08b", b)
	}
	sb.WriteString(hex.EncodeToString(id[3:]))
	sb.WriteString(".lance")
	return sb.String()
}

// writeFragments writes records as data files (one fragment per file, at
// most maxRowsPerFile rows each) and returns the fragments (ids unset) and
// the store paths written.
func writeFragments(ctx context.Context, store storage.Store, dir string, schema *lanceschema.Schema, version string, records []arrow.RecordBatch) (frags []*Fragment, staged []string, err error) {
	return writeFragmentsBuf(ctx, store, dir, schema, version, records, new(bytes.Buffer))
}

// writeFragmentsBuf is writeFragments encoding every data file into buf,
// reset between files: a caller writing many files (AppendStream, a batch
// each) keeps one buffer of a file's size instead of growing a new one by
// doubling for every file (a 10,000,000-row LOAD DATA spent a tenth of its
// CPU growing and faulting in those buffers). Store.Put keeps nothing of
// its data, so the bytes may be overwritten once it returns.
func writeFragmentsBuf(ctx context.Context, store storage.Store, dir string, schema *lanceschema.Schema, version string, records []arrow.RecordBatch, buf *bytes.Buffer) (frags []*Fragment, staged []string, err error) {
	// written is kept apart from the named result: `return nil, nil, err`
	// clears staged before this cleanup runs.
	var written []string
	defer func() {
		if err != nil {
			for _, p := range written {
				_ = store.Delete(context.WithoutCancel(ctx), p)
			}
			staged = nil
		}
	}()
	target, err := schema.ToArrow()
	if err != nil {
		return nil, nil, err
	}
	var conformed []arrow.RecordBatch
	defer func() {
		for _, r := range conformed {
			r.Release()
		}
	}()
	for _, rec := range records {
		if rec.NumRows() == 0 {
			continue
		}
		c, err := conformRecord(rec, target)
		if err != nil {
			return nil, nil, err
		}
		conformed = append(conformed, c)
	}
	var w dataFileWriter
	buf.Reset()
	var rows int64
	finish := func() error {
		if w == nil {
			return nil
		}
		sum, err := w.Finish(ctx)
		w = nil
		if err != nil {
			return fmt.Errorf("dataset: finish data file: %w", err)
		}
		name := newDataFileName()
		p := joinPath(dir, dataDir, name)
		// Staged before the write: a Put that fails may still have landed (a lost
		// acknowledgement), and the cleanup must remove it then too.
		written = append(written, p)
		if err := storage.PutDeferred(ctx, store, p, buf.Bytes()); err != nil {
			return fmt.Errorf("dataset: write data file: %w", err)
		}
		if sum.NumRows != uint64(rows) {
			return fmt.Errorf("dataset: data file writer reports %d rows, wrote %d", sum.NumRows, rows)
		}
		frags = append(frags, &Fragment{
			PhysicalRows: sum.NumRows,
			Files: []DataFile{{
				Path: name, Fields: sum.Fields, ColumnIndices: sum.ColumnIndices,
				FileMajor: sum.Major, FileMinor: sum.Minor, SizeBytes: uint64(buf.Len()),
			}},
		})
		buf.Reset()
		rows = 0
		return nil
	}
	for _, rec := range conformed {
		for off := int64(0); off < rec.NumRows(); {
			if w == nil {
				if w, err = formats.NewWriter(buf, schema, version); err != nil {
					return nil, nil, err
				}
			}
			n := min(rec.NumRows()-off, maxRowsPerFile-rows)
			part := rec
			if off != 0 || n != rec.NumRows() {
				part = rec.NewSlice(off, off+n)
			} else {
				part.Retain()
			}
			err := w.Write(ctx, part)
			part.Release()
			if err != nil {
				return nil, nil, fmt.Errorf("dataset: write data file: %w", err)
			}
			rows += n
			off += n
			if rows == maxRowsPerFile {
				if err := finish(); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := finish(); err != nil {
		return nil, nil, err
	}
	return frags, written, nil
}

// conformRecord matches rec's columns to the target schema by name and
// retypes them (child names, metadata) to it. Missing or extra columns, type
// mismatches and nulls in non-nullable columns are errors.
func conformRecord(rec arrow.RecordBatch, target *arrow.Schema) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) != target.NumFields() {
		return nil, invalidf("records have %d columns, the dataset has %d", rec.NumCols(), target.NumFields())
	}
	cols := make([]arrow.Array, target.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, f := range target.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) != 1 {
			release()
			return nil, invalidf("records have %d columns named %q", len(idx), f.Name)
		}
		col := rec.Column(idx[0])
		if !f.Nullable && col.NullN() > 0 {
			release()
			return nil, invalidf("column %q is not nullable but has %d nulls", f.Name, col.NullN())
		}
		c, err := conformArray(col, f.Type)
		if err != nil {
			release()
			return nil, invalidf("column %q: %v", f.Name, err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(target, cols, rec.NumRows())
	release()
	return out, nil
}
