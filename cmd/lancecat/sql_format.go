package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// resultColumn is a column of a result set as the formatters need it.
type resultColumn struct {
	name   string
	dbType string // the driver's ColumnTypeDatabaseTypeName: BIGINT, VARCHAR, DATETIME, ...
}

// formatter writes the results of the statements of a script.
type formatter interface {
	// begin starts a result set.
	begin(cols []resultColumn) error
	// row writes one row of the current result set (vals are the driver's
	// Go values; nil is NULL). vals is reused by the caller.
	row(vals []any) error
	// end finishes the current result set.
	end() error
	// ok reports a statement without a result set; affected is the
	// number of rows it changed when counted is true.
	ok(affected int64, counted bool) error
	// flush writes out buffered output.
	flush() error
}

func newFormatter(format string, w io.Writer) formatter {
	bw := bufio.NewWriterSize(w, 1<<16)
	switch format {
	case "csv":
		return &csvFormatter{w: bw}
	case "jsonl":
		return &jsonlFormatter{w: bw}
	}
	return &tableFormatter{w: bw}
}

// ---- jsonl ----

// jsonlFormatter prints each row as one JSON object keyed by column name,
// with the value conventions of `lancecat dataset cat`
// (conformance/peer/JSONL.md) applied to the driver's Go values.
type jsonlFormatter struct {
	w    *bufio.Writer
	cols []resultColumn
	buf  []byte
}

func (f *jsonlFormatter) begin(cols []resultColumn) error { f.cols = cols; return nil }
func (f *jsonlFormatter) end() error                      { return nil }
func (f *jsonlFormatter) ok(int64, bool) error            { return nil }
func (f *jsonlFormatter) flush() error                    { return f.w.Flush() }

func (f *jsonlFormatter) row(vals []any) error {
	b := append(f.buf[:0], '{')
	for i, c := range f.cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.name)
		b = append(b, ':')
		if s, ok := vals[i].(string); ok && nestedDBTypes[c.dbType] && json.Valid([]byte(s)) {
			// The driver returns nested values as JSON text: nest it.
			b = append(b, s...)
			continue
		}
		b = appendJSON(b, vals[i], c.dbType)
	}
	b = append(b, '}', '\n')
	f.buf = b
	_, err := f.w.Write(b)
	return err
}

// nestedDBTypes are the column types whose values the driver returns as
// JSON text (sqltypes.Reader): JSON Lines nests them, as `dataset cat`
// does; csv and table keep the text.
var nestedDBTypes = map[string]bool{
	"VECTOR": true, "LIST": true, "LARGE_LIST": true, "FIXED_SIZE_LIST": true, "STRUCT": true, "MAP": true, "JSON": true,
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

// appendJSON appends v as JSON: integers with every digit, floats as the
// shortest decimal that round-trips in their width (NaN, Infinity and
// -Infinity as strings), []byte as standard base64, times as text with 9
// fractional digits (see timeText), slices as arrays, maps as objects.
func appendJSON(dst []byte, v any, dbType string) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case uint64:
		return strconv.AppendUint(dst, x, 10)
	case float64:
		return appendJSONFloat(dst, x, 64)
	case float32:
		return appendJSONFloat(dst, float64(x), 32)
	case string:
		return appendJSONString(dst, x)
	case []byte:
		return appendJSONString(dst, base64.StdEncoding.EncodeToString(x))
	case time.Time:
		return appendJSONString(dst, timeText(x, dbType))
	case json.RawMessage:
		return append(dst, x...)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, rv.Uint(), 10)
	case reflect.Float32:
		return appendJSONFloat(dst, rv.Float(), 32)
	case reflect.Float64:
		return appendJSONFloat(dst, rv.Float(), 64)
	case reflect.String:
		return appendJSONString(dst, rv.String())
	case reflect.Bool:
		return strconv.AppendBool(dst, rv.Bool())
	case reflect.Slice, reflect.Array:
		dst = append(dst, '[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, rv.Index(i).Interface(), "")
		}
		return append(dst, ']')
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return append(dst, "null"...)
		}
		return appendJSON(dst, rv.Elem().Interface(), dbType)
	}
	if s, ok := v.(fmt.Stringer); ok {
		return appendJSONString(dst, s.String())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return appendJSONString(dst, fmt.Sprint(v))
	}
	return append(dst, b...)
}

