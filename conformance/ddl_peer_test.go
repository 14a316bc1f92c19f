package conformance

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
	_ "github.com/lancecat/lancecat/driver"
)

// This file is the conformance test of the SQL DDL front end (issue 5, "Done means"): a DDL
// script runs through database/sql, and the reference peer must see exactly what it declares
// (namespaces, properties, tables, Arrow schemas of every mapped SQL type, primary-key and
// comment metadata) and be able to append rows; then the peer creates a catalog and lancecat's
// SHOW / DESCRIBE / SHOW CREATE TABLE / information_schema must show it faithfully.
//
// The peer side is conformance/testdata/ddl_peer.mjs, which batches many peer operations into
// one Node process.

// peerScript runs one command of testdata/ddl_peer.mjs and decodes its JSON output into out.
func peerScript(ctx context.Context, t *testing.T, cmd string, args any, out any) {
	t.Helper()
	argJSON, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := peer.Run(ctx, t, "../testdata/ddl_peer.mjs", cmd, string(argJSON))
	if err != nil {
		t.Fatalf("peer %s: %v\n%s", cmd, err, stdout)
	}
	if out == nil {
		return
	}
	dec := json.NewDecoder(strings.NewReader(string(stdout)))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("peer %s: decode %q: %v", cmd, stdout, err)
	}
}

// Peer snapshot of a catalog (ddl_peer.mjs snapshot).
type peerField struct {
	Name     string            `json:"name"`
	Type     any               `json:"type"`
	Nullable bool              `json:"nullable"`
	Metadata map[string]string `json:"metadata"`
}

type peerSchema struct {
	Fields   []peerField       `json:"fields"`
	Metadata map[string]string `json:"metadata"`
}

type peerSnapshot struct {
	Namespaces []struct {
		Path       []string          `json:"path"`
		Properties map[string]string `json:"properties"`
	} `json:"namespaces"`
	Tables []struct {
		Namespace []string    `json:"namespace"`
		Name      string      `json:"name"`
		Schema    peerSchema  `json:"schema"`
		Rows      json.Number `json:"rows"`
		OpenError string      `json:"openError"`
	} `json:"tables"`
	Manifest []struct {
		ObjectID   string  `json:"object_id"`
		ObjectType string  `json:"object_type"`
		Location   *string `json:"location"`
		Metadata   *string `json:"metadata"`
	} `json:"manifest"`
}

func (s *peerSnapshot) table(t *testing.T, ns []string, name string) (peerSchema, int64) {
	t.Helper()
	for _, tb := range s.Tables {
		if reflect.DeepEqual(nonNil(tb.Namespace), nonNil(ns)) && tb.Name == name {
			if tb.OpenError != "" {
				t.Fatalf("peer cannot open %v.%s: %s", ns, name, tb.OpenError)
			}
			n, _ := tb.Rows.Int64()
			return tb.Schema, n
		}
	}
	t.Fatalf("peer does not list table %v.%s", ns, name)
	return peerSchema{}, 0
}

func (s *peerSnapshot) tableNames() []string {
	var out []string
	for _, tb := range s.Tables {
		out = append(out, strings.Join(append(nonNil(tb.Namespace), tb.Name), "."))
	}
	sort.Strings(out)
	return out
}

