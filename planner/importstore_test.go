package planner

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testservers.StopAll()
	os.Exit(code)
}

// TestImportIntoObjectStore: on each object-store emulator, IMPORT INTO
// reads the CSV objects a glob matches and a Parquet object (through ranged
// reads) into one Append version, opened with the session's storage
// options; URIs outside import_sources are refused, and no secret of the
// storage options appears in an error.
func TestImportIntoObjectStore(t *testing.T) {
	for _, start := range []func(testing.TB) *testservers.Server{testservers.S3, testservers.GCS, testservers.Azure} {
		srv := start(t)
		t.Run(srv.Name, func(t *testing.T) {
			ctx := context.Background()
			prefix := fmt.Sprintf("import-%s", t.Name())
			st, err := storage.Open(ctx, srv.URI(prefix), storage.Options{StorageOptions: srv.StorageOptions})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			put := func(p string, data []byte) {
				t.Helper()
				if err := st.Put(ctx, p, data); err != nil {
					t.Fatal(err)
				}
			}
			put("in/p1.csv", []byte("1,a\n2,\"b, c\"\n"))
			put("in/p2.csv", []byte("3,\\N\n"))
			put("in/skip.txt", []byte("not,csv,at all\n"))
			put("in/sub/p3.csv", []byte("9,nested\n"))
			put("other/p9.csv", []byte("99,secret data\n"))
			pq := filepath.Join(t.TempDir(), "x.parquet")
			writeParquet(t, pq, []any{int64(7), int64(8), int64(9)}, []any{"x", nil, "z"}, []any{0.5, 1.5, nil})
			data, err := os.ReadFile(pq)
			if err != nil {
				t.Fatal(err)
			}
			put("in/x.parquet", data)

			f := newDataFixture(t, Options{ImportSources: []string{srv.URI(prefix + "/in")}, StorageOptions: srv.StorageOptions})
			f.exec("CREATE TABLE t (id BIGINT, name VARCHAR(20))")
			base := srv.URI(prefix)
			res := f.exec(fmt.Sprintf(`IMPORT INTO t FROM '%s/in/p*.csv'`, base))
			if res.RowsAffected != 3 {
				t.Fatalf("IMPORT INTO: %d rows", res.RowsAffected)
			}
			if got := rowsText(f.rows("SELECT id, name FROM t ORDER BY id")); got != "1|a\n2|b, c\n3|NULL\n" {
				t.Fatalf("rows:\n%s", got)
			}
			versions := f.rows("SHOW VERSIONS FROM t")
			if len(versions) != 2 || versions[1][2] != "Append" {
				t.Fatalf("versions %v: want one Append after the CREATE", versions)
			}
			f.exec("CREATE TABLE q (id BIGINT, score DOUBLE)")
			if res := f.exec(fmt.Sprintf(`IMPORT INTO q FROM '%s/in/x.parquet' FORMAT 'parquet'`, base)); res.RowsAffected != 3 {
				t.Fatalf("IMPORT INTO parquet: %d rows", res.RowsAffected)
			}
			if got := rowsText(f.rows("SELECT id, score FROM q ORDER BY id")); got != "7|0.5\n8|1.5\n9|NULL\n" {
				t.Fatalf("parquet rows:\n%s", got)
			}

			f.exec("CREATE TABLE u (id BIGINT, name VARCHAR(20))")
			f.fails(fmt.Sprintf(`IMPORT INTO u FROM '%s/other/p9.csv'`, base), catalog.CodePermissionDenied, "not under any import_sources prefix")
			f.fails(fmt.Sprintf(`IMPORT INTO u FROM '%s/in/../other/p9.csv'`, base), catalog.CodeInvalidInput, "bad path")
			f.fails(fmt.Sprintf(`IMPORT INTO u FROM '%s/inside/p9.csv'`, base), catalog.CodePermissionDenied, "not under any import_sources prefix")
			f.fails(fmt.Sprintf(`IMPORT INTO u FROM '%s/*/p9.csv'`, base), catalog.CodeUnsupported, "outside the last path part")
			f.fails(fmt.Sprintf(`IMPORT INTO u FROM '%s/in/none*.csv'`, base), catalog.CodeInvalidInput, "no object matches")
			_, err = f.try(fmt.Sprintf(`IMPORT INTO u FROM '%s/in/missing.csv'`, base))
			if c, _ := catalog.CodeOf(err); c != catalog.CodeInvalidInput || !strings.Contains(fmt.Sprint(err), "no object") {
				t.Fatalf("missing object: %v", err)
			}
			_, err = f.try(fmt.Sprintf(`IMPORT INTO u FROM '%s/in/p1.csv' FORMAT 'parquet'`, base))
			if c, _ := catalog.CodeOf(err); c != catalog.CodeInvalidInput {
				t.Fatalf("CSV read as Parquet: %v", err)
			}
			for k, v := range srv.StorageOptions {
				if storage.IsSecretOption(k) && len(v) > 3 && strings.Contains(err.Error(), v) {
					t.Fatalf("error shows secret option %s: %v", k, err)
				}
			}
			if n := len(f.rows("SELECT id FROM u")); n != 0 {
				t.Fatalf("failed imports left %d rows", n)
			}

			// Wrong secrets: the emulator's refusal never echoes them.
			wrong := map[string]string{}
			var secrets []string
			for k, v := range srv.StorageOptions {
				// Flags named like secrets (google_skip_signature) keep
				// their value: a non-boolean one fails before any request.
				if storage.IsSecretOption(k) && k != "google_service_account" && v != "true" && v != "false" {
					// base64, so that Azure's shared key decodes and
					// the request is made (and refused).
					v = base64.StdEncoding.EncodeToString([]byte("WrongSecret " + k))
					secrets = append(secrets, v)
				}
				wrong[k] = v
			}
			g := newDataFixture(t, Options{ImportSources: []string{srv.URI(prefix + "/in")}, StorageOptions: wrong})
			g.exec("CREATE TABLE t (id BIGINT, name VARCHAR(20))")
			_, err = g.try(fmt.Sprintf(`IMPORT INTO t FROM '%s/in/p*.csv'`, base))
			// fake-gcs-server checks no credentials.
			if srv.Name != "gs" && err == nil {
				t.Fatal("IMPORT INTO with wrong secrets succeeded")
			}
			for _, sec := range secrets {
				if err != nil && strings.Contains(err.Error(), sec) {
					t.Fatalf("error shows a secret: %v", err)
				}
			}
			t.Logf("wrong secrets: %v", err)
		})
	}
}

