package planner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// LOAD DATA [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t
// [FIELDS ...] [LINES [STARTING BY 'p'] [TERMINATED BY 's']] [IGNORE n
// LINES] [(col_or_@var, ...)] [SET col = expr, ...] streams a delimited
// text file into the table as one Lance Append version: rows are parsed
// into batches of at most loadBatchRows rows / loadBatchBytes bytes of
// text, each written as data files as soon as it is full, and one commit
// publishes them all. A bad row fails the statement naming its line and
// column, and nothing is committed (the files written are deleted).
// Without SET, @variables or LINES STARTING BY the fields are parsed from
// their bytes straight into the column builders (loadfast.go), with the
// row path's results, errors and warnings; a batch is built while the one
// before is written when no AUTO_INCREMENT or UNIQUE column needs the
// dataset between batches.
//
// Rows are completed as INSERT completes them (insertFill): omitted
// columns take their DEFAULT, AUTO_INCREMENT columns get ids reserved per
// batch (an explicit value moves the counter past it, autoinc.go), and
// UNIQUE columns are checked against the table and against every earlier
// row of the statement, so a duplicate fails it. REPLACE and IGNORE into a
// table with at most one key and no AUTO_INCREMENT column stream too
// (loadupsert.go: rows written as they are read, the rows not kept marked
// deleted by the one commit); into other tables they go through INSERT's
// upsert (upsert.go: REPLACE deletes the rows holding the key, IGNORE
// skips the row) and so read the whole file first, bounded by
// Options.MaxRows rows and MaxInsertBytes of text. IGNORE also stores a
// value a column refuses as MariaDB's adjusted value, with its warning
// (ignore.go); without it a bad value fails the statement.
//
// lancecat runs in the client's process, so LOCAL and server files are the
// same: both are read only inside Options.LoadDataDir (the driver's
// load_data_dir option, MySQL's secure_file_priv); without it LOAD DATA is
// refused. Relative paths are relative to it; no path may leave it, also
// not through a symbolic link. MySQL treats LOCAL as IGNORE because its
// server cannot stop the client's upload midway; lancecat can, so LOCAL
// keeps the strict duplicate handling.
//
// MySQL's defaults: FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY
// '\\', LINES TERMINATED BY '\n'. \N (unquoted) is NULL; escapes \0 \b \n
// \r \t \Z and \<any> are read; an enclosed field doubles the enclosing
// character inside.

const (
	loadBatchBytes = 64 << 20
	maxLoadLine    = 16 << 20
)

// loadBatchRows is a variable so tests can force several batches.
var loadBatchRows = 1 << 20

func (s *Session) loadData(ctx context.Context, st *sqlparse.LoadData) (*Result, error) {
	if s.opts.LoadDataDir == "" {
		return nil, errorf(catalog.CodePermissionDenied, "LOAD DATA is disabled: set the load_data_dir option to the directory it may read")
	}
	path, err := loadPath(s.opts.LoadDataDir, st.Path)
	if err != nil {
		return nil, err
	}
	id, ds, err := s.openTableData(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, err
	}
	spec, err := s.newLoadSpec(schema, st.Targets, st.Set, "LOAD DATA")
	if err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA: cannot open %s: %v", quoteString(st.Path), errors.Unwrap(err))
	}
	defer file.Close()
	pt := newLoadTracker(ctx)
	r := pt.reader(file)
	src, err := newTextSource(r, nil, newLoadReader(r, st), "", spec, st.IgnoreLines)
	if err != nil {
		return nil, err
	}
	defer src.close() // again after loadStream's: the REPLACE / IGNORE path leaves it open
	if (st.Replace || st.Ignore) && loadUpsertStreams(schema) {
		return s.loadUpsertStream(ctx, id, ds, spec, src, st.Replace, pt)
	}
	if st.Replace || st.Ignore {
		return s.loadUpsert(ctx, id, ds, spec, src, &sqlparse.Insert{Table: st.Table, Replace: st.Replace, Ignore: st.Ignore}, pt)
	}
	return s.loadStream(ctx, id, ds, spec, []loadSource{src}, pt)
}

