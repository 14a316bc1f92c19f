package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/storage"
)

// IMPORT INTO t [(col_or_@var, ...)] [SET col = expr, ...] FROM 'path'
// [FORMAT 'csv' | 'parquet'] [WITH option [= value], ...] is TiDB's bulk
// load. lancecat runs it as LOAD DATA's streaming load (load.go): the same
// row completion (DEFAULT, AUTO_INCREMENT, UNIQUE), batches written as
// they fill and one Append version for every file, nothing committed when
// a row fails. As in TiDB the table must be empty, and the path may be a
// glob (*, ?, [...] in the file name part) matching several files, read in
// name order. Local files are read only inside Options.LoadDataDir, as
// LOAD DATA's; object-store URIs only under Options.ImportSources
// (importstore.go).
//
// CSV takes TiDB's defaults: fields separated by ',', enclosed by '"',
// escaped by '\', lines ending in "\n" or "\r\n", \N is NULL; WITH
// skip_rows=n, fields_terminated_by, fields_enclosed_by, fields_escaped_by
// and lines_terminated_by change them. Parquet files are opened one after
// another as the load reaches them and read one batch of
// importParquetBatch rows at a time (arrow-go's pqarrow, row group by row
// group); their columns are matched to the column list (or to the table's
// columns) by name, case-insensitively, and converted by sqltypes (a
// column of the table column's own type is copied a slice at a time,
// importfast.go). TiDB's
// job options (detached, thread, disk_quota, ...) have no meaning in a
// client-side load and are refused.

// importParquetBatch bounds the rows of Parquet held at once.
const importParquetBatch = 8192

func (s *Session) importInto(ctx context.Context, st *sqlparse.ImportInto) (*Result, error) {
	load := &sqlparse.LoadData{FieldsTerminated: ",", FieldsTerminatedSet: true, Enclosed: `"`, EnclosedSet: true}
	var skip int64
	for name, v := range st.Options {
		text, isText := v.(string)
		switch name {
		case "skip_rows":
			n, ok := v.(int64)
			if !ok || n < 0 {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option skip_rows takes a number of rows")
			}
			skip = n
			continue
		case "fields_terminated_by", "fields_enclosed_by", "fields_escaped_by", "lines_terminated_by":
			if !isText {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option %s takes a string", name)
			}
		case "fields_defined_null_by":
			if !isText || text != `\N` {
				return nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO option fields_defined_null_by other than '\\N'")
			}
			continue
		case "character_set":
			if !isText || !strings.HasPrefix(strings.ToLower(text), "utf8") {
				return nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO character_set other than utf8mb4")
			}
			continue
		default:
			return nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO option %s", name)
		}
		if st.Format != "csv" {
			return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option %s is for CSV, not %s", name, st.Format)
		}
		switch name {
		case "fields_terminated_by":
			if text == "" {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option fields_terminated_by may not be empty")
			}
			load.FieldsTerminated = text
		case "fields_enclosed_by":
			if len(text) > 1 {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option fields_enclosed_by takes one character")
			}
			load.Enclosed = text
		case "fields_escaped_by":
			if len(text) > 1 {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option fields_escaped_by takes one character")
			}
			load.Escaped, load.EscapedSet = text, true
		case "lines_terminated_by":
			if text == "" {
				return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option lines_terminated_by may not be empty")
			}
			load.LinesTerminated, load.LinesTermSet = text, true
		}
	}
	if st.Format != "csv" && st.Format != "parquet" {
		return nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO FORMAT %s (csv or parquet)", quoteString(st.Format))
	}
	if st.Format == "parquet" && skip > 0 {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO option skip_rows is for CSV, not parquet")
	}
	var files []importFile
	if strings.Contains(st.Path, "://") {
		files, done, err := s.importObjects(ctx, st.Path)
		if err != nil {
			return nil, err
		}
		defer done()
		return s.importFiles(ctx, st, load, skip, files)
	}
	if s.opts.LoadDataDir == "" {
		return nil, errorf(catalog.CodePermissionDenied, "IMPORT INTO is disabled: set the load_data_dir option to the directory it may read")
	}
	paths, err := importPaths(s.opts.LoadDataDir, st.Path)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		files = append(files, localImportFile(p))
	}
	return s.importFiles(ctx, st, load, skip, files)
}