// TestImportIntoObjectStoreDisabled: without import_sources no URI is read,
// whatever the storage options.
func TestImportIntoObjectStoreDisabled(t *testing.T) {
	f := newDataFixture(t, Options{StorageOptions: map[string]string{"aws_access_key_id": "AKIA"}})
	f.exec("CREATE TABLE t (id BIGINT)")
	f.fails(`IMPORT INTO t FROM 's3://any/x.csv'`, catalog.CodePermissionDenied, "set the import_sources option")
	f = newDataFixture(t, Options{ImportSources: []string{"s3://b/data"}})
	f.exec("CREATE TABLE t (id BIGINT)")
	f.fails(`IMPORT INTO t FROM 's3://b/database/x.csv'`, catalog.CodePermissionDenied, "not under any import_sources prefix")
	f.fails(`IMPORT INTO t FROM 'gs://b/data/x.csv'`, catalog.CodePermissionDenied, "not under any import_sources prefix")
	f.fails(`IMPORT INTO t FROM 's3://key:pw@b/data/x.csv'`, catalog.CodeInvalidInput, "bad bucket name")
	f.fails(`IMPORT INTO t FROM 'http://b/data/x.csv'`, catalog.CodeInvalidInput, "only s3://")
}

// TestLoadProgress: LOAD DATA and IMPORT INTO call the WithLoadProgress
// callback with rows and bytes that grow, ending at the file's totals.
func TestLoadProgress(t *testing.T) {
	f, write := loadFixture(t)
	var text bytes.Buffer
	const rows = 3*progressEveryRows + 5
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&text, "%d,name%d\n", i, i)
	}
	write("big.csv", text.String())
	f.exec("CREATE TABLE t (id BIGINT, name VARCHAR(20)); CREATE TABLE u (id BIGINT, name VARCHAR(20))")
	for _, sql := range []string{
		`LOAD DATA INFILE 'big.csv' INTO TABLE t FIELDS TERMINATED BY ','`,
		`IMPORT INTO u FROM 'big.csv'`,
	} {
		var got []LoadProgress
		ctx := WithLoadProgress(context.Background(), func(p LoadProgress) { got = append(got, p) })
		st, err := sqlparse.ParseOne(sql)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if len(got) < 4 {
			t.Fatalf("%s: %d progress calls %v, want one per %d rows and a last", sql, len(got), got, progressEveryRows)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Rows < got[i-1].Rows || got[i].Bytes < got[i-1].Bytes || got[i].Rows == got[i-1].Rows && got[i].Bytes == got[i-1].Bytes {
				t.Fatalf("%s: progress does not grow: %v", sql, got)
			}
		}
		if last := got[len(got)-1]; last.Rows != rows || last.Bytes != int64(text.Len()) {
			t.Fatalf("%s: last progress %+v, want %d rows, %d bytes", sql, last, rows, text.Len())
		}
		if got[0].Bytes == 0 {
			t.Fatalf("%s: first progress read no bytes: %v", sql, got)
		}
	}
	// Without the callback nothing is tracked (and nothing fails).
	f.exec("CREATE TABLE w (id BIGINT, name VARCHAR(20))")
	f.exec(`LOAD DATA INFILE 'big.csv' INTO TABLE w FIELDS TERMINATED BY ','`)
}