// loadSource yields the records of one input file.
type loadSource interface {
	// next returns the next record's fields: nil (NULL), text (a string
	// the column's type parses, when textual) or a sqltypes Go value;
	// io.EOF when there are none left.
	next(ctx context.Context) ([]any, error)
	// where names the last record for messages ("line 3").
	where() string
	// textual reports whether fields are text to parse.
	textual() bool
	close()
}

// textSource reads a delimited text file.
type textSource struct {
	lr   *loadReader
	name string // the file's name in messages ("" for LOAD DATA's one file)
}

func (t *textSource) next(context.Context) ([]any, error) {
	for {
		fields, err := t.lr.record()
		if err != nil {
			return nil, err
		}
		if len(fields) == 1 && fields[0].text == "" && !fields[0].null {
			continue // an empty line
		}
		out := make([]any, len(fields))
		for i, f := range fields {
			if !f.null {
				out[i] = f.text
			}
		}
		return out, nil
	}
}

func (t *textSource) where() string { return t.whereNum(int64(t.lr.recLine)) }

func (t *textSource) rowNum(int) int64 { return int64(t.lr.recLine) }

func (t *textSource) whereNum(n int64) string { return lineWhere(t.name, n) }

// lineWhere names line n of a text file (name "" for LOAD DATA's one file).
func lineWhere(name string, n int64) string {
	if name != "" {
		return fmt.Sprintf("file %s, line %d", quoteString(name), n)
	}
	return fmt.Sprintf("line %d", n)
}

func (t *textSource) textual() bool { return true }
func (t *textSource) close()        {}

// loadSlot is where one input field goes: a table column or a variable.
type loadSlot struct {
	col int // column index, -1 for a variable
	v   int // variable index (for col < 0)
}

// loadSpec is a statement's mapping of input fields to table columns.
type loadSpec struct {
	verb   string
	schema *arrow.Schema
	slots  []loadSlot
	names  []string // input field k's column or @variable, for messages
	nvars  int
	sets   []loadAssign
	env    *rowEnv // the table's columns, then the variables
	given  []bool  // per column: the file or SET gives it
}

type loadAssign struct {
	col  int
	expr sqlparse.Expr
}

// loadVarColumn names the hidden column a user variable of the column list
// is read from by SET expressions.
func loadVarColumn(name string) string { return "\x00var." + name }