// importFile is one input of IMPORT INTO: a local file or an object.
type importFile struct {
	name string // for messages: the file's base name
	open func(context.Context) (importReader, error)
}

func localImportFile(path string) importFile {
	name := filepath.Base(path)
	return importFile{name: name, open: func(context.Context) (importReader, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: cannot open %s: %v", quoteString(name), errors.Unwrap(err))
		}
		return f, nil
	}}
}

// importFiles loads files (at least one) into the empty table.
func (s *Session) importFiles(ctx context.Context, st *sqlparse.ImportInto, load *sqlparse.LoadData, skip int64, files []importFile) (*Result, error) {
	id, ds, err := s.openTableData(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	if n, err := ds.CountRows(ctx); err != nil {
		return nil, err
	} else if n > 0 {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO needs an empty table (as TiDB's); %s holds %d rows: use LOAD DATA to add rows", displayName(id), n)
	}
	targets := st.Targets
	if st.Format == "parquet" && len(targets) == 0 {
		// The table's columns the first file holds; the others take their
		// DEFAULT (and every file must hold the same ones).
		if targets, err = parquetTargets(ctx, files[0], schema); err != nil {
			return nil, err
		}
	}
	spec, err := s.newLoadSpec(schema, targets, st.Set, "IMPORT INTO")
	if err != nil {
		return nil, err
	}
	pt := newLoadTracker(ctx)
	srcs := make([]loadSource, 0, len(files))
	closeAll := func() {
		for _, src := range srcs {
			src.close()
		}
	}
	for i, f := range files {
		if st.Format == "parquet" && i > 0 {
			// Opened when the load reaches it: a glob of many files holds
			// one open file and one footer at a time, not all of them.
			srcs = append(srcs, &lazyParquet{open: func() (*parquetSource, error) {
				r, err := f.open(ctx)
				if err != nil {
					return nil, err
				}
				return openParquetSource(ctx, pt.reader(r), f.name, spec, targets)
			}})
			continue
		}
		r, err := f.open(ctx)
		if err != nil {
			closeAll()
			return nil, err
		}
		r = pt.reader(r)
		var src loadSource
		if st.Format == "parquet" {
			src, err = openParquetSource(ctx, r, f.name, spec, targets)
		} else {
			src, err = openCSVSource(r, f.name, load, spec, skip)
		}
		if err != nil {
			closeAll()
			return nil, err
		}
		srcs = append(srcs, src)
	}
	return s.loadStream(ctx, id, ds, spec, srcs, pt)
}

// importPaths resolves IMPORT INTO's path, a file or a glob of files,
// inside dir.
func importPaths(dir, p string) ([]string, error) {
	if !strings.ContainsAny(filepath.Base(p), "*?[") {
		real, err := loadPath(dir, p)
		if err != nil {
			return nil, err
		}
		return []string{real}, nil
	}
	if strings.ContainsAny(filepath.Dir(p), "*?[") {
		return nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO glob %s with a pattern outside the file name", quoteString(p))
	}
	parent, err := loadPath(dir, filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(filepath.Join(parent, filepath.Base(p)))
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: bad glob %s: %v", quoteString(p), err)
	}
	sort.Strings(matches)
	var out []string
	for _, m := range matches {
		real, err := loadPath(dir, m)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() {
			out = append(out, real)
		}
	}
	if len(out) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: no file matches %s", quoteString(p))
	}
	return out, nil
}

// csvSource is a textSource that owns its file.
type csvSource struct {
	textSource
	f io.Closer
}

func (c *csvSource) close() { c.f.Close() }

func openCSVSource(f importReader, name string, load *sqlparse.LoadData, spec *loadSpec, skip int64) (loadSource, error) {
	lr := newLoadReader(f, load)
	lr.crlf = !load.LinesTermSet
	src, err := newTextSource(f, f, lr, name, spec, uint64(skip))
	if err != nil {
		f.Close()
		return nil, err
	}
	return src, nil
}

// parquetSource reads the matched columns of a Parquet file batch by batch.
type parquetSource struct {
	name    string
	pf      *file.Reader
	rr      pqarrow.RecordReader
	rec     arrow.RecordBatch
	readers []sqltypes.ValueReader
	order   []int  // input field k -> column of the record reader
	i       int    // next row of rec
	row     int64  // rows read so far
	bulk    []bool // per table column: appendBulk copies this batch's slice
	vals    []any  // appendRest's values of a row, per table column
	sizes   rowSizer
}

// openParquetReader reads the Parquet file r; the *file.Reader owns r.
func openParquetReader(r importReader, name string) (*file.Reader, error) {
	// A buffered stream reads a column chunk importParquetBuffer bytes at
	// a time instead of whole, which bounds memory (and, on an object
	// store, the size of each ranged GET).
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled = true
	props.BufferSize = importParquetBuffer
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		r.Close()
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: %s is not a Parquet file: %v", quoteString(name), storage.RedactError(err))
	}
	return pf, nil
}

