package clients

import (
	"context"
	"embed"
	"io/fs"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
)

//go:embed testdata/migrations/*.sql
var migrations embed.FS

// TestGoose: goose v3's provider with the MySQL dialect applies SQL
// migrations that create a schema and tables, insert rows, add and drop a
// column and a table; DownTo rolls back to version 1, Up applies again, and
// Status reports every migration applied. The peer checks the catalog and
// rows after each step, and goose's own version table. goose runs each
// migration in a transaction: catalog changes are committed by COMMIT,
// INSERT/DELETE and ALTER TABLE at once, and the INSERT of version 0 into
// the version table created in the same transaction at COMMIT.
func TestGoose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, root := openCatalog(t)
	fsys, err := fs.Sub(migrations, "testdata/migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectMySQL, db, fsys)
	if err != nil {
		t.Fatalf("NewProvider: %v", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if len(res) != 3 {
		t.Errorf("Up applied %d migrations, want 3", len(res))
	}
	if got := peerTables(ctx, t, root, []string{"shop"}); !reflect.DeepEqual(got, []string{"audit", "orders"}) {
		t.Errorf("after Up the peer lists shop tables %v, want [audit orders]", got)
	}
	if _, err := p.DownTo(ctx, 1); err != nil {
		t.Fatalf("DownTo 1: %v", err)
	}
	if got := peerTables(ctx, t, root, []string{"shop"}); !reflect.DeepEqual(got, []string{"orders"}) {
		t.Errorf("after DownTo 1 the peer lists shop tables %v, want [orders]", got)
	}
	if got := peerQuery(ctx, t, root, []string{"shop"}, "orders", "id"); len(got) != 0 {
		t.Errorf("after DownTo 1 shop.orders holds %d rows, want 0", len(got))
	}
	if res, err := p.Up(ctx); err != nil || len(res) != 2 {
		t.Fatalf("second Up: %d migrations, %v; want 2", len(res), err)
	}
	rows := peerQuery(ctx, t, root, []string{"shop"}, "orders", "id", "customer", "total", "note")
	var got []string
	for _, r := range rows {
		got = append(got, jsonString(r["id"])+":"+jsonString(r["customer"])+":"+jsonString(r["total"])+":"+jsonString(r["note"]))
	}
	if want := []string{`1:"ada":1200:null`, `2:"grace":450:null`}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the second Up the peer reads shop.orders %v, want %v", got, want)
	}
	// goose's version table: version 0 (written by COMMIT of the transaction
	// that created the table), 1-3, then 2 and 3 deleted by DownTo and
	// inserted again, as the peer reads it.
	var versions []string
	for _, r := range peerQuery(ctx, t, root, []string{}, "goose_db_version", "id", "version_id", "is_applied") {
		versions = append(versions, jsonString(r["id"])+":"+jsonString(r["version_id"])+":"+jsonString(r["is_applied"]))
	}
	slices.Sort(versions)
	if want := []string{"1:0:true", "2:1:true", "5:2:true", "6:3:true"}; !reflect.DeepEqual(versions, want) {
		t.Errorf("the peer reads goose_db_version %v, want %v", versions, want)
	}
	status, err := p.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if len(status) != 3 {
		t.Fatalf("Status lists %d migrations, want 3", len(status))
	}
	for _, s := range status {
		if s.State != goose.StateApplied {
			t.Errorf("migration %d is %s, want applied", s.Source.Version, s.State)
		}
	}
}