// newLoadSpec resolves the column list (nil: every column in order) and
// the SET assignments against schema.
func (s *Session) newLoadSpec(schema *arrow.Schema, targets []sqlparse.LoadTarget, set []sqlparse.Assignment, verb string) (*loadSpec, error) {
	spec := &loadSpec{verb: verb, schema: schema, given: make([]bool, schema.NumFields())}
	tableEnv := newRowEnv(columnsOf(schema))
	if len(targets) == 0 {
		for i, f := range schema.Fields() {
			targets = append(targets, sqlparse.LoadTarget{Column: f.Name})
			_ = i
		}
	}
	vars := map[string]int{}
	for _, t := range targets {
		if t.Var != "" {
			v, ok := vars[t.Var]
			if !ok {
				v = len(vars)
				vars[t.Var] = v
			}
			spec.slots = append(spec.slots, loadSlot{col: -1, v: v})
			spec.names = append(spec.names, "@"+t.Var)
			continue
		}
		i, err := tableEnv.column(&sqlparse.ColumnRef{Column: t.Column})
		if err != nil {
			return nil, err
		}
		if spec.given[i] {
			return nil, errorf(catalog.CodeInvalidInput, "column %s given twice", sqlparse.QuoteIdent(t.Column))
		}
		spec.given[i] = true
		spec.slots = append(spec.slots, loadSlot{col: i})
		spec.names = append(spec.names, sqlparse.QuoteIdent(schema.Field(i).Name))
	}
	spec.nvars = len(vars)
	cols := columnsOf(schema)
	varCols := make([]Column, len(vars))
	for name, v := range vars {
		varCols[v] = Column{Name: loadVarColumn(name)}
	}
	cols = append(cols, varCols...)
	spec.env = newRowEnv(cols)
	spec.env.session = s
	setSeen := map[int]bool{}
	for _, a := range set {
		c, err := tableEnv.column(a.Column)
		if err != nil {
			return nil, err
		}
		if setSeen[c] {
			return nil, errorf(catalog.CodeInvalidInput, "%s SET assigns column %s twice", verb, sqlparse.QuoteIdent(schema.Field(c).Name))
		}
		setSeen[c] = true
		var bad error
		e := sqlparse.Rewrite(a.Value, func(x sqlparse.Expr) sqlparse.Expr {
			v, ok := x.(*sqlparse.Variable)
			if !ok || v.Scope != sqlparse.ScopeUser {
				return x
			}
			name := strings.ToLower(v.Name)
			if _, ok := vars[name]; !ok {
				// MySQL reads a variable the column list does not set as
				// the session's; lancecat has no user variables.
				bad = errorf(catalog.CodeUnsupported, "not supported: %s SET reading @%s, which the column list does not set", verb, v.Name)
				return x
			}
			return &sqlparse.ColumnRef{Column: loadVarColumn(name)}
		})
		if bad != nil {
			return nil, bad
		}
		if err := spec.env.check(e); err != nil {
			return nil, err
		}
		spec.given[c] = true
		spec.sets = append(spec.sets, loadAssign{col: c, expr: e})
	}
	for i, f := range schema.Fields() {
		if spec.given[i] || (isAutoIncrement(f) && isIntegerType(f.Type)) {
			continue
		}
		d, err := columnDefault(f)
		if err != nil {
			return nil, err
		}
		if d == nil && !f.Nullable {
			return nil, errorf(catalog.CodeInvalidInput, "%s leaves out column %s, which is NOT NULL without a DEFAULT", verb, sqlparse.QuoteIdent(f.Name))
		}
	}
	return spec, nil
}

// appendNext reads src's next record into b (a rowAppender's in place,
// else through appendRow) and counts the row in pt. It returns the bytes
// of text the record held, io.EOF at the end of src.
func (spec *loadSpec) appendNext(ctx context.Context, src loadSource, fill *insertFill, b *array.RecordBuilder, pt *loadTracker) (int, error) {
	if ra, ok := src.(rowAppender); ok {
		if err := ra.advance(); err != nil {
			return 0, err
		}
		pt.row()
		return ra.appendCurrent(spec, fill, b)
	}
	fields, err := src.next(ctx)
	if err != nil {
		return 0, err
	}
	pt.row()
	return spec.appendRow(src, fields, fill, b)
}

// appendRow converts one record and appends it to b through fill
// (DEFAULTs and AUTO_INCREMENT as INSERT). It returns the bytes of text
// the record held.
func (spec *loadSpec) appendRow(src loadSource, fields []any, fill *insertFill, b *array.RecordBuilder) (int, error) {
	if len(fields) != len(spec.slots) {
		return 0, errorf(catalog.CodeInvalidInput, "%s %s: %d fields for %d columns", spec.verb, src.where(), len(fields), len(spec.slots))
	}
	if fill.lenient != nil {
		fill.lenient.row++
	}
	ncols := spec.schema.NumFields()
	row := make([]any, ncols+spec.nvars)
	size := 0
	for k, v := range fields {
		sl := spec.slots[k]
		if text, ok := v.(string); ok {
			size += len(text)
		} else {
			size += 8
		}
		if sl.col < 0 {
			row[ncols+sl.v] = v
			continue
		}
		if text, ok := v.(string); ok && src.textual() {
			f := spec.schema.Field(sl.col)
			x, err := loadValue(f, text)
			if fill.lenient != nil {
				if err != nil {
					x, err = text, nil // IGNORE: the column's adjusted value (appendValue)
				} else {
					fill.lenient.spacedNumber(f, text)
				}
			}
			if err != nil {
				return 0, errorf(catalog.CodeInvalidInput, "%s %s, column %d (%s): %v", spec.verb, src.where(), k+1, spec.names[k], err)
			}
			v = x
		}
		row[sl.col] = v
	}
	for _, a := range spec.sets {
		v, err := spec.env.eval(a.expr, row)
		if err != nil {
			return 0, errorf(catalog.CodeInvalidInput, "%s %s: SET %s: %v", spec.verb, src.where(), sqlparse.QuoteIdent(spec.schema.Field(a.col).Name), err)
		}
		if v, err = loadCoerce(spec.schema.Field(a.col), v); err != nil {
			return 0, errorf(catalog.CodeInvalidInput, "%s %s: SET %s: %v", spec.verb, src.where(), sqlparse.QuoteIdent(spec.schema.Field(a.col).Name), err)
		}
		row[a.col] = v
	}
	for i, f := range spec.schema.Fields() {
		if _, err := fill.appendValue(b.Field(i), f, i, spec.given[i], row[i]); err != nil {
			return 0, spec.appendErr(src, i, err)
		}
	}
	return size, nil
}