// importParquetBuffer is the read size of a Parquet column chunk stream.
const importParquetBuffer = 1 << 20

// parquetSourcesOpen counts the Parquet sources open now, and
// parquetSourcesPeak the most open at once (tests check a glob opens its
// files one at a time).
var parquetSourcesOpen, parquetSourcesPeak atomic.Int64

func openParquetSource(ctx context.Context, r importReader, name string, spec *loadSpec, targets []sqlparse.LoadTarget) (*parquetSource, error) {
	pf, err := openParquetReader(r, name)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*parquetSource, error) {
		pf.Close()
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: importParquetBatch}, memory.DefaultAllocator)
	if err != nil {
		return fail(errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s: %v", quoteString(name), err))
	}
	// The input fields are the column list's names (or the table's columns).
	var want []string
	for k := range spec.slots {
		if targets[k].Var != "" {
			want = append(want, targets[k].Var)
		} else {
			want = append(want, targets[k].Column)
		}
	}
	byName := map[string]int{}
	for i, f := range fr.Manifest.Fields {
		byName[strings.ToLower(f.Field.Name)] = i
	}
	var leaves []int
	fieldPos := map[int]int{} // top-level field -> position among the read fields
	src := &parquetSource{name: name, pf: pf}
	picked := make([]int, len(want))
	for k, w := range want {
		i, ok := byName[strings.ToLower(w)]
		if !ok {
			return fail(errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s has no column %s", quoteString(name), sqlparse.QuoteIdent(w)))
		}
		picked[k] = i
		if _, ok := fieldPos[i]; !ok {
			fieldPos[i] = -1
			leaves = append(leaves, parquetLeaves(&fr.Manifest.Fields[i])...)
		}
	}
	// The record reader returns the chosen fields in file order.
	var tops []int
	for i := range fieldPos {
		tops = append(tops, i)
	}
	sort.Ints(tops)
	for pos, i := range tops {
		fieldPos[i] = pos
	}
	for _, i := range picked {
		src.order = append(src.order, fieldPos[i])
	}
	sort.Ints(leaves)
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return fail(errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s: %v", quoteString(name), err))
	}
	src.rr = rr
	if n := parquetSourcesOpen.Add(1); n > parquetSourcesPeak.Load() {
		parquetSourcesPeak.Store(n)
	}
	return src, nil
}

// lazyParquet is a Parquet input file opened (openParquetSource) the first
// time the load reads it.
type lazyParquet struct {
	open func() (*parquetSource, error)
	src  *parquetSource
}

func (l *lazyParquet) get() error {
	if l.src != nil {
		return nil
	}
	src, err := l.open()
	if err != nil {
		return err
	}
	l.src = src
	return nil
}

func (l *lazyParquet) next(ctx context.Context) ([]any, error) {
	if err := l.get(); err != nil {
		return nil, err
	}
	return l.src.next(ctx)
}

func (l *lazyParquet) appendBulk(ctx context.Context, spec *loadSpec, fill *insertFill, b *array.RecordBuilder, maxRows, maxBytes int, pt *loadTracker) (int, int, error) {
	if err := l.get(); err != nil {
		return 0, 0, err
	}
	return l.src.appendBulk(ctx, spec, fill, b, maxRows, maxBytes, pt)
}

var _ bulkAppender = (*lazyParquet)(nil)

// where and whereBefore name rows the load has read (the file is open by
// then; "" before).
func (l *lazyParquet) where() string {
	if l.src == nil {
		return ""
	}
	return l.src.where()
}

func (l *lazyParquet) whereBefore(back int) string {
	if l.src == nil {
		return ""
	}
	return l.src.whereBefore(back)
}

func (l *lazyParquet) rowNum(back int) int64 {
	if l.src == nil {
		return 0
	}
	return l.src.rowNum(back)
}

func (l *lazyParquet) whereNum(n int64) string {
	if l.src == nil {
		return ""
	}
	return l.src.whereNum(n)
}

func (l *lazyParquet) textual() bool { return false }

func (l *lazyParquet) close() {
	if l.src != nil {
		l.src.close()
	}
}

// parquetTargets lists the columns of schema a Parquet file holds (by
// name, case-insensitively).
func parquetTargets(ctx context.Context, f importFile, schema *arrow.Schema) ([]sqlparse.LoadTarget, error) {
	name := f.name
	r, err := f.open(ctx)
	if err != nil {
		return nil, err
	}
	pf, err := openParquetReader(r, name)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s: %v", quoteString(name), err)
	}
	has := map[string]bool{}
	for _, f := range fr.Manifest.Fields {
		has[strings.ToLower(f.Field.Name)] = true
	}
	var out []sqlparse.LoadTarget
	for _, f := range schema.Fields() {
		if has[strings.ToLower(f.Name)] {
			out = append(out, sqlparse.LoadTarget{Column: f.Name})
		}
	}
	if len(out) == 0 {
		return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s has none of the table's columns", quoteString(name))
	}
	return out, nil
}

