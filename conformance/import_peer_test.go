package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/storage"
)

// TestImportFromObjectStorePeer: a catalog on the S3 emulator IMPORTs INTO a
// table from CSV objects of another prefix (allowed by import_sources, read
// with the catalog's storage options), and the reference reads the rows
// lancecat reads.
func TestImportFromObjectStorePeer(t *testing.T) {
	peer.Require(t)
	srv := testservers.S3(t)
	ctx := context.Background()
	n := objstorePrefix.Add(1)
	src := fmt.Sprintf("import-src-%d", n)
	st, err := storage.Open(ctx, srv.URI(src), storage.Options{StorageOptions: srv.StorageOptions})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, text := range map[string]string{"a.csv": "1,one\n2,\\N\n", "b.csv": "3,\"three, quoted\"\n"} {
		if err := st.Put(ctx, name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	catPrefix := fmt.Sprintf("import-cat-%d", n)
	db, err := sql.Open("lancecat", objstoreDSN(srv, catPrefix)+"&import_sources="+url.QueryEscape(srv.URI(src)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(ctx, t, db, "CREATE SCHEMA analytics", "CREATE TABLE analytics.ev (id BIGINT NOT NULL, name TEXT)",
		"IMPORT INTO analytics.ev FROM '"+srv.URI(src)+"/*.csv'")
	want := []string{"1:one", "2:NULL", "3:three, quoted"}
	if got := idNameRows(t, db, "analytics.ev"); !slices.Equal(got, want) {
		t.Fatalf("lancecat reads %v, want %v", got, want)
	}
	run := peerOnServer(t, srv)
	if got := peerIDNameRows(t, run(objstoreQuery(srv.URI(catPrefix), "analytics", "ev"))[0]); !slices.Equal(got, want) {
		t.Fatalf("peer reads %v, want %v", got, want)
	}
}