// loadKeys tracks the keys (PRIMARY KEY, UNIQUE columns) a streaming
// load has written so far (loadkeys.go).
type loadKeys struct {
	keys  []tableKey
	seen  []*loadKeySet // per key
	fresh [][2]uint64   // AUTO_INCREMENT ranges [lo, hi) assigned
	where loadWheres
}

func (k *loadKeys) close() {
	for _, ks := range k.seen {
		ks.close()
	}
}

// loadStream reads every source into batches appended by one commit.
func (s *Session) loadStream(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, spec *loadSpec, srcs []loadSource, pt *loadTracker) (*Result, error) {
	schema := spec.schema
	fill, err := newInsertFill(schema)
	if err != nil {
		return nil, err
	}
	fill.numbering.bulk = true // MySQL numbers a load as a bulk insert
	keys := &loadKeys{keys: enforcedKeys(schema), where: loadWheres{srcs: slices.Clone(srcs)}}
	if len(keys.keys) > 0 {
		// The statement's key budget, shared by its keys.
		budget := s.opts.SortMemory
		if budget <= 0 {
			budget = DefaultSortMemory
		}
		budget /= int64(len(keys.keys))
		seed := maphash.MakeSeed()
		for range keys.keys {
			keys.seen = append(keys.seen, newLoadKeySet(seed, budget, s.opts.NoSpill, s.opts.SpillDir))
		}
		defer keys.close()
	}
	// Whole slices of a Parquet batch go in at once (importfast.go) unless
	// SET / @variables need each row.
	bulk := !loadRowPathOnly && len(spec.sets) == 0 && spec.nvars == 0
	if bulk {
		for _, src := range srcs {
			if _, ok := src.(bulkAppender); ok {
				loadColumnarStatements.Add(1)
				break
			}
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	resv := ds // the dataset AUTO_INCREMENT reservations commit on
	var total int64
	var firstID uint64
	var wheres []int64 // per row of the batch, when there are keys
	checked := false   // the keys were checked against ds
	next := func() (arrow.RecordBatch, error) {
		rows, size := 0, 0
		wheres = wheres[:0]
		for rows < loadBatchRows && size < loadBatchBytes && len(srcs) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			src := srcs[0]
			var n int
			var err error
			if ba, ok := src.(bulkAppender); ok && bulk {
				var k int
				k, n, err = ba.appendBulk(ctx, spec, fill, b, loadBatchRows-rows, loadBatchBytes-size, pt)
				if err == nil {
					if len(keys.keys) > 0 {
						at := len(keys.where.srcs) - len(srcs)
						for back := k - 1; back >= 0; back-- {
							wheres = append(wheres, keys.where.at(at, rowNumOf(ba, back)))
						}
					}
					size += n
					rows += k
					continue
				}
			} else {
				if _, ok := src.(rowAppender); ok {
					if ru, ok := src.(runAppender); ok && len(keys.keys) == 0 {
						// Keyed loads take a record at a time: each one's
						// line is kept for key errors.
						if k, n := ru.appendRun(spec, fill, b, loadBatchRows-rows, loadBatchBytes-size, pt); k > 0 {
							size += n
							rows += k
							continue
						}
					}
				}
				n, err = spec.appendNext(ctx, src, fill, b, pt)
			}
			if errors.Is(err, io.EOF) {
				src.close()
				srcs = srcs[1:]
				if len(srcs) == 0 {
					pt.report()
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			if len(keys.keys) > 0 {
				wheres = append(wheres, keys.where.at(len(keys.where.srcs)-len(srcs), rowNumOf(src, 0)))
			}
			size += n
			rows++
		}
		if rows == 0 {
			if !checked {
				// The table's rows are read once, at the end: each batch
				// was checked against the statement's earlier ones.
				checked = true
				for ki, k := range keys.keys {
					if err := s.checkLoadTable(ctx, ds, spec, &keys.where, k, keys.seen[ki]); err != nil {
						return nil, err
					}
				}
				if beforeKeyCommit != nil {
					beforeKeyCommit()
				}
			}
			return nil, nil
		}
		var first uint64
		var allAssigned bool
		var err error
		resv, first, allAssigned, err = fill.finishAuto(ctx, resv, b, schema)
		if err != nil {
			return nil, err
		}
		fill.autoValues = fill.autoValues[:0]
		if first > 0 && firstID == 0 {
			firstID = first
		}
		rec := b.NewRecordBatch()
		// The ids assigned, as runs of consecutive values (an explicit
		// value may move the next id between runs), this batch's included:
		// an explicit value of the batch may repeat one of them.
		for r := 0; r < len(fill.assigned); r++ {
			lo := fill.assigned[r]
			if lo == 0 {
				continue
			}
			hi := lo + 1
			for r+1 < len(fill.assigned) && fill.assigned[r+1] == hi {
				r, hi = r+1, hi+1
			}
			keys.fresh = append(keys.fresh, [2]uint64{lo, hi})
		}
		if err := s.checkLoadUnique(ctx, ds, spec, fill, rec, keys, wheres, fill.assigned, allAssigned); err != nil {
			rec.Release()
			return nil, err
		}
		total += int64(rows)
		return rec, nil
	}
	// Without AUTO_INCREMENT reservations or keys building a batch
	// touches no dataset and the commit has nothing to recheck, so the
	// next batch is built while the last one is written: two cores, two
	// batches in memory.
	var werr error
	if fill.auto < 0 && len(keys.keys) == 0 {
		_, werr = appendPipelined(ctx, ds, next)
	} else {
		recheck := keyRecheck(ds, func(ctx context.Context, latest *dataset.Dataset, frags []uint64) error {
			for ki, k := range keys.keys {
				if err := s.checkLoadFragments(ctx, latest, spec, &keys.where, k, keys.seen[ki], frags); err != nil {
					return err
				}
			}
			return nil
		})
		_, werr = ds.AppendStreamChecked(ctx, next, recheck)
	}
	if err := werr; err != nil {
		for _, src := range srcs {
			src.close()
		}
		var ce *catalog.Error
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, versionErr(id, err)
	}
	res := okResult(total)
	if firstID > 0 {
		res.LastInsertID = int64(firstID)
	}
	return res, nil
}

// checkLoadUnique checks the keys (PRIMARY KEY, UNIQUE columns) of a
// batch against each other and the statement's earlier batches; the table
// (ds, the version the load appends to) is checked once at the end
// (checkLoadTable; the commit rechecks what concurrent commits add). Ids
// assigned to the AUTO_INCREMENT column are above every value the counter
// has seen, so only its explicit values are checked.
func (s *Session) checkLoadUnique(ctx context.Context, ds *dataset.Dataset, spec *loadSpec, fill *insertFill, rec arrow.RecordBatch, keys *loadKeys, wheres []int64, assigned []uint64, allAssigned bool) error {
	for ki, k := range keys.keys {
		autoOnly := len(k.cols) == 1 && k.cols[0] == fill.auto
		if !autoOnly && allAssigned && k.has(fill.auto) {
			continue // holds a fresh id in every row
		}
		seen := keys.seen[ki]
		var key []byte
		for i := 0; i < int(rec.NumRows()); i++ {
			if i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var ok bool
			if key, ok = appendRowKey(key[:0], rec, k.cols, i); !ok {
				continue
			}
			if autoOnly {
				if i < len(assigned) && assigned[i] != 0 {
					continue // assigned here
				}
				if n, err := strconv.ParseUint(string(key), 10, 64); err == nil {
					// The runs ascend: each reservation starts past the last.
					j := sort.Search(len(keys.fresh), func(j int) bool { return keys.fresh[j][1] > n })
					if j < len(keys.fresh) && n >= keys.fresh[j][0] {
						return loadDupError(spec, k, keys.where.name(wheres[i]), shownKey(key, len(k.cols)), "an id this statement assigned")
					}
				}
			}
			w, dup, err := seen.add(key, wheres[i])
			if err != nil {
				return loadKeyError(spec, err)
			}
			if dup {
				return loadDupError(spec, k, keys.where.name(wheres[i]), shownKey(key, len(k.cols)), "also at "+keys.where.name(w))
			}
		}
	}
	return nil
}

// rowNumOf is src's number of the row back rows before its last one.
func rowNumOf(src loadSource, back int) int64 {
	if ns, ok := src.(numberedSource); ok {
		return ns.rowNum(back)
	}
	return 0
}

// loadDupError is a key a load gives twice, at where.
func loadDupError(spec *loadSpec, k tableKey, where, shown, detail string) error {
	if k.primary {
		return errorf(catalog.CodeInvalidInput, "%s %s: Duplicate entry '%s' for key 'PRIMARY' (%s)", spec.verb, where, shown, detail)
	}
	return errorf(catalog.CodeInvalidInput, "%s %s: duplicate entry %s for UNIQUE column %s (%s)", spec.verb, where, quoteString(shown), sqlparse.QuoteIdent(spec.schema.Field(k.cols[0]).Name), detail)
}

// loadKeyError prefixes a key error of the table side with the statement.
func loadKeyError(spec *loadSpec, err error) error {
	var ce *catalog.Error
	if errors.As(err, &ce) {
		ce.Message = spec.verb + ": " + ce.Message
	}
	return err
}

// loadUpsert reads the whole source (bounded) and applies it as INSERT's
// REPLACE or IGNORE does: for the tables loadUpsertStream does not take.
func (s *Session) loadUpsert(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, spec *loadSpec, src loadSource, n *sqlparse.Insert, pt *loadTracker) (*Result, error) {
	fill, err := newInsertFill(spec.schema)
	if err != nil {
		return nil, err
	}
	fill.numbering.bulk = true // MySQL numbers a load as a bulk insert
	if n.Ignore {
		fill.lenient = s.lenientFor(id)
		fill.lenient.load = true
	}
	maxRows := s.opts.MaxRows
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, spec.schema)
	defer b.Release()
	rows, size := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ra, fast := src.(rowAppender)
		var fields []any
		var err error
		if fast {
			err = ra.advance()
		} else {
			fields, err = src.next(ctx)
		}
		if errors.Is(err, io.EOF) {
			pt.report()
			break
		}
		if err != nil {
			return nil, err
		}
		pt.row()
		if rows >= maxRows || size > MaxInsertBytes {
			return nil, errorf(catalog.CodeInvalidInput, "%s REPLACE / IGNORE reads at most %d rows and %d MiB (planner.Options.MaxRows, MaxInsertBytes): split the file", spec.verb, maxRows, MaxInsertBytes>>20)
		}
		var k int
		if fast {
			k, err = ra.appendCurrent(spec, fill, b)
		} else {
			k, err = spec.appendRow(src, fields, fill, b)
		}
		if err != nil {
			return nil, err
		}
		size += k
		rows++
	}
	if rows == 0 {
		return okResult(0), nil
	}
	return s.upsertRows(ctx, id, ds, spec.schema, b, fill, n)
}

// loadPath resolves p inside dir, refusing anything outside it (after
// resolving symbolic links).
func loadPath(dir, p string) (string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", errorf(catalog.CodeInvalidInput, "load_data_dir %s: %v", quoteString(dir), errors.Unwrap(err))
	}
	root, _ = filepath.Abs(root)
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(root, full)
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", errorf(catalog.CodeInvalidInput, "LOAD DATA: cannot open %s", quoteString(p))
	}
	real, _ = filepath.Abs(real)
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errorf(catalog.CodePermissionDenied, "LOAD DATA: %s is outside load_data_dir", quoteString(p))
	}
	return real, nil
}