func parquetLeaves(f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return []int{f.ColIndex}
	}
	var out []int
	for i := range f.Children {
		out = append(out, parquetLeaves(&f.Children[i])...)
	}
	return out
}

func (p *parquetSource) next(ctx context.Context) ([]any, error) {
	if err := p.nextBatch(ctx); err != nil {
		return nil, err
	}
	out := make([]any, len(p.order))
	for k, c := range p.order {
		v, err := p.readers[c](p.i)
		if err != nil {
			return nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: Parquet file %s, row %d, column %s: %v", quoteString(p.name), p.row+1, sqlparse.QuoteIdent(p.rec.ColumnName(c)), err)
		}
		out[k] = v
	}
	p.i++
	p.row++
	return out, nil
}

func (p *parquetSource) where() string { return p.whereBefore(0) }

func (p *parquetSource) whereBefore(back int) string { return p.whereNum(p.rowNum(back)) }

func (p *parquetSource) rowNum(back int) int64 { return p.row - int64(back) }

func (p *parquetSource) whereNum(n int64) string {
	return fmt.Sprintf("file %s, row %d", quoteString(p.name), n)
}

func (p *parquetSource) textual() bool { return false }

func (p *parquetSource) close() {
	if p.rec != nil {
		p.rec.Release()
		p.rec = nil
	}
	if p.rr != nil {
		p.rr.Release()
		p.rr = nil
	}
	if p.pf != nil {
		p.pf.Close()
		p.pf = nil
		parquetSourcesOpen.Add(-1)
	}
}