func (s *peerSnapshot) manifestMetadata(t *testing.T, objectID string) map[string]string {
	t.Helper()
	for _, r := range s.Manifest {
		if r.ObjectID == objectID {
			m := map[string]string{}
			if r.Metadata != nil && *r.Metadata != "" {
				if err := json.Unmarshal([]byte(*r.Metadata), &m); err != nil {
					t.Fatalf("__manifest metadata of %s: %v", objectID, err)
				}
			}
			return m
		}
	}
	t.Fatalf("no __manifest row %s", objectID)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// typeText renders a peer type (string or nested object) as compact JSON for comparison.
func typeText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const pkKey = "lance-schema:unenforced-primary-key:position"

// sqlTypeCase is one mapped SQL type and the Arrow type the peer must see (JSONL.md notation,
// rendered as compact JSON).
type sqlTypeCase struct {
	col, sql, peerType string
	// sample is a JSONL.md value the peer appends (empty: the peer cannot build rows of the
	// type, and the column is left out of the append table).
	sample string
}

var vectorType3 = `{"fixed_size_list":{"name":"item","nullable":true,"type":"float32"},"size":3}`
var vectorType8 = `{"fixed_size_list":{"name":"item","nullable":true,"type":"float32"},"size":8}`

var sqlTypeCases = []sqlTypeCase{
	{"c_bool", "BOOLEAN", `"bool"`, `true`},
	{"c_i8", "TINYINT", `"int8"`, `-128`},
	{"c_i16", "SMALLINT", `"int16"`, `-32768`},
	{"c_i32", "INT", `"int32"`, `-2147483648`},
	{"c_i64", "BIGINT", `"int64"`, `-9223372036854775808`},
	{"c_u8", "TINYINT UNSIGNED", `"uint8"`, `255`},
	{"c_u16", "SMALLINT UNSIGNED", `"uint16"`, `65535`},
	{"c_u32", "INT UNSIGNED", `"uint32"`, `4294967295`},
	{"c_u64", "BIGINT UNSIGNED", `"uint64"`, `18446744073709551615`},
	{"c_f32", "FLOAT", `"float32"`, `1.5`},
	{"c_f64", "DOUBLE", `"float64"`, `-2.25`},
	{"c_dec", "DECIMAL(10,2)", `"decimal128(10,2)"`, `"-12.34"`},
	{"c_dec38", "DECIMAL(38,10)", `"decimal128(38,10)"`, `"1234567890123456789012345678.0123456789"`},
	{"c_char", "CHAR(3)", `"utf8"`, `"abc"`},
	{"c_varchar", "VARCHAR(255)", `"utf8"`, `"varchar ✓"`},
	{"c_text", "TEXT", `"utf8"`, `"it's text"`},
	{"c_binary", "BINARY(4)", `"binary"`, `"AAEC/w=="`},
	{"c_varbinary", "VARBINARY(16)", `"binary"`, `""`},
	{"c_blob", "BLOB", `"binary"`, `"aGVsbG8="`},
	{"c_date", "DATE", `"date32"`, `"2024-02-29"`},
	{"c_time", "TIME", `"time64[us]"`, ``},
	{"c_time9", "TIME(9)", `"time64[ns]"`, ``},
	{"c_dt", "DATETIME", `"timestamp[s]"`, `"2024-01-02T03:04:05.000000000"`},
	{"c_dt3", "DATETIME(3)", `"timestamp[ms]"`, `"2024-01-02T03:04:05.123000000"`},
	{"c_dt6", "DATETIME(6)", `"timestamp[us]"`, `"2024-01-02T03:04:05.123456000"`},
	{"c_dt9", "DATETIME(9)", `"timestamp[ns]"`, `"2024-01-02T03:04:05.123456789"`},
	{"c_ts", "TIMESTAMP", `"timestamp[s, tz=UTC]"`, `"2024-01-02T03:04:05.000000000Z"`},
	{"c_ts3", "TIMESTAMP(3)", `"timestamp[ms, tz=UTC]"`, `"2024-01-02T03:04:05.123000000Z"`},
	{"c_ts6", "TIMESTAMP(6)", `"timestamp[us, tz=UTC]"`, `"2024-01-02T03:04:05.123456000Z"`},
	{"c_json", "JSON", `"large_binary"`, ``},
	{"c_vec", "VECTOR(3)", vectorType3, `[0.5,-1,2]`},
	{"c_vecf", "VECTOR<FLOAT>(8)", vectorType8, `[1,2,3,4,5,6,7,8]`},
}

// TestDDLScriptSeenByPeer runs a DDL script through database/sql and checks the peer's view of
// the resulting catalog, then has the peer append rows to the tables lancecat created.
func TestDDLScriptSeenByPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	var allCols, appendCols []string
	for _, c := range sqlTypeCases {
		allCols = append(allCols, fmt.Sprintf("%s %s COMMENT 'column %s'", c.col, c.sql, c.col))
		if c.sample != "" {
			appendCols = append(appendCols, c.col+" "+c.sql)
		}
	}
	exec(`CREATE SCHEMA prod COMMENT 'production data' WITH PROPERTIES (owner = 'data-eng', tier = 'gold')`)
	exec(`CREATE SCHEMA prod.ml WITH PROPERTIES (team = 'ml')`)
	exec(`CREATE DATABASE prod.ml.features`)
	exec(`CREATE NAMESPACE staging`)
	exec(`CREATE TABLE prod.ml.all_types (id BIGINT NOT NULL COMMENT 'row id', ` + strings.Join(allCols, ", ") +
		`, PRIMARY KEY (id, c_varchar)) COMMENT 'every mapped type'`)
	exec(`CREATE TABLE prod.appendable (id BIGINT NOT NULL, ` + strings.Join(appendCols, ", ") + `, PRIMARY KEY (id))`)
	exec(`CREATE TABLE root_t (x INT)`)
	exec(`CREATE TABLE prod.evolving (id BIGINT NOT NULL, a INT, b TEXT COMMENT 'bee', PRIMARY KEY (id))`)
	exec(`ALTER TABLE prod.evolving ADD COLUMN c DOUBLE COMMENT 'added later', DROP COLUMN a, RENAME COLUMN b TO b2`)
	exec(`CREATE TABLE staging.old_name (x INT)`)
	exec(`RENAME TABLE staging.old_name TO prod.renamed`)
	exec(`CREATE TABLE staging.doomed (x INT)`)
	exec(`CREATE TABLE staging.doomed2 (x INT)`)
	exec(`DROP TABLE staging.doomed, staging.doomed2`)
	exec(`CALL declare_table('staging.declared')`)
	exec(`CREATE TABLE staging.moving (y VARCHAR(10))`)
	var movedName, movedURI string
	if err := db.QueryRowContext(ctx, `CALL deregister_table('staging.moving')`).Scan(&movedName, &movedURI); err != nil {
		t.Fatal(err)
	}
	loc := movedURI[strings.LastIndex(movedURI, "/")+1:]
	exec(`CALL register_table('prod.registered', ?)`, loc)

	var snap peerSnapshot
	peerScript(ctx, t, "snapshot", map[string]any{"uri": root}, &snap)

	// Namespaces and their properties (COMMENT is the "comment" property).
	gotNS := map[string]map[string]string{}
	for _, n := range snap.Namespaces {
		gotNS[strings.Join(n.Path, ".")] = n.Properties
	}
	wantNS := map[string]map[string]string{
		"prod":             {"comment": "production data", "owner": "data-eng", "tier": "gold"},
		"prod.ml":          {"team": "ml"},
		"prod.ml.features": {},
		"staging":          {},
	}
	for k, v := range wantNS {
		if len(v) == 0 && len(gotNS[k]) == 0 {
			if _, ok := gotNS[k]; !ok {
				t.Errorf("peer does not list namespace %s", k)
			}
			continue
		}
		if !reflect.DeepEqual(gotNS[k], v) {
			t.Errorf("namespace %s: peer sees properties %v, want %v", k, gotNS[k], v)
		}
	}
	if len(gotNS) != len(wantNS) {
		t.Errorf("peer namespaces %v, want %v", gotNS, wantNS)
	}

	// Tables: created, renamed across namespaces, dropped, registered, deregistered. The peer's
	// tableNames lists a declared table too (it has a __manifest entry).
	wantTables := []string{"prod.appendable", "prod.evolving", "prod.ml.all_types", "prod.registered", "prod.renamed", "root_t"}
	var gotTables []string
	declaredListed := false
	for _, n := range snap.tableNames() {
		if n == "staging.declared" {
			declaredListed = true
			continue
		}
		gotTables = append(gotTables, n)
	}
	if !reflect.DeepEqual(gotTables, wantTables) {
		t.Errorf("peer tables %v, want %v", snap.tableNames(), wantTables)
	}
	if !declaredListed {
		t.Errorf("peer does not list the declared table staging.declared")
	}
	declaredRow := false
	for _, r := range snap.Manifest {
		if r.ObjectID == "staging$declared" && r.ObjectType == "table" {
			declaredRow = true
		}
		if strings.Contains(r.ObjectID, "doomed") || r.ObjectID == "staging$old_name" || r.ObjectID == "staging$moving" {
			t.Errorf("__manifest still holds %s", r.ObjectID)
		}
	}
	if !declaredRow {
		t.Errorf("declared table has no __manifest entry the peer reads")
	}

	// Schemas: every mapped type, nullability, primary key and comment metadata.
	schema, rows := snap.table(t, []string{"prod", "ml"}, "all_types")
	if rows != 0 {
		t.Errorf("all_types has %d rows for the peer", rows)
	}
	if len(schema.Fields) != len(sqlTypeCases)+1 {
		t.Fatalf("peer sees %d columns of all_types, want %d: %+v", len(schema.Fields), len(sqlTypeCases)+1, schema.Fields)
	}
	checkField := func(f peerField, name, typ string, nullable bool, md map[string]string) {
		t.Helper()
		if f.Name != name || typeText(f.Type) != typ || f.Nullable != nullable || !reflect.DeepEqual(nonNilMap(f.Metadata), md) {
			t.Errorf("peer field %s: got name %q type %s nullable %v metadata %v; want type %s nullable %v metadata %v",
				name, f.Name, typeText(f.Type), f.Nullable, f.Metadata, typ, nullable, md)
		}
	}
	checkField(schema.Fields[0], "id", `"int64"`, false, map[string]string{"comment": "row id", pkKey: "0"})
	for i, c := range sqlTypeCases {
		md := map[string]string{"comment": "column " + c.col}
		nullable := true
		switch c.col {
		case "c_varchar":
			md[pkKey] = "1"
			md["lancecat:char_length"] = "255" // the declared size, read back as VARCHAR(255)
			nullable = false                   // primary key columns are NOT NULL
		case "c_char":
			md["lancecat:char_length"] = "3"
		case "c_json":
			md["ARROW:extension:name"] = "lance.json"
		}
		checkField(schema.Fields[i+1], c.col, c.peerType, nullable, md)
	}
	if got := snap.manifestMetadata(t, "prod$ml$all_types"); got["comment"] != "every mapped type" {
		t.Errorf("table comment as the peer reads the __manifest entry: %v", got)
	}

	// ALTER TABLE add/drop/rename column, as the peer sees the evolved schema.
	schema, _ = snap.table(t, []string{"prod"}, "evolving")
	if len(schema.Fields) != 3 {
		t.Fatalf("evolving: %+v", schema.Fields)
	}
	checkField(schema.Fields[0], "id", `"int64"`, false, map[string]string{pkKey: "0"})
	checkField(schema.Fields[1], "b2", `"utf8"`, true, map[string]string{"comment": "bee"})
	checkField(schema.Fields[2], "c", `"float64"`, true, map[string]string{"comment": "added later"})
	schema, _ = snap.table(t, []string{"prod"}, "registered")
	if len(schema.Fields) != 1 || schema.Fields[0].Name != "y" {
		t.Errorf("registered table schema %+v", schema.Fields)
	}

	// The peer appends to tables lancecat created: every type it can build rows of.
	row := map[string]json.RawMessage{"id": json.RawMessage("7")}
	for _, c := range sqlTypeCases {
		if c.sample != "" {
			row[c.col] = json.RawMessage(c.sample)
		}
	}
	var added struct {
		Tables []struct {
			Name string      `json:"name"`
			Rows json.Number `json:"rows"`
		} `json:"tables"`
	}
	peerScript(ctx, t, "add", map[string]any{"uri": root, "tables": []any{
		map[string]any{"namespace": []string{"prod"}, "name": "appendable", "rows": []any{row, map[string]any{"id": 8}}},
		map[string]any{"namespace": []string{"prod"}, "name": "evolving", "rows": []any{map[string]any{"id": 1, "b2": "x", "c": 0.5}}},
		map[string]any{"name": "root_t", "rows": []any{map[string]any{"x": 1}, map[string]any{"x": 2}}},
	}}, &added)
	for i, want := range []string{"2", "1", "2"} {
		if got := added.Tables[i].Rows.String(); got != want {
			t.Errorf("peer append to %s: %s rows, want %s", added.Tables[i].Name, got, want)
		}
	}
	// And lancecat sees the peer's rows.
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT TABLE_ROWS FROM information_schema.tables WHERE TABLE_SCHEMA = 'prod' AND TABLE_NAME = 'appendable'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("lancecat counts %d rows in prod.appendable after the peer's append (err %v)", n, err)
	}
	// lancecat appends a row too; then SELECT and the peer's query read the same three rows.
	exec(`INSERT INTO prod.appendable (id, c_text, c_dec, c_dt6, c_vec) VALUES (9, 'from lancecat', 1.5, '2024-06-01 12:00:00.25', '[1, 2, 3]')`)
	var appendLoc string
	if err := db.QueryRowContext(ctx, `SELECT LOCATION FROM information_schema.tables WHERE TABLE_SCHEMA = 'prod' AND TABLE_NAME = 'appendable'`).Scan(&appendLoc); err != nil {
		t.Fatal(err)
	}
	compareSelectWithPeer(ctx, t, db, strings.TrimPrefix(appendLoc, "file://"), []peerQuery{
		{SQL: "SELECT * FROM prod.appendable"},
		{SQL: "SELECT * FROM prod.appendable WHERE c_i8 IS NULL", Where: "c_i8 IS NULL"},
	})
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// peerTypesSchema is a table the peer creates with types SQL can spell and types it cannot
// (struct, list, large_utf8, float16, fixed_size_binary), in the JSONL.md schema notation.
var peerTypesSchema = map[string]any{"fields": []any{
	map[string]any{"name": "id", "type": "int64", "nullable": false},
	map[string]any{"name": "amount", "type": "decimal128(12,2)"},
	map[string]any{"name": "note", "type": "utf8", "metadata": map[string]string{"comment": "free text"}},
	map[string]any{"name": "tags", "type": map[string]any{"list": map[string]any{"name": "item", "type": "utf8"}}},
	map[string]any{"name": "loc", "type": map[string]any{"struct": []any{
		map[string]any{"name": "lat", "type": "float64"},
		map[string]any{"name": "lon", "type": "float64"}}}},
	map[string]any{"name": "emb", "type": map[string]any{"fixed_size_list": map[string]any{"name": "item", "type": "float32"}, "size": 4}},
	map[string]any{"name": "ts", "type": "timestamp[us, tz=UTC]"},
	map[string]any{"name": "day", "type": "date32"},
	map[string]any{"name": "big", "type": "large_utf8"},
	map[string]any{"name": "h", "type": "float16"},
	map[string]any{"name": "raw", "type": "fixed_size_binary[2]"},
	map[string]any{"name": "flag", "type": "bool"},
	map[string]any{"name": "u", "type": "uint32"},
}}