// loadValue converts one field's text to what sqltypes.Append takes for f.
func loadValue(f arrow.Field, text string) (any, error) {
	switch f.Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not an integer", quoteString(text))
		}
		return v, nil
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		v, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not an unsigned integer", quoteString(text))
		}
		return v, nil
	case arrow.FLOAT32, arrow.FLOAT64:
		v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not a number", quoteString(text))
		}
		return v, nil
	case arrow.BOOL:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%s is not a boolean", quoteString(text))
	case arrow.DECIMAL128, arrow.DECIMAL256:
		return sqltypes.Decimal(strings.TrimSpace(text)), nil
	}
	return text, nil
}

// loadCoerce converts a SET expression's value for column f as MySQL's
// assignment does where sqltypes.Append would refuse it: text (what a
// @variable holds) is parsed as the file's text would be, and a DOUBLE
// stored in an integer column is rounded half away from zero.
func loadCoerce(f arrow.Field, v any) (any, error) {
	switch x := v.(type) {
	case string:
		if arrow.IsInteger(f.Type.ID()) || arrow.IsFloating(f.Type.ID()) || f.Type.ID() == arrow.BOOL || arrow.IsDecimal(f.Type.ID()) {
			return loadValue(f, x)
		}
	case float64:
		if arrow.IsInteger(f.Type.ID()) {
			r := math.Round(x)
			if math.IsNaN(r) || r < -(1<<63) || r >= 1<<64 {
				return nil, fmt.Errorf("%v is out of range", x)
			}
			if r >= 1<<63 {
				return uint64(r), nil
			}
			return int64(r), nil
		}
	}
	return v, nil
}

