package conformance

import (
	"bytes"
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/conformance/peer"
	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/internal/arrowjson"
)

// arrowLines runs q through the Arrow escape hatch (driver.NewArrowFromConn)
// and returns its schema and its rows as JSON Lines (JSONL.md, the peer's
// convention).
func arrowLines(ctx context.Context, t *testing.T, db *sql.DB, q string) (*arrow.Schema, []string) {
	t.Helper()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var schema *arrow.Schema
	var buf bytes.Buffer
	err = conn.Raw(func(dc any) error {
		a, err := lancecat.NewArrowFromConn(dc.(sqldriver.Conn))
		if err != nil {
			return err
		}
		rdr, err := a.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rdr.Release()
		schema = rdr.Schema()
		for rdr.Next() {
			if err := arrowjson.WriteLines(&buf, rdr.RecordBatch()); err != nil {
				return err
			}
		}
		return rdr.Err()
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, string(l))
		}
	}
	return schema, lines
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, err := peer.ParseRows(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := peer.ParseRows(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != len(w) {
		t.Fatalf("%s: %d rows through Arrow, the peer reads %d", what, len(g), len(w))
	}
	for i := range w {
		if !reflect.DeepEqual(g[i], w[i]) {
			t.Fatalf("%s row %d:\narrow %s\n peer %s", what, i, got[i], want[i])
		}
	}
}

// TestArrowEscapeHatchMatchesPeer: the Arrow escape hatch returns table
// data in its stored Arrow types (decimal128, time64, timestamps with their
// unit and zone, fixed_size_list<float32>, list, large_list, struct) with
// the values the peer reads from the same table: a peer-written table of
// every common type, and a table lancecat created and filled through SQL.
func TestArrowEscapeHatchMatchesPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	root := t.TempDir()
	src := peer.FixtureCopy(t, "types-1000")
	if err := os.Rename(src, filepath.Join(root, "types.lance")); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	schema, got := arrowLines(ctx, t, db, "SELECT * FROM types")
	// The stored types, as gen-fixtures.mjs declares them.
	wantTypes := map[string]arrow.DataType{
		"int64":        arrow.PrimitiveTypes.Int64,
		"uint64":       arrow.PrimitiveTypes.Uint64,
		"float32":      arrow.PrimitiveTypes.Float32,
		"float16":      arrow.FixedWidthTypes.Float16,
		"date32":       arrow.FixedWidthTypes.Date32,
		"ts_ms":        &arrow.TimestampType{Unit: arrow.Millisecond},
		"ts_ns_berlin": &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Berlin"},
		"dec_18_2":     &arrow.Decimal128Type{Precision: 18, Scale: 2},
		"dec_38_10":    &arrow.Decimal128Type{Precision: 38, Scale: 10},
		"list_i32":     arrow.ListOf(arrow.PrimitiveTypes.Int32),
		"list_utf8":    arrow.ListOf(arrow.BinaryTypes.String),
		"struct": arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true}),
		"vector":         arrow.FixedSizeListOf(8, arrow.PrimitiveTypes.Float32),
		"large_list_i64": arrow.LargeListOf(arrow.PrimitiveTypes.Int64),
	}
	checkTypes(t, schema, wantTypes)
	want, err := peer.DumpLines(ctx, t, filepath.Join(root, "types.lance"), peer.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "types-1000", got, want)
	// The same types in Lance file format 2.0, and a table with deleted
	// rows (deletion files), as the scan's batches pass through.
	for _, name := range []string{"types-v2.0", "deleted-rows"} {
		if err := os.Rename(peer.FixtureCopy(t, name), filepath.Join(root, name+".lance")); err != nil {
			t.Fatal(err)
		}
		want, err := peer.DumpLines(ctx, t, filepath.Join(root, name+".lance"), peer.DumpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		schema, got := arrowLines(ctx, t, db, "SELECT * FROM `"+name+"`")
		if name == "types-v2.0" {
			checkTypes(t, schema, wantTypes)
		}
		sameRows(t, name, got, want)
	}

	// A table lancecat wrote: the types SQL declares.
	for _, q := range []string{
		"CREATE TABLE sq (id BIGINT NOT NULL, d DECIMAL(10,2), t6 TIME, t9 TIME(9), dt3 DATETIME(3), ts TIMESTAMP(6), v VECTOR(3), b BOOLEAN, u BIGINT UNSIGNED)",
		"INSERT INTO sq VALUES (1, -12.30, '23:59:59.999999', '00:00:00.000000001', '2024-02-29 12:00:00.123', '1969-12-31 23:59:59.5', '[0.5,-1,3.4028235e38]', TRUE, 18446744073709551615)",
		"INSERT INTO sq VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	schema, got = arrowLines(ctx, t, db, "SELECT * FROM sq ORDER BY id")
	checkTypes(t, schema, map[string]arrow.DataType{
		"d":   &arrow.Decimal128Type{Precision: 10, Scale: 2},
		"t6":  arrow.FixedWidthTypes.Time64us,
		"t9":  arrow.FixedWidthTypes.Time64ns,
		"dt3": &arrow.TimestampType{Unit: arrow.Millisecond},
		"ts":  &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		"v":   arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32),
		"b":   arrow.FixedWidthTypes.Boolean,
		"u":   arrow.PrimitiveTypes.Uint64,
	})
	var out struct {
		Rows []json.RawMessage `json:"rows"`
	}
	// The peer's JSONL printer has no time64 spelling: TIME is compared
	// with the stored values below, everything else with the peer's read.
	cols := []string{"id", "d", "dt3", "ts", "v", "b", "u"}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": "sq", "columns": cols}, &out); err != nil {
		t.Fatal(err)
	}
	want = make([]string, len(out.Rows))
	for i, r := range out.Rows {
		want[i] = string(r)
	}
	rows, err := peer.ParseRows(got)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if i == 0 && (r["t6"] != "23:59:59.999999000" || r["t9"] != "00:00:00.000000001") {
			t.Errorf("TIME values through Arrow: %v %v", r["t6"], r["t9"])
		}
		delete(r, "t6")
		delete(r, "t9")
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = string(b)
	}
	sameRows(t, "sq", got, want)

	// Decimals, dates, binary, timestamps and float16 inside lists and
	// structs, written by the peer: stored types both when the scan's
	// batches pass through (no ORDER BY) and when they are rebuilt from
	// rows (ORDER BY), with the values the peer reads.
	nestedSchema := map[string]any{"fields": []map[string]any{
		{"name": "id", "type": "int64", "nullable": false},
		{"name": "l_dec", "type": map[string]any{"list": map[string]any{"name": "item", "type": "decimal128(38,10)"}}},
		{"name": "l_date", "type": map[string]any{"list": map[string]any{"name": "item", "type": "date32"}}},
		{"name": "l_bin", "type": map[string]any{"list": map[string]any{"name": "item", "type": "binary"}}},
		{"name": "l_ts", "type": map[string]any{"list": map[string]any{"name": "item", "type": "timestamp[ms]"}}},
		{"name": "l_f16", "type": map[string]any{"list": map[string]any{"name": "item", "type": "float16"}}},
		{"name": "st", "type": map[string]any{"struct": []map[string]any{
			{"name": "d", "type": "decimal128(10,2)"},
			{"name": "day", "type": "date32"},
			{"name": "b", "type": "binary"},
			{"name": "ts", "type": "timestamp[us, tz=UTC]"},
			{"name": "fb", "type": "fixed_size_binary[2]"},
		}}},
	}}
	var nestedRows []map[string]any
	for i := 0; i < 40; i++ {
		r := map[string]any{"id": 39 - i} // stored in descending id order
		if i%9 != 4 {
			r["l_dec"] = []any{fmt.Sprintf("%d.%010d", i*1000003, i*7), nil, "-12345678901234567890123456.0000000001"}
			r["l_date"] = []any{"1969-12-31", fmt.Sprintf("2024-02-%02d", 1+i%29), nil}
			r["l_bin"] = []any{"/wAB", "", nil, base64.StdEncoding.EncodeToString([]byte{byte(i), 0xfe})}
			r["l_ts"] = []any{fmt.Sprintf("1969-12-31T23:59:59.%03d", i), nil}
			r["l_f16"] = []any{0.1, 65504, -0.0000000596, nil}
			r["st"] = map[string]any{"d": fmt.Sprintf("-%d.%02d", i, i), "day": "2000-02-29", "b": "AAE=", "ts": "1970-01-01T00:00:00.5Z", "fb": "AAE="}
		}
		if i%9 == 7 {
			r["st"] = map[string]any{"d": nil, "day": nil, "b": nil, "ts": nil, "fb": nil}
		}
		nestedRows = append(nestedRows, r)
	}
	if err := peer.Op(ctx, t, "createTable", map[string]any{"uri": root, "name": "nested", "schema": nestedSchema, "rows": nestedRows}, nil); err != nil {
		t.Fatalf("peer writes the nested table: %v", err)
	}
	nestedTypes := map[string]arrow.DataType{
		"l_dec":  arrow.ListOf(&arrow.Decimal128Type{Precision: 38, Scale: 10}),
		"l_date": arrow.ListOf(arrow.FixedWidthTypes.Date32),
		"l_bin":  arrow.ListOf(arrow.BinaryTypes.Binary),
		"l_ts":   arrow.ListOf(&arrow.TimestampType{Unit: arrow.Millisecond}),
		"l_f16":  arrow.ListOf(arrow.FixedWidthTypes.Float16),
		"st": arrow.StructOf(
			arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
			arrow.Field{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
			arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
			arrow.Field{Name: "fb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 2}, Nullable: true}),
	}
	want, err = peer.DumpLines(ctx, t, filepath.Join(root, "nested.lance"), peer.DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schema, got = arrowLines(ctx, t, db, "SELECT * FROM nested")
	checkTypes(t, schema, nestedTypes)
	sameRows(t, "nested (batches passed through)", got, want)
	schema, got = arrowLines(ctx, t, db, "SELECT * FROM nested ORDER BY id DESC")
	checkTypes(t, schema, nestedTypes)
	sameRows(t, "nested (rebuilt from rows)", got, want)
}

func checkTypes(t *testing.T, schema *arrow.Schema, want map[string]arrow.DataType) {
	t.Helper()
	for name, dt := range want {
		fs, ok := schema.FieldsByName(name)
		if !ok {
			t.Fatalf("no column %s in %s", name, schema)
		}
		if !arrow.TypeEqual(fs[0].Type, dt) {
			t.Errorf("column %s is %s through Arrow, stored %s", name, fs[0].Type, dt)
		}
	}
}