func appendJSONFloat(dst []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(x, -1):
		return append(dst, `"-Infinity"`...)
	}
	var b []byte
	if bits == 32 {
		b, _ = json.Marshal(float32(x))
	} else {
		b, _ = json.Marshal(x)
	}
	return append(dst, b...)
}

// timeText formats a time value of a column of SQL type dbType:
// DATE as "YYYY-MM-DD", TIME as "HH:MM:SS.fffffffff", DATETIME (a
// timestamp without zone) as "YYYY-MM-DDTHH:MM:SS.fffffffff" in the
// value's own clock, anything else (TIMESTAMP, a timestamp with a zone) as
// the instant in UTC in that layout suffixed "Z", as `lancecat dataset cat`.
func timeText(t time.Time, dbType string) string {
	switch strings.ToUpper(dbType) {
	case "DATE":
		return t.Format("2006-01-02")
	case "TIME":
		return t.Format("15:04:05.000000000")
	case "DATETIME":
		return t.Format("2006-01-02T15:04:05.000000000")
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// textValue is the text of a non-NULL value in the table and csv formats:
// the JSON text for numbers and booleans, strings as they are, []byte as
// standard base64, times as in jsonl, anything else as its JSON text.
func textValue(v any, dbType string) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		return timeText(x, dbType)
	case float64:
		return floatText(x, 64)
	case float32:
		return floatText(float64(x), 32)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		return rv.String()
	}
	return string(appendJSON(nil, v, dbType))
}

func floatText(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return string(appendJSONFloat(nil, x, bits))
}

// ---- csv ----

// csvFormatter prints a header line per result set, then one record per
// row, fields quoted as RFC 4180 says ("..." with "" for a quote) when they
// contain a comma, a quote, CR or LF; an empty string is written as "" so
// that it differs from NULL, which is an empty field. Lines end in "\n".
type csvFormatter struct {
	w    *bufio.Writer
	cols []resultColumn
}

func (f *csvFormatter) begin(cols []resultColumn) error {
	f.cols = cols
	for i, c := range cols {
		if i > 0 {
			f.w.WriteByte(',')
		}
		f.field(c.name)
	}
	return f.w.WriteByte('\n')
}

func (f *csvFormatter) row(vals []any) error {
	for i, v := range vals {
		if i > 0 {
			f.w.WriteByte(',')
		}
		if v != nil {
			f.field(textValue(v, f.cols[i].dbType))
		}
	}
	return f.w.WriteByte('\n')
}

func (f *csvFormatter) field(s string) {
	if s != "" && !strings.ContainsAny(s, ",\"\r\n") {
		f.w.WriteString(s)
		return
	}
	f.w.WriteByte('"')
	f.w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	f.w.WriteByte('"')
}

func (f *csvFormatter) end() error           { return nil }
func (f *csvFormatter) ok(int64, bool) error { return nil }
func (f *csvFormatter) flush() error         { return f.w.Flush() }

// ---- table ----

// tableFormatter prints each result set as aligned columns under a header
// line and a rule, then "(N rows)"; columns of numbers are right-aligned,
// NULL is printed as NULL, values with line breaks span several lines. A
// statement without a result set prints "OK" (with the rows affected, for
// DML). An empty line separates a result set from the output before and
// after it.
type tableFormatter struct {
	w       *bufio.Writer
	cols    []resultColumn
	rows    [][]string // cells; nil for NULL
	nums    []bool     // column i holds numbers and NULLs only
	anyNum  []bool     // column i holds a number
	printed bool       // something was printed before
	table   bool       // the last thing printed was a result set
	warns   int        // warnings of the statement being printed (setWarnings)
}