// loadField is one parsed field.
type loadField struct {
	text string
	null bool
}

// loadReader splits a delimited text stream into records.
type loadReader struct {
	r                   *bufio.Reader
	fieldTerm, lineTerm []byte
	encl, esc           byte // 0: none
	line                int  // current line (1-based)
	recLine             int  // line the last record started on
	// starting is LINES STARTING BY: a record starts after it, and a line
	// without it is skipped (MySQL).
	starting []byte
	// crlf: "\r\n" also ends a line (IMPORT INTO's default terminator).
	crlf bool
}

func newLoadReader(r io.Reader, st *sqlparse.LoadData) *loadReader {
	lr := &loadReader{r: bufio.NewReaderSize(r, 1<<16), fieldTerm: []byte("\t"), lineTerm: []byte("\n"), esc: '\\', line: 1}
	if st.FieldsTerminatedSet {
		lr.fieldTerm = []byte(st.FieldsTerminated)
	}
	if st.LinesTermSet {
		lr.lineTerm = []byte(st.LinesTerminated)
	}
	if st.LinesStartingSet && st.LinesStarting != "" {
		lr.starting = []byte(st.LinesStarting)
	}
	if st.EnclosedSet && st.Enclosed != "" {
		lr.encl = st.Enclosed[0]
	}
	if st.EscapedSet {
		lr.esc = 0
		if st.Escaped != "" {
			lr.esc = st.Escaped[0]
		}
	}
	return lr
}