// rangeLog is a store that records the largest ranged read.
type rangeLog struct {
	storage.Store
	max, reads int64
}

func (r *rangeLog) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	r.reads++
	r.max = max(r.max, n)
	return r.Store.ReadRange(ctx, p, off, n)
}

// TestParquetObjectRangedReads: a Parquet object whose one column chunk is
// several MiB is read through ranged reads of at most importParquetBuffer
// bytes (not whole chunks), and every row arrives.
func TestParquetObjectRangedReads(t *testing.T) {
	ctx := context.Background()
	const rows = 40000
	ids, names, scores := make([]any, rows), make([]any, rows), make([]any, rows)
	for i := range ids {
		ids[i], names[i], scores[i] = int64(i), fmt.Sprintf("%0100d", i), float64(i)
	}
	local := filepath.Join(t.TempDir(), "big.parquet")
	writeParquetGroups(t, local, ids, names, scores, rows)
	data, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := storage.Open(ctx, fmt.Sprintf("memory://import-ranged-%d", dataSeq.Add(1)), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.Put(ctx, "big.parquet", data); err != nil {
		t.Fatal(err)
	}
	log := &rangeLog{Store: mem}
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE t (id BIGINT, name VARCHAR(200))")
	spec := func() *loadSpec {
		_, ds, err := f.s.openTableData(ctx, []string{"t"})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ds.ArrowSchema()
		if err != nil {
			t.Fatal(err)
		}
		spec, err := f.s.newLoadSpec(sc, []sqlparse.LoadTarget{{Column: "id"}, {Column: "name"}}, nil, "IMPORT INTO")
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}()
	src, err := openParquetSource(ctx, &objectReader{ctx: ctx, st: log, path: "big.parquet", size: int64(len(data))}, "big.parquet", spec, []sqlparse.LoadTarget{{Column: "id"}, {Column: "name"}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	n := 0
	for {
		rec, err := src.next(ctx)
		if err != nil {
			break
		}
		if rec[0] != int64(n) {
			t.Fatalf("row %d: id %v", n, rec[0])
		}
		n++
	}
	if n != rows {
		t.Fatalf("read %d rows, want %d", n, rows)
	}
	if len(data) < 3*importParquetBuffer || log.max > importParquetBuffer {
		t.Fatalf("file of %d bytes read with ranges up to %d bytes (%d reads), want at most %d", len(data), log.max, log.reads, importParquetBuffer)
	}
	t.Logf("%d bytes of Parquet read in %d ranged reads of at most %d bytes", len(data), log.reads, log.max)
}