// peerTypesRows are the rows the peer writes into peerTypesSchema tables.
var peerTypesRows = []any{
	map[string]any{"id": 1, "amount": "12.50", "note": "first", "tags": []any{"a", "b"}, "loc": map[string]any{"lat": 52.5, "lon": 13.4},
		"emb": []any{1, 2, 3, 4}, "ts": "2024-05-06T07:08:09.123456000Z", "day": "2024-05-06", "big": "large", "h": 0.5, "raw": "AAE=", "flag": true, "u": 4000000000},
	map[string]any{"id": 2, "amount": "-0.01", "note": nil, "tags": []any{}, "loc": nil, "emb": nil, "ts": nil, "day": nil, "big": nil, "h": nil, "raw": nil, "flag": false, "u": 0},
	map[string]any{"id": 3, "amount": nil, "note": "third", "tags": nil, "loc": map[string]any{"lat": nil, "lon": -1}, "emb": []any{0.25, 0, -1, 1e10},
		"ts": "1969-12-31T23:59:59.999999000Z", "day": "1900-01-01", "big": "", "h": -2, "raw": "//8=", "flag": nil, "u": nil},
}

// TestPeerCatalogSeenBySQL: the peer creates namespaces and tables (with data); lancecat's SHOW
// SCHEMAS, SHOW TABLES, DESCRIBE, SHOW CREATE TABLE and information_schema show them.
func TestPeerCatalogSeenBySQL(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := t.TempDir()
	peerScript(ctx, t, "create", map[string]any{
		"uri": root,
		"namespaces": []any{
			map[string]any{"path": []string{"sales"}, "properties": map[string]string{"region": "eu", "comment": "sales data"}},
			map[string]any{"path": []string{"sales", "archive"}, "properties": map[string]string{}},
			map[string]any{"path": []string{"q'uote"}, "properties": map[string]string{}},
		},
		"tables": []any{
			map[string]any{"namespace": []string{"sales"}, "name": "orders", "schema": peerTypesSchema, "rows": peerTypesRows},
			map[string]any{"name": "events", "schema": map[string]any{"fields": []any{map[string]any{"name": "e", "type": "utf8"}}}},
			map[string]any{"namespace": []string{"sales", "archive"}, "name": "old", "schema": map[string]any{"fields": []any{map[string]any{"name": "k", "type": "int32", "nullable": false}}}},
		},
	}, nil)

	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	query := func(q string) [][]string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = v.String
				if !v.Valid {
					row[i] = "NULL"
				}
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	expect := func(q string, want [][]string) {
		t.Helper()
		if got := query(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}

	expect(`SHOW SCHEMAS`, [][]string{{"q'uote"}, {"sales"}})
	expect(`SHOW SCHEMAS FROM sales`, [][]string{{"archive"}})
	expect(`SHOW TABLES`, [][]string{{"events"}})
	expect(`SHOW TABLES FROM sales`, [][]string{{"orders"}})
	expect(`SHOW FULL TABLES FROM sales.archive`, [][]string{{"old", "BASE TABLE"}})
	expect(`SHOW TABLES FROM `+"`q'uote`", nil)
	expect(`SHOW CREATE SCHEMA sales`, [][]string{{"sales", "CREATE SCHEMA sales COMMENT 'sales data' WITH PROPERTIES ('region' = 'eu')"}})
	// The catalog root is a schema named $root (DATABASE() there), as MySQL clients expect
	// every table to have one.
	expect(`SELECT SCHEMA_NAME, SCHEMA_COMMENT, PROPERTIES FROM information_schema.schemata ORDER BY SCHEMA_NAME`, [][]string{
		{"$root", "NULL", "NULL"},
		{"`q'uote`", "NULL", "NULL"},
		{"sales", "sales data", `{"comment":"sales data","region":"eu"}`},
		{"sales.archive", "NULL", "NULL"},
	})
	expect(`SHOW FULL COLUMNS FROM sales.orders`, [][]string{
		{"id", "BIGINT", "NO", "", "NULL", "", ""},
		{"amount", "DECIMAL(12,2)", "YES", "", "NULL", "", ""},
		{"note", "TEXT", "YES", "", "NULL", "", "free text"},
		{"tags", "LIST<TEXT>", "YES", "", "NULL", "", ""},
		{"loc", "STRUCT<lat DOUBLE, lon DOUBLE>", "YES", "", "NULL", "", ""},
		{"emb", "VECTOR(4)", "YES", "", "NULL", "", ""},
		{"ts", "TIMESTAMP(6)", "YES", "", "NULL", "", ""},
		{"day", "DATE", "YES", "", "NULL", "", ""},
		{"big", "LARGE_TEXT", "YES", "", "NULL", "", ""},
		{"h", "FLOAT16", "YES", "", "NULL", "", ""},
		{"raw", "FIXED_SIZE_BINARY(2)", "YES", "", "NULL", "", ""},
		{"flag", "BOOLEAN", "YES", "", "NULL", "", ""},
		{"u", "INT UNSIGNED", "YES", "", "NULL", "", ""},
	})
	expect(`SHOW CREATE TABLE sales.orders`, [][]string{{"orders", "CREATE TABLE sales.orders (\n" +
		"  id BIGINT NOT NULL,\n  amount DECIMAL(12,2),\n  note TEXT COMMENT 'free text',\n  tags LIST<TEXT>,\n" +
		"  loc STRUCT<lat DOUBLE, lon DOUBLE>,\n  emb VECTOR(4),\n  ts TIMESTAMP(6),\n  day DATE,\n  big LARGE_TEXT,\n" +
		"  h FLOAT16,\n  raw FIXED_SIZE_BINARY(2),\n  flag BOOLEAN,\n  u INT UNSIGNED\n)"}})
	expect(`SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS, DECLARED FROM information_schema.tables ORDER BY TABLE_SCHEMA, TABLE_NAME`, [][]string{
		{"$root", "events", "0", "NO"},
		{"sales", "orders", "3", "NO"},
		{"sales.archive", "old", "0", "NO"},
	})
	expect(`SELECT COLUMN_NAME, ARROW_TYPE, IS_NULLABLE FROM information_schema.columns WHERE TABLE_SCHEMA = 'sales' AND TABLE_NAME = 'orders' AND COLUMN_NAME IN ('tags', 'loc', 'big', 'h') ORDER BY ORDINAL_POSITION`, [][]string{
		{"tags", "list<item: utf8, nullable>", "YES"},
		{"loc", "struct<lat: float64 nullable, lon: float64 nullable>", "YES"},
		{"big", "large_utf8", "YES"},
		{"h", "float16", "YES"},
	})
	expect(`DESCRIBE sales.archive.old`, [][]string{{"k", "INT", "NO", "", "NULL", ""}})

	// The peer's rows read through SELECT as through the peer's own query API.
	compareSelectWithPeer(ctx, t, db, filepath.Join(root, query(`SELECT LOCATION FROM information_schema.tables WHERE TABLE_SCHEMA = 'sales' AND TABLE_NAME = 'orders'`)[0][0][len("file://"+root+"/"):]), []peerQuery{
		{SQL: "SELECT * FROM sales.orders"},
		{SQL: "SELECT * FROM sales.orders WHERE amount > 0 OR note IS NULL", Where: "amount > 0 OR note IS NULL"},
		{SQL: "SELECT * FROM sales.orders LIMIT 1 OFFSET 1", Limit: intp(1), Offset: intp(1)},
	})
}

// sqlJSONRows runs a query through database/sql and renders each row in the JSONL.md value
// convention (decoded, canonical), using the column's database type name to undo lancecat's Go
// value mapping: time.Time back to date/timestamp text, []byte to base64, JSON text of nested
// values parsed. float16Cols collects the FLOAT16 columns (compared at float16 precision).
func sqlJSONRows(ctx context.Context, t *testing.T, db *sql.DB, q string, float16Cols map[string]string) []map[string]any {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		row := map[string]any{}
		for i, ct := range types {
			dbType := ct.DatabaseTypeName()
			if dbType == "FLOAT16" || dbType == "FLOAT" || dbType == "VECTOR" {
				float16Cols[ct.Name()] = dbType
			}
			row[ct.Name()] = jsonlValue(t, vals[i], dbType)
		}
		out = append(out, canonRow(row, float16Cols))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func jsonlValue(t *testing.T, v any, dbType string) any {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		b, _ := json.Marshal(x)
		return json.Number(b)
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		switch dbType {
		case "DATE", "DATE64":
			return x.UTC().Format("2006-01-02")
		case "TIMESTAMP":
			return x.UTC().Format("2006-01-02T15:04:05.000000000") + "Z"
		}
		return x.UTC().Format("2006-01-02T15:04:05.000000000")
	case string:
		switch dbType {
		case "VECTOR", "LIST", "LARGE_LIST", "FIXED_SIZE_LIST", "STRUCT", "MAP":
			dec := json.NewDecoder(strings.NewReader(x))
			dec.UseNumber()
			var out any
			if err := dec.Decode(&out); err != nil {
				t.Fatalf("%s value %q is not JSON: %v", dbType, x, err)
			}
			return out
		}
		return x
	}
	t.Fatalf("unexpected value %T %v", v, v)
	return nil
}

// canonRow makes numbers comparable: integers stay exact text, other numbers are re-printed from
// their float64 value; FLOAT16 columns compare their float16 encoding and FLOAT and VECTOR
// columns their float32 encoding (two shortest decimals may round-trip to the same float32:
// -3337338.25 prints as .2 in Go and .3 in the peer).
func canonRow(row map[string]any, float16Cols map[string]string) map[string]any {
	var canon func(v any, kind string) any
	canon = func(v any, kind string) any {
		switch x := v.(type) {
		case json.Number:
			s := x.String()
			f, err := x.Float64()
			switch {
			case err != nil:
				return s
			case kind == "FLOAT16":
				return fmt.Sprintf("f16:%04x", nearestFloat16(f))
			case kind == "FLOAT" || kind == "VECTOR":
				return fmt.Sprintf("f32:%08x", math.Float32bits(float32(f)))
			case !strings.ContainsAny(s, ".eE"):
				return s
			}
			b, _ := json.Marshal(f)
			return string(b)
		case []any:
			for i := range x {
				x[i] = canon(x[i], kind)
			}
		case map[string]any:
			for k := range x {
				x[k] = canon(x[k], kind)
			}
		}
		return v
	}
	for k, v := range row {
		row[k] = canon(v, float16Cols[k])
	}
	return row
}

// peerQuery is one query of ddl_peer.mjs queries: the SQL lancecat runs and the same query in
// the peer's terms.
type peerQuery struct {
	SQL    string `json:"-"`
	Where  string `json:"where,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
	Offset *int   `json:"offset,omitempty"`
}

func intp(n int) *int { return &n }

// compareSelectWithPeer runs each query through lancecat's SELECT and through the peer's query API
// on the dataset at path, and compares the rows.
func compareSelectWithPeer(ctx context.Context, t *testing.T, db *sql.DB, path string, queries []peerQuery) {
	t.Helper()
	var res struct {
		Results [][]map[string]any `json:"results"`
	}
	peerScript(ctx, t, "queries", map[string]any{"path": path, "queries": queries}, &res)
	if len(res.Results) != len(queries) {
		t.Fatalf("peer answered %d queries of %d", len(res.Results), len(queries))
	}
	for i, q := range queries {
		f16 := map[string]string{}
		got := sqlJSONRows(ctx, t, db, q.SQL, f16)
		want := res.Results[i]
		for j := range want {
			want[j] = canonRow(want[j], f16)
		}
		if len(got) != len(want) {
			t.Errorf("%s: lancecat returns %d rows, the peer %d", q.SQL, len(got), len(want))
			continue
		}
		for j := range want {
			if !reflect.DeepEqual(got[j], want[j]) {
				for k := range want[j] {
					if !reflect.DeepEqual(got[j][k], want[j][k]) {
						t.Errorf("%s: row %d column %s: lancecat %#v, peer %#v", q.SQL, j, k, got[j][k], want[j][k])
					}
				}
				if len(got[j]) != len(want[j]) {
					t.Errorf("%s: row %d: lancecat columns %d, peer %d", q.SQL, j, len(got[j]), len(want[j]))
				}
				break
			}
		}
	}
}

// TestSelectPeerFixtures: peer-written datasets (every common type at 1000 rows; a dataset with
// deletion files) registered in a catalog with CALL register_table read the same through
// lancecat's SELECT as through the peer's own query API, with WHERE, LIMIT and OFFSET.
func TestSelectPeerFixtures(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, fx := range []struct {
		name    string
		queries []peerQuery
	}{
		{"types-1000", []peerQuery{
			{SQL: "SELECT * FROM t"},
			{SQL: "SELECT * FROM t WHERE id >= 500 AND utf8 IS NOT NULL AND int32 < 0", Where: "id >= 500 AND utf8 IS NOT NULL AND int32 < 0"},
			{SQL: "SELECT * FROM t WHERE low_card = 'green' OR id IN (1, 2, 999)", Where: "low_card = 'green' OR id IN (1, 2, 999)"},
			{SQL: "SELECT * FROM t WHERE utf8 LIKE 'a%' LIMIT 5", Where: "utf8 LIKE 'a%'", Limit: intp(5)},
			{SQL: "SELECT * FROM t LIMIT 7 OFFSET 300", Limit: intp(7), Offset: intp(300)},
			{SQL: "SELECT * FROM t WHERE id BETWEEN 10 AND 20 AND NOT bool", Where: "id BETWEEN 10 AND 20 AND NOT bool"},
		}},
		{"deleted-rows", []peerQuery{
			{SQL: "SELECT * FROM t"},
			{SQL: "SELECT * FROM t WHERE name IS NULL OR score > 50", Where: "name IS NULL OR score > 50"},
			{SQL: "SELECT * FROM t LIMIT 10 OFFSET 5", Limit: intp(10), Offset: intp(5)},
		}},
	} {
		t.Run(fx.name, func(t *testing.T) {
			dir := peer.FixtureCopy(t, fx.name)
			root := filepath.Dir(dir)
			db, err := sql.Open("lancecat", root)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, "CALL register_table('t', ?)", filepath.Base(dir)); err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
				t.Fatal(err)
			}
			compareSelectWithPeer(ctx, t, db, dir, fx.queries)
			rows := sqlJSONRows(ctx, t, db, "SELECT * FROM t", map[string]string{})
			if int64(len(rows)) != n || n == 0 {
				t.Errorf("COUNT(*) %d, SELECT * %d rows", n, len(rows))
			}
		})
	}
}

// decodeFloat16 decodes half-precision bits, subnormals included.
func decodeFloat16(bits uint16) float64 {
	sign := 1.0
	if bits&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(bits>>10)&0x1f, float64(bits&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// nearestFloat16 returns the bits of the float16 nearest to f (ties to even); float16.New
// truncates, which is not how the peer's shortest digits round-trip.
func nearestFloat16(f float64) uint16 {
	if math.IsNaN(f) {
		return 0x7e00
	}
	var sign uint16
	if math.Signbit(f) {
		sign = 0x8000
	}
	a := math.Abs(f)
	// Encodings of one sign are ordered like their magnitudes: binary search, then the neighbours.
	lo, hi := 0, 0x7c00 // 0x7c00 is +Inf
	for lo < hi {
		m := (lo + hi) / 2
		if decodeFloat16(uint16(m)) < a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	best, bestErr := uint16(lo), math.Inf(1)
	for _, c := range []int{lo - 1, lo} {
		if c < 0 || c > 0x7c00 {
			continue
		}
		e := math.Abs(decodeFloat16(uint16(c)) - a)
		if e < bestErr || (e == bestErr && c%2 == 0) {
			best, bestErr = uint16(c), e
		}
	}
	return sign | best
}