func (lr *loadReader) hasPrefix(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	b, err := lr.r.Peek(len(p))
	return err == nil && bytes.Equal(b, p)
}

func (lr *loadReader) skip(n int) {
	b, _ := lr.r.Peek(n)
	lr.line += bytes.Count(b, []byte("\n"))
	_, _ = lr.r.Discard(n)
}

// skipLine reads a record and drops it (IGNORE n LINES). As in MySQL, a
// skipped line need not hold the LINES STARTING BY prefix.
func (lr *loadReader) skipLine() error {
	starting := lr.starting
	lr.starting = nil
	defer func() { lr.starting = starting }()
	_, err := lr.record()
	return err
}

// lineEnd reports the length of the line terminator at the reader, 0 if
// there is none.
func (lr *loadReader) lineEnd() int {
	if lr.crlf && lr.hasPrefix([]byte("\r\n")) {
		return 2
	}
	if lr.hasPrefix(lr.lineTerm) {
		return len(lr.lineTerm)
	}
	return 0
}

// toStart skips to just after the next LINES STARTING BY prefix, dropping
// the text before it and lines without it; io.EOF when none is left.
func (lr *loadReader) toStart() error {
	for {
		if lr.hasPrefix(lr.starting) {
			lr.skip(len(lr.starting))
			return nil
		}
		if n := lr.lineEnd(); n > 0 {
			lr.skip(n)
			continue
		}
		c, err := lr.r.ReadByte()
		if err != nil {
			return io.EOF
		}
		if c == '\n' {
			lr.line++
		}
	}
}

