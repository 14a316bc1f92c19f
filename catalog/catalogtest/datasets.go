package catalogtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
)

// MemDatasets is a fake of catalog.Datasets that keeps a stand-in for each
// dataset in a storage.Store (usually memory://): one small JSON file per
// version at "<location>/_versions/<20-digit version>.manifest" holding the
// Arrow schema (IPC) and a row count. It is not the Lance format; it only
// gives the catalog something that exists, lists and deletes like a dataset
// directory. Several MemDatasets on the same store see the same datasets.
type MemDatasets struct {
	Store storage.Store
	// CreateHook, when set, runs before Create writes anything; a non-nil
	// error fails the Create.
	CreateHook func(location string) error
}

// NewMemDatasets returns a fake writing into store.
func NewMemDatasets(store storage.Store) *MemDatasets { return &MemDatasets{Store: store} }

type fakeVersion struct {
	Schema []byte `json:"schema"`
	Rows   int64  `json:"rows"`
}

func versionPath(loc string, v uint64) string {
	return fmt.Sprintf("%s/_versions/%020d.manifest", strings.Trim(loc, "/"), v)
}

func encodeSchema(s *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeSchema(b []byte) (*arrow.Schema, error) {
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

func (d *MemDatasets) put(ctx context.Context, loc string, v uint64, s *arrow.Schema, rows int64) error {
	enc, err := encodeSchema(s)
	if err != nil {
		return fmt.Errorf("%w: %v", catalog.ErrSchemaInvalid, err)
	}
	b, err := json.Marshal(fakeVersion{Schema: enc, Rows: rows})
	if err != nil {
		return err
	}
	return d.Store.PutIfAbsent(ctx, versionPath(loc, v), b)
}

// Create writes version 1.
func (d *MemDatasets) Create(ctx context.Context, loc string, schema *arrow.Schema, batches []arrow.RecordBatch) (catalog.DatasetInfo, error) {
	if d.CreateHook != nil {
		if err := d.CreateHook(loc); err != nil {
			return catalog.DatasetInfo{}, err
		}
	}
	if schema == nil || schema.NumFields() == 0 {
		return catalog.DatasetInfo{}, fmt.Errorf("%w: a dataset needs at least one column", catalog.ErrSchemaInvalid)
	}
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	err := d.put(ctx, loc, 1, schema, rows)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return catalog.DatasetInfo{}, fmt.Errorf("%s: %w", loc, catalog.ErrDatasetExists)
	}
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	return catalog.DatasetInfo{Version: 1, Schema: schema, RowCount: rows}, nil
}

func (d *MemDatasets) versions(ctx context.Context, loc string) ([]uint64, error) {
	objs, err := d.Store.List(ctx, strings.Trim(loc, "/")+"/_versions/")
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, o := range objs {
		name := o.Path[strings.LastIndex(o.Path, "/")+1:]
		n, err := strconv.ParseUint(strings.TrimSuffix(name, ".manifest"), 10, 64)
		if err == nil && strings.HasSuffix(name, ".manifest") {
			out = append(out, n)
		}
	}
	return out, nil
}

// Describe reads a version (0: latest).
func (d *MemDatasets) Describe(ctx context.Context, loc string, version uint64) (catalog.DatasetInfo, error) {
	vs, err := d.versions(ctx, loc)
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	if len(vs) == 0 {
		return catalog.DatasetInfo{}, fmt.Errorf("%s: %w", loc, catalog.ErrDatasetNotFound)
	}
	if version == 0 {
		for _, v := range vs {
			version = max(version, v)
		}
	}
	b, err := d.Store.Read(ctx, versionPath(loc, version))
	if errors.Is(err, storage.ErrNotFound) {
		return catalog.DatasetInfo{}, fmt.Errorf("%s version %d: %w", loc, version, catalog.ErrDatasetVersionNotFound)
	}
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	var fv fakeVersion
	if err := json.Unmarshal(b, &fv); err != nil {
		return catalog.DatasetInfo{}, err
	}
	s, err := decodeSchema(fv.Schema)
	if err != nil {
		return catalog.DatasetInfo{}, err
	}
	return catalog.DatasetInfo{Version: version, Schema: s, RowCount: fv.Rows}, nil
}

// memDataset is an opened fake version: a schema and a row count, no rows.
type memDataset struct {
	loc  string
	info catalog.DatasetInfo
}

func (d *memDataset) Location() string      { return d.loc }
func (d *memDataset) Version() uint64       { return d.info.Version }
func (d *memDataset) Schema() *arrow.Schema { return d.info.Schema }

// RowCount is the row count recorded for the version (the fake keeps no
// rows).
func (d *memDataset) RowCount() int64 { return d.info.RowCount }

// Open opens a version (0: latest); it fails as Describe does.
func (d *MemDatasets) Open(ctx context.Context, loc string, version uint64) (catalog.Dataset, error) {
	info, err := d.Describe(ctx, loc, version)
	if err != nil {
		return nil, err
	}
	return &memDataset{loc: loc, info: info}, nil
}

// Exists reports whether a version exists at loc.
func (d *MemDatasets) Exists(ctx context.Context, loc string) (bool, error) {
	vs, err := d.versions(ctx, loc)
	return len(vs) > 0, err
}

// evolve commits the next version with a new schema (retrying on a race).
func (d *MemDatasets) evolve(ctx context.Context, loc string, change func(*arrow.Schema) (*arrow.Schema, error)) (uint64, error) {
	for range 10 {
		cur, err := d.Describe(ctx, loc, 0)
		if err != nil {
			return 0, err
		}
		next, err := change(cur.Schema)
		if err != nil {
			return 0, err
		}
		err = d.put(ctx, loc, cur.Version+1, next, cur.RowCount)
		if errors.Is(err, storage.ErrAlreadyExists) {
			continue
		}
		if err != nil {
			return 0, err
		}
		return cur.Version + 1, nil
	}
	return 0, errors.New("memdatasets: too much contention")
}

// AddColumns adds nullable columns.
func (d *MemDatasets) AddColumns(ctx context.Context, loc string, fields []arrow.Field) (uint64, error) {
	return d.evolve(ctx, loc, func(s *arrow.Schema) (*arrow.Schema, error) {
		out := append([]arrow.Field(nil), s.Fields()...)
		for _, f := range fields {
			if _, ok := s.FieldsByName(f.Name); ok {
				return nil, fmt.Errorf("column %q: %w", f.Name, catalog.ErrDatasetColumnExists)
			}
			if !f.Nullable {
				return nil, fmt.Errorf("column %q must be nullable: %w", f.Name, catalog.ErrSchemaInvalid)
			}
			out = append(out, f)
		}
		md := s.Metadata()
		return arrow.NewSchema(out, &md), nil
	})
}

// DropColumns drops columns.
func (d *MemDatasets) DropColumns(ctx context.Context, loc string, names []string) (uint64, error) {
	return d.evolve(ctx, loc, func(s *arrow.Schema) (*arrow.Schema, error) {
		drop := map[string]bool{}
		for _, n := range names {
			if _, ok := s.FieldsByName(n); !ok {
				return nil, fmt.Errorf("column %q: %w", n, catalog.ErrDatasetColumnNotFound)
			}
			drop[n] = true
		}
		var out []arrow.Field
		for _, f := range s.Fields() {
			if !drop[f.Name] {
				out = append(out, f)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("cannot drop every column: %w", catalog.ErrSchemaInvalid)
		}
		md := s.Metadata()
		return arrow.NewSchema(out, &md), nil
	})
}

// RenameColumns renames columns.
func (d *MemDatasets) RenameColumns(ctx context.Context, loc string, renames []catalog.ColumnRename) (uint64, error) {
	return d.evolve(ctx, loc, func(s *arrow.Schema) (*arrow.Schema, error) {
		out := append([]arrow.Field(nil), s.Fields()...)
		for _, r := range renames {
			idx := s.FieldIndices(r.From)
			if len(idx) == 0 {
				return nil, fmt.Errorf("column %q: %w", r.From, catalog.ErrDatasetColumnNotFound)
			}
			if _, ok := s.FieldsByName(r.To); ok {
				return nil, fmt.Errorf("column %q: %w", r.To, catalog.ErrDatasetColumnExists)
			}
			out[idx[0]].Name = r.To
		}
		md := s.Metadata()
		return arrow.NewSchema(out, &md), nil
	})
}
