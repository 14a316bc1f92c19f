package clients

import (
	"context"
	"embed"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/database/mysql"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

//go:embed testdata/golang-migrate/*.sql
var golangMigrations embed.FS

// TestGolangMigrate: golang-migrate v4's mysql database driver over an
// existing *sql.DB (mysql.WithInstance) runs SQL migrations with MySQL table
// options, a UNIQUE key and a FOREIGN KEY: Up applies three, a second Up is
// ErrNoChange, Version reports 3 and clean, Steps(-1) rolls one back, Down
// rolls back the rest, Up applies all again. It takes its advisory lock
// (GET_LOCK on "<DATABASE()>:schema_migrations"), reads DATABASE() ($root
// at the catalog root), keeps its version in schema_migrations inside a
// SERIALIZABLE transaction (DELETE ... LIMIT 1, INSERT) and sends each file
// as one multi-statement script. The peer reads the result.
func TestGolangMigrate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, root, log := openLoggedCatalog(t, "")
	drv, err := mysql.WithInstance(db, &mysql.Config{})
	if err != nil {
		t.Fatalf("mysql.WithInstance: %v", err)
	}
	src, err := iofs.New(golangMigrations, "testdata/golang-migrate")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "mysql", drv)
	if err != nil {
		t.Fatalf("NewWithInstance: %v", err)
	}
	defer m.Close()
	version := func(want uint) {
		t.Helper()
		v, dirty, err := m.Version()
		if err != nil || v != want || dirty {
			t.Fatalf("Version = %d dirty=%t %v, want %d clean", v, dirty, err, want)
		}
	}
	if err := m.Up(); err != nil {
		t.Fatalf("Up: %v", err)
	}
	version(3)
	if err := m.Up(); !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("second Up: %v, want ErrNoChange", err)
	}
	version(3)
	if got := peerTables(ctx, t, root, []string{}); !reflect.DeepEqual(got, []string{"posts", "schema_migrations", "users"}) {
		t.Fatalf("the peer lists %v", got)
	}
	users := peerQuery(ctx, t, root, []string{}, "users", "email", "bio")
	if len(users) != 2 || users[0]["bio"] != "first programmer" || users[1]["bio"] != nil {
		t.Errorf("the peer reads users %v", users)
	}
	var fk string
	if err := db.QueryRowContext(ctx, "SELECT CONSTRAINT_NAME FROM information_schema.referential_constraints WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'posts'").Scan(&fk); err != nil || fk != "posts_user" {
		t.Errorf("posts' foreign key: %q %v", fk, err)
	}

	// Rollback: one step, then all.
	if err := m.Steps(-1); err != nil {
		t.Fatalf("Steps(-1): %v", err)
	}
	version(2)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.columns WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'users' AND COLUMN_NAME = 'bio'").Scan(&n); err != nil || n != 0 {
		t.Errorf("users.bio after Steps(-1): %d %v", n, err)
	}
	if err := m.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if _, _, err := m.Version(); !errors.Is(err, migrate.ErrNilVersion) {
		t.Fatalf("Version after Down: %v, want ErrNilVersion", err)
	}
	if got := peerTables(ctx, t, root, []string{}); !reflect.DeepEqual(got, []string{"schema_migrations"}) {
		t.Fatalf("after Down the peer lists %v", got)
	}
	if err := m.Up(); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	version(3)
	posts := peerQuery(ctx, t, root, []string{}, "posts", "id", "user_id", "title")
	if len(posts) != 1 || jsonString(posts[0]["user_id"]) != "1" {
		t.Errorf("the peer reads posts %v", posts)
	}
	// The lock is taken and released around each run.
	var locks, releases int
	for _, q := range log.statements() {
		switch {
		case strings.HasPrefix(q, "SELECT GET_LOCK("):
			locks++
		case strings.HasPrefix(q, "SELECT RELEASE_LOCK("):
			releases++
		}
	}
	if locks == 0 || locks != releases {
		t.Errorf("golang-migrate took %d locks and released %d", locks, releases)
	}
	// golang-migrate's lock name is a hash of "<DATABASE()>:schema_migrations".
	lockID, err := database.GenerateAdvisoryLockId("$root:schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var got int
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", lockID).Scan(&got); err != nil || got != 1 {
		t.Fatalf("GET_LOCK of golang-migrate's lock: %d %v", got, err)
	}
	// While another session holds it, golang-migrate waits, then fails.
	if err := m.Up(); err == nil || !strings.Contains(err.Error(), "lock") {
		t.Errorf("Up while the lock is held: %v, want a lock timeout", err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", lockID).Scan(&got); err != nil || got != 1 {
		t.Fatalf("RELEASE_LOCK: %d %v", got, err)
	}
}
