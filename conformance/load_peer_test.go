package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestBulkLoadPeer: tables filled by LOAD DATA (AUTO_INCREMENT ids, @variables and SET,
// REPLACE) and by IMPORT INTO (a glob of CSV files; a Parquet file of several row groups)
// read in the peer with the rows lancecat reads, and each load is one Append version
// (REPLACE: one Update).
func TestBulkLoadPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, files := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(files, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("lancecat", root+"?load_data_dir="+files)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db,
		"CREATE TABLE ld (id BIGINT AUTO_INCREMENT, name VARCHAR(20) UNIQUE, n BIGINT, PRIMARY KEY (id))",
		"CREATE TABLE ic (id BIGINT, name VARCHAR(20), n BIGINT)",
		"CREATE TABLE ip (id BIGINT, name VARCHAR(20), n BIGINT)")
	write("ld.csv", "a,1,x\nb,2,y\nc,\\N,z\n")
	mustExec(ctx, t, db, `LOAD DATA INFILE 'ld.csv' INTO TABLE ld FIELDS TERMINATED BY ',' (name, @n, @skip) SET n = @n * 100`)
	write("ld2.csv", "2,B,7\n")
	mustExec(ctx, t, db, `LOAD DATA INFILE 'ld2.csv' REPLACE INTO TABLE ld FIELDS TERMINATED BY ','`)
	write("ic1.csv", "id,name,n\n1,\"p, q\",10\n")
	write("ic2.csv", "id,name,n\n2,r,\\N\n3,s,30\n")
	mustExec(ctx, t, db, `IMPORT INTO ic FROM 'ic*.csv' WITH skip_rows=1`)
	writeTestParquet(t, filepath.Join(files, "ip.parquet"), 5)
	mustExec(ctx, t, db, `IMPORT INTO ip FROM 'ip.parquet' FORMAT 'parquet'`)

	for table, wantOps := range map[string][]string{"ld": {"Append", "Update"}, "ic": {"Append"}, "ip": {"Append"}} {
		_, ops := sqlVersions(ctx, t, db, table)
		var data []string
		for _, op := range ops[1:] {
			// UpdateConfig: AUTO_INCREMENT reservations; CreateIndex: the UNIQUE column's, at CREATE TABLE.
			if op != "UpdateConfig" && op != "CreateIndex" {
				data = append(data, op)
			}
		}
		if !reflect.DeepEqual(data, wantOps) {
			t.Errorf("%s versions %v, want data versions %v", table, ops, wantOps)
		}
		peerReadsIDNameN(ctx, t, db, root, table)
	}
}

// peerReadsIDNameN checks the peer reads table's (id, name, n) rows as
// lancecat does.
func peerReadsIDNameN(ctx context.Context, t *testing.T, db *sql.DB, root, table string) {
	t.Helper()
	var want []string
	rows, err := db.QueryContext(ctx, "SELECT id, name, n FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, n sql.NullInt64
		var name sql.NullString
		if err := rows.Scan(&id, &name, &n); err != nil {
			t.Fatal(err)
		}
		want = append(want, cellText(id.Valid, id.Int64, name, n))
	}
	rows.Close()
	var q struct {
		Rows []struct {
			ID   *json.Number `json:"id"`
			Name *string      `json:"name"`
			N    *json.Number `json:"n"`
		} `json:"rows"`
	}
	if err := peer.Op(ctx, t, "query", map[string]any{"uri": root, "name": table, "columns": []string{"id", "name", "n"}}, &q); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range q.Rows {
		id, n := sql.NullInt64{}, sql.NullInt64{}
		if r.ID != nil {
			v, _ := r.ID.Int64()
			id = sql.NullInt64{Int64: v, Valid: true}
		}
		if r.N != nil {
			v, _ := r.N.Int64()
			n = sql.NullInt64{Int64: v, Valid: true}
		}
		name := sql.NullString{}
		if r.Name != nil {
			name = sql.NullString{String: *r.Name, Valid: true}
		}
		got = append(got, cellText(id.Valid, id.Int64, name, n))
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: peer reads %q, lancecat %q", table, got, want)
	}
}

func cellText(idValid bool, id int64, name sql.NullString, n sql.NullInt64) string {
	s := "NULL"
	if idValid {
		s = fmt.Sprint(id)
	}
	if name.Valid {
		s += "|" + name.String
	} else {
		s += "|NULL"
	}
	if n.Valid {
		return s + "|" + fmt.Sprint(n.Int64)
	}
	return s + "|NULL"
}

// TestLoadRunsPeer: LOAD DATA of thousands of records, appended in runs a
// column at a time (planner/loadrun.go), and IMPORT INTO of a Parquet file
// whose string and integer columns are copied a slice at a time, write
// tables the peer reads as lancecat does.
func TestLoadRunsPeer(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, files := t.TempDir(), t.TempDir()
	var csv strings.Builder
	for i := 1; i <= 5000; i++ {
		switch {
		case i%7 == 3:
			fmt.Fprintf(&csv, "%d,\\N,\\N\n", i)
		case i%11 == 0:
			fmt.Fprintf(&csv, "%d,\"q, %d\",%d\n", i, i%97, -i*1000)
		default:
			fmt.Fprintf(&csv, "%d,name %d,%d\n", i, i%101, i*3)
		}
	}
	if err := os.WriteFile(filepath.Join(files, "runs.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTestParquet(t, filepath.Join(files, "runs.parquet"), 3000)
	db, err := sql.Open("lancecat", root+"?load_data_dir="+files)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db,
		"CREATE TABLE lr (id BIGINT NOT NULL, name VARCHAR(20), n BIGINT)",
		"CREATE TABLE ir (id INT NOT NULL, name VARCHAR(20), n BIGINT)",
		`LOAD DATA INFILE 'runs.csv' INTO TABLE lr FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"'`,
		`IMPORT INTO ir FROM 'runs.parquet' FORMAT 'parquet'`)
	for table, rows := range map[string]int64{"lr": 5000, "ir": 3000} {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil || n != rows {
			t.Fatalf("%s: %d rows (%v), want %d", table, n, err, rows)
		}
		peerReadsIDNameN(ctx, t, db, root, table)
	}
}

// writeTestParquet writes rows (id INT32, name, n INT64 with NULLs) in row groups of two.
func writeTestParquet(t *testing.T, path string, rows int) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int32Builder).Append(int32(i + 1))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", i+1))
		if i%2 == 1 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(int64(i * 1000))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(2)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