func (f *tableFormatter) setWarnings(n int) { f.warns = n }

// warnings is the ", N warnings" suffix of the statement's summary line
// ("" without warnings), as the mysql client prints it.
func (f *tableFormatter) warnings() string {
	switch f.warns {
	case 0:
		return ""
	case 1:
		return ", 1 warning"
	}
	return fmt.Sprintf(", %d warnings", f.warns)
}

// sep separates a result set from what was printed before it, and
// anything from a result set before it, by an empty line.
func (f *tableFormatter) sep(table bool) {
	if f.printed && (table || f.table) {
		f.w.WriteByte('\n')
	}
	f.printed, f.table = true, table
}

func (f *tableFormatter) begin(cols []resultColumn) error {
	f.cols, f.rows = cols, f.rows[:0]
	f.nums = make([]bool, len(cols))
	f.anyNum = make([]bool, len(cols))
	for i := range f.nums {
		f.nums[i] = true
	}
	return nil
}

func (f *tableFormatter) row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		switch v.(type) {
		case nil:
			cells[i] = "NULL"
			continue
		case int64, int32, int16, int8, int, uint64, uint32, uint16, uint8, uint, float64, float32:
			f.anyNum[i] = true
		default:
			f.nums[i] = false
		}
		cells[i] = textValue(v, f.cols[i].dbType)
	}
	f.rows = append(f.rows, cells)
	return nil
}

func (f *tableFormatter) end() error {
	f.sep(true)
	for i := range f.nums {
		f.nums[i] = f.nums[i] && f.anyNum[i]
	}
	widths := make([]int, len(f.cols))
	for i, c := range f.cols {
		widths[i] = cellWidth(c.name)
	}
	for _, r := range f.rows {
		for i, c := range r {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	header := make([]string, len(f.cols))
	for i, c := range f.cols {
		header[i] = c.name
	}
	f.line(header, widths, nil)
	for i, w := range widths {
		if i > 0 {
			f.w.WriteString("-+-")
		}
		f.w.WriteString(strings.Repeat("-", w))
	}
	f.w.WriteByte('\n')
	for _, r := range f.rows {
		f.line(r, widths, f.nums)
	}
	if len(f.rows) == 1 {
		fmt.Fprintf(f.w, "(1 row%s)\n", f.warnings())
	} else {
		fmt.Fprintf(f.w, "(%d rows%s)\n", len(f.rows), f.warnings())
	}
	f.rows = f.rows[:0]
	return nil
}

// line prints one row of cells, several physical lines when a cell has
// line breaks; right[i] right-aligns column i.
func (f *tableFormatter) line(cells []string, widths []int, right []bool) {
	split := make([][]string, len(cells))
	height := 1
	for i, c := range cells {
		split[i] = strings.Split(strings.ReplaceAll(c, "\r\n", "\n"), "\n")
		height = max(height, len(split[i]))
	}
	for l := 0; l < height; l++ {
		var b strings.Builder
		for i, parts := range split {
			if i > 0 {
				b.WriteString(" | ")
			}
			s := ""
			if l < len(parts) {
				s = parts[l]
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s))
			if right != nil && right[i] {
				b.WriteString(pad)
				b.WriteString(s)
			} else {
				b.WriteString(s)
				b.WriteString(pad)
			}
		}
		f.w.WriteString(strings.TrimRight(b.String(), " "))
		f.w.WriteByte('\n')
	}
}

// cellWidth is the width of the widest line of s, in code points.
func cellWidth(s string) int {
	w := 0
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

func (f *tableFormatter) ok(affected int64, counted bool) error {
	f.sep(false)
	switch w := f.warnings(); {
	case !counted && affected == 0:
		fmt.Fprintf(f.w, "OK%s\n", w)
	case affected == 1:
		fmt.Fprintf(f.w, "OK, 1 row affected%s\n", w)
	default:
		fmt.Fprintf(f.w, "OK, %d rows affected%s\n", affected, w)
	}
	return nil
}

func (f *tableFormatter) flush() error { return f.w.Flush() }