// record reads the next record; io.EOF when the stream has none.
func (lr *loadReader) record() ([]loadField, error) {
	if len(lr.starting) > 0 {
		if err := lr.toStart(); err != nil {
			return nil, err
		}
	}
	lr.recLine = lr.line
	if _, err := lr.r.Peek(1); err != nil && len(lr.starting) == 0 {
		return nil, io.EOF
	}
	var fields []loadField
	var buf []byte
	size := 0
	for {
		buf = buf[:0]
		quoted, escapedOnly := false, false
		if lr.encl != 0 && lr.hasPrefix([]byte{lr.encl}) {
			quoted = true
			lr.skip(1)
		}
		endRecord := false
		for {
			if size > maxLoadLine {
				return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d: a record longer than %d MiB", lr.recLine, maxLoadLine>>20)
			}
			if quoted {
				if lr.hasPrefix([]byte{lr.encl, lr.encl}) {
					buf = append(buf, lr.encl)
					lr.skip(2)
					size++
					continue
				}
				if lr.hasPrefix([]byte{lr.encl}) {
					lr.skip(1)
					quoted = false
					if lr.hasPrefix(lr.fieldTerm) || lr.lineEnd() > 0 {
						continue
					}
					if _, err := lr.r.Peek(1); err != nil {
						continue
					}
					return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d: text after the closing %q", lr.line, len(fields)+1, lr.encl)
				}
			} else {
				if lr.hasPrefix(lr.fieldTerm) {
					lr.skip(len(lr.fieldTerm))
					break
				}
				if n := lr.lineEnd(); n > 0 {
					lr.skip(n)
					endRecord = true
					break
				}
			}
			c, err := lr.r.ReadByte()
			if err != nil {
				if quoted {
					return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d: %q not closed", lr.line, len(fields)+1, lr.encl)
				}
				endRecord = true
				break
			}
			size++
			if c == '\n' {
				lr.line++
			}
			if lr.esc != 0 && c == lr.esc {
				e, err := lr.r.ReadByte()
				if err != nil {
					buf = append(buf, c)
					continue
				}
				if e == '\n' {
					lr.line++
				}
				switch e {
				case '0':
					buf = append(buf, 0)
				case 'b':
					buf = append(buf, '\b')
				case 'n':
					buf = append(buf, '\n')
				case 'r':
					buf = append(buf, '\r')
				case 't':
					buf = append(buf, '\t')
				case 'Z':
					buf = append(buf, 26)
				case 'N':
					if len(buf) == 0 {
						escapedOnly = true
						continue
					}
					buf = append(buf, 'N')
				default:
					buf = append(buf, e)
				}
				escapedOnly = false
				continue
			}
			escapedOnly = false
			buf = append(buf, c)
		}
		fields = append(fields, loadField{text: string(buf), null: escapedOnly && len(buf) == 0})
		if endRecord {
			return fields, nil
		}
	}
}
