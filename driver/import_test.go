package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/storage"
)

// TestImportSourcesOption: import_sources=... with storage.* options lets a
// local catalog IMPORT INTO from the S3 emulator with those credentials;
// without the option, or outside its prefixes, the URI is refused, and a
// local catalog takes storage options only with import_sources.
func TestImportSourcesOption(t *testing.T) {
	srv := testservers.S3(t)
	t.Cleanup(testservers.StopAll)
	ctx := context.Background()
	st, err := storage.Open(ctx, srv.URI("drv-import"), storage.Options{StorageOptions: srv.StorageOptions})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Put(ctx, "data/a.csv", []byte("1,x\n2,y\n")); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"import_sources": {srv.URI("drv-import/data")}}
	for k, v := range srv.StorageOptions {
		q.Set("storage."+k, v)
	}
	dsn := t.TempDir() + "?" + q.Encode()
	if _, err := lancecat.ParseDSN(dsn); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "CREATE TABLE t (id BIGINT, name VARCHAR(5))")
	res, err := db.Exec("IMPORT INTO t FROM '" + srv.URI("drv-import/data/*.csv") + "'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("IMPORT INTO: %d rows", n)
	}
	var sum int64
	if err := db.QueryRow("SELECT SUM(id) FROM t").Scan(&sum); err != nil || sum != 3 {
		t.Fatalf("SUM(id) = %d, %v", sum, err)
	}
	mustExec(t, db, "CREATE TABLE u (id BIGINT, name VARCHAR(5))")
	_, err = db.Exec("IMPORT INTO u FROM '" + srv.URI("drv-import/a.csv") + "'")
	var ce *catalog.Error
	if !errors.As(err, &ce) || ce.Code != catalog.CodePermissionDenied || !strings.Contains(err.Error(), "import_sources") {
		t.Fatalf("outside import_sources: %v", err)
	}

	noSources := openDB(t, "")
	mustExec(t, noSources, "CREATE TABLE t (id BIGINT)")
	_, err = noSources.Exec("IMPORT INTO t FROM '" + srv.URI("drv-import/data/a.csv") + "'")
	if !errors.As(err, &ce) || ce.Code != catalog.CodePermissionDenied {
		t.Fatalf("without import_sources: %v", err)
	}
	for _, bad := range []string{"/tmp/x?storage.region=eu", "/tmp/x?import_sources=/etc", "/tmp/x?import_sources=http://h/x"} {
		if _, err := lancecat.NewConnector(mustParse(t, bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func mustParse(t *testing.T, dsn string) lancecat.Config {
	t.Helper()
	cfg, err := lancecat.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
