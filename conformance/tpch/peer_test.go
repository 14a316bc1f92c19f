package tpch

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestTPCHOverPeerTables runs the 22 queries in lancecat over tables the
// reference LanceDB (conformance/peer) wrote from the generator's rows, with
// the spec's types as Arrow types (arrowSchema), and compares the answers
// with MariaDB's as TestTPCHMatchesMariaDB does. It runs at SF 0.01 unless
// LANCECAT_TPCH_PEER_SF says otherwise. Without the peer it skips, or fails
// under LANCECAT_REQUIRE_PEER=1 / CI=true (peer.Require).
func TestTPCHOverPeerTables(t *testing.T) {
	peer.Require(t)
	sf := 0.01
	if s := os.Getenv("LANCECAT_TPCH_PEER_SF"); s != "" {
		if _, err := fmt.Sscan(s, &sf); err != nil {
			t.Fatalf("LANCECAT_TPCH_PEER_SF: %v", err)
		}
	}
	againstMariaDB(t, sf, func(t *testing.T, ctx context.Context, dir string) *sql.DB {
		var spec []map[string]any
		for _, tb := range Tables {
			schema, err := arrowSchema(tb.DDL)
			if err != nil {
				t.Fatal(err)
			}
			spec = append(spec, map[string]any{"name": tb.Name, "file": Path(dir, tb.Name), "schema": schema})
		}
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		specFile := filepath.Join(t.TempDir(), "spec.json")
		if err := os.WriteFile(specFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cat := t.TempDir()
		start := time.Now()
		out, err := peer.Run(ctx, t, "tpch-load.mjs", cat, specFile)
		if err != nil {
			t.Fatalf("peer load: %v", err)
		}
		t.Logf("peer wrote %s in %v", strings.TrimSpace(string(out)), time.Since(start).Round(time.Millisecond))
		lc, err := sql.Open("lancecat", cat)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lc.Close() })
		lc.SetMaxOpenConns(1)
		checkTypes(t, ctx, lc)
		return lc
	})
}

var columnDef = regexp.MustCompile(`(\w+) (INT|BIGINT|DECIMAL\(15,2\)|DATE|CHAR\(\d+\)|VARCHAR\(\d+\))( NOT NULL)?`)

// arrowSchema is the peer's Arrow schema (arrowjson.mjs notation) for a
// table's DDL: DECIMAL(15,2) is decimal128(15,2), DATE date32, INT int32,
// BIGINT int64, CHAR and VARCHAR utf8.
func arrowSchema(ddl string) (map[string]any, error) {
	body := ddl[strings.Index(ddl, "(")+1:]
	if i := strings.Index(body, "PRIMARY KEY"); i >= 0 {
		body = body[:i]
	}
	var fields []map[string]any
	for _, m := range columnDef.FindAllStringSubmatch(body, -1) {
		typ := map[string]string{"INT": "int32", "BIGINT": "int64", "DATE": "date32", "DECIMAL(15,2)": "decimal128(15,2)"}[m[2]]
		if typ == "" {
			typ = "utf8"
		}
		fields = append(fields, map[string]any{"name": m[1], "type": typ, "nullable": m[3] == ""})
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("tpch: no columns in %q", ddl)
	}
	return map[string]any{"fields": fields}, nil
}

// checkTypes fails the test unless lancecat reads the peer's numeric and
// date columns with the DDL's SQL types (information_schema.COLUMNS).
func checkTypes(t *testing.T, ctx context.Context, lc *sql.DB) {
	t.Helper()
	want := map[string]string{"INT": "int", "BIGINT": "bigint", "DATE": "date", "DECIMAL(15,2)": "decimal"}
	for _, tb := range Tables {
		for _, m := range columnDef.FindAllStringSubmatch(tb.DDL, -1) {
			w, ok := want[m[2]]
			if !ok {
				continue
			}
			var got string
			err := lc.QueryRowContext(ctx, "SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = ? AND COLUMN_NAME = ?", tb.Name, m[1]).Scan(&got)
			if err != nil {
				t.Fatalf("%s.%s: %v", tb.Name, m[1], err)
			}
			if !strings.EqualFold(got, w) {
				t.Errorf("%s.%s: lancecat reads the peer's column as %s, want %s", tb.Name, m[1], got, w)
			}
		}
	}
}
