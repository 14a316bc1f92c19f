package planner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// LOAD DATA [LOCAL] INFILE 'file' INTO TABLE t [FIELDS ...] [LINES ...]
// [IGNORE n LINES] [(cols)] streams a delimited text file into the table
// as one Lance Append version: rows are parsed into batches of at most
// loadBatchRows rows / loadBatchBytes bytes of text, each written as data
// files as soon as it is full, and one commit publishes them all. A bad row
// fails the statement naming its line and column, and nothing is committed
// (the files written are deleted).
//
// lancecat runs in the client's process, so LOCAL and server files are the
// same: both are read only inside Options.LoadDataDir (the driver's
// load_data_dir option, MySQL's secure_file_priv); without it LOAD DATA is
// refused. Relative paths are relative to it; no path may leave it, also
// not through a symbolic link.
//
// MySQL's defaults: FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY
// '\\', LINES TERMINATED BY '\n'. \N (unquoted) is NULL; escapes \0 \b \n
// \r \t \Z and \<any> are read; an enclosed field doubles the enclosing
// character inside. Omitted columns take their DEFAULT (NULL without one);
// AUTO_INCREMENT, DEFAULT expressions and UNIQUE are not applied by LOAD
// DATA (as the reference's own appends).

const (
	loadBatchRows  = 1 << 20
	loadBatchBytes = 64 << 20
	maxLoadLine    = 16 << 20
)

func (s *Session) loadData(ctx context.Context, st *sqlparse.LoadData) (*Result, error) {
	if s.opts.LoadDataDir == "" {
		return nil, errorf(catalog.CodePermissionDenied, "LOAD DATA is disabled: set the load_data_dir option to the directory it may read")
	}
	if st.LinesStartingSet && st.LinesStarting != "" {
		return nil, errorf(catalog.CodeUnsupported, "not supported: LINES STARTING BY")
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
	targets := make([]int, 0, schema.NumFields())
	if len(st.Columns) == 0 {
		for i := range schema.Fields() {
			targets = append(targets, i)
		}
	} else {
		env := newRowEnv(columnsOf(schema))
		seen := map[int]bool{}
		for _, c := range st.Columns {
			i, err := env.column(&sqlparse.ColumnRef{Column: c})
			if err != nil {
				return nil, err
			}
			if seen[i] {
				return nil, errorf(catalog.CodeInvalidInput, "column %s given twice", sqlparse.QuoteIdent(c))
			}
			seen[i] = true
			targets = append(targets, i)
		}
	}
	defaults := make([]any, schema.NumFields())
	given := map[int]bool{}
	for _, i := range targets {
		given[i] = true
	}
	for i, f := range schema.Fields() {
		if given[i] {
			continue
		}
		d, err := columnDefault(f)
		if err != nil {
			return nil, err
		}
		if d != nil && d.CurrentTimestamp {
			return nil, errorf(catalog.CodeUnsupported, "not supported: LOAD DATA leaving out column %s, whose DEFAULT is CURRENT_TIMESTAMP", sqlparse.QuoteIdent(f.Name))
		}
		if d != nil {
			defaults[i] = d.Value
		}
		if defaults[i] == nil && !f.Nullable {
			return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA leaves out column %s, which is NOT NULL without a DEFAULT", sqlparse.QuoteIdent(f.Name))
		}
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA: cannot open %s: %v", quoteString(st.Path), errors.Unwrap(err))
	}
	defer file.Close()
	lr := newLoadReader(file, st)
	for i := uint64(0); i < st.IgnoreLines; i++ {
		if _, err := lr.record(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	var total int64
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	done := false
	next := func() (arrow.RecordBatch, error) {
		if done {
			return nil, nil
		}
		rows, bytes := 0, 0
		for rows < loadBatchRows && bytes < loadBatchBytes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fields, err := lr.record()
			if errors.Is(err, io.EOF) {
				done = true
				break
			}
			if err != nil {
				return nil, err
			}
			if len(fields) != len(targets) && !(len(fields) == 1 && fields[0].text == "" && !fields[0].null && len(targets) > 1) {
				return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d: %d fields for %d columns", lr.recLine, len(fields), len(targets))
			}
			if len(fields) != len(targets) {
				continue // an empty line
			}
			vals := append([]any(nil), defaults...)
			for k, fv := range fields {
				c := targets[k]
				f := schema.Field(c)
				if fv.null {
					vals[c] = nil
					continue
				}
				bytes += len(fv.text)
				v, err := loadValue(f, fv.text)
				if err != nil {
					return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d (%s): %v", lr.recLine, k+1, sqlparse.QuoteIdent(f.Name), err)
				}
				vals[c] = v
			}
			for c, f := range schema.Fields() {
				if vals[c] == nil && !f.Nullable {
					return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d: column %s is NOT NULL", lr.recLine, sqlparse.QuoteIdent(f.Name))
				}
				if err := sqltypes.Append(b.Field(c), f, vals[c]); err != nil {
					col := 0
					for k, t := range targets {
						if t == c {
							col = k + 1
						}
					}
					return nil, errorf(catalog.CodeInvalidInput, "LOAD DATA line %d, column %d (%s): %v", lr.recLine, col, sqlparse.QuoteIdent(f.Name), err)
				}
			}
			rows++
		}
		if rows == 0 {
			return nil, nil
		}
		total += int64(rows)
		return b.NewRecordBatch(), nil
	}
	if _, err := ds.AppendStream(ctx, next); err != nil {
		return nil, versionErr(id, err)
	}
	return okResult(total), nil
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
}

func newLoadReader(r io.Reader, st *sqlparse.LoadData) *loadReader {
	lr := &loadReader{r: bufio.NewReaderSize(r, 1<<16), fieldTerm: []byte("\t"), lineTerm: []byte("\n"), esc: '\\', line: 1}
	if st.FieldsTerminatedSet {
		lr.fieldTerm = []byte(st.FieldsTerminated)
	}
	if st.LinesTermSet {
		lr.lineTerm = []byte(st.LinesTerminated)
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

// record reads the next record; io.EOF when the stream has none.
func (lr *loadReader) record() ([]loadField, error) {
	lr.recLine = lr.line
	if _, err := lr.r.Peek(1); err != nil {
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
					if lr.hasPrefix(lr.fieldTerm) || lr.hasPrefix(lr.lineTerm) {
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
				if lr.hasPrefix(lr.lineTerm) {
					lr.skip(len(lr.lineTerm))
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
