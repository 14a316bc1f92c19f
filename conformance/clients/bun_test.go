package clients

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/migrate"
)

type bunUser struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID        int64      `bun:",pk,autoincrement"`
	Name      string     `bun:",notnull"`
	Email     string     `bun:",unique"`
	CreatedAt time.Time  `bun:",nullzero,notnull,default:current_timestamp"`
	Posts     []*bunPost `bun:"rel:has-many,join:id=user_id"`
}

type bunPost struct {
	bun.BaseModel `bun:"table:posts,alias:p"`

	ID        int64  `bun:",pk,autoincrement"`
	UserID    int64  `bun:",notnull"`
	Title     string `bun:",notnull"`
	Views     int64
	Published time.Time `bun:"type:datetime(6)"`
}

// TestBun: uptrace/bun with its MySQL dialect (which reads VERSION() and
// takes the MySQL 8 features) migrates with its own migrator (Init twice,
// its lock table, Migrate, a second Migrate that applies nothing, Rollback),
// then does an application's CRUD: bulk INSERT with generated ids read back
// from LastInsertId, time.Now() into DATETIME(6) (bun sends microseconds), SELECT by condition,
// Count, ScanAndCount, a has-many relation (bun reads it with a second
// query, WHERE user_id IN (...); belongs-to relations need joins, not yet
// there), UPDATE and DELETE through the model's alias (UPDATE users AS u,
// DELETE FROM users AS u). The peer reads what bun wrote.
func TestBun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sqlDB, root, _ := openLoggedCatalog(t, "")
	db := bun.NewDB(sqlDB, mysqldialect.New())

	migrations := migrate.NewMigrations()
	// Go migrations, named as bun names them (a timestamp and a comment).
	migrations.Add(migrate.Migration{
		Name: "20260101000000", Comment: "create_users_posts",
		Up: func(ctx context.Context, _ *migrate.Migrator, _ *migrate.Migration) error {
			for _, model := range []any{(*bunUser)(nil), (*bunPost)(nil)} {
				if _, err := db.NewCreateTable().Model(model).IfNotExists().Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		},
		Down: func(ctx context.Context, _ *migrate.Migrator, _ *migrate.Migration) error {
			for _, model := range []any{(*bunPost)(nil), (*bunUser)(nil)} {
				if _, err := db.NewDropTable().Model(model).IfExists().Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		},
	})
	migrator := migrate.NewMigrator(db, migrations)
	runMigrations := func() *migrate.MigrationGroup {
		t.Helper()
		if err := migrator.Init(ctx); err != nil {
			t.Fatalf("migrator Init: %v", err)
		}
		if err := migrator.Lock(ctx); err != nil {
			t.Fatalf("migrator Lock: %v", err)
		}
		defer func() {
			if err := migrator.Unlock(ctx); err != nil {
				t.Fatalf("migrator Unlock: %v", err)
			}
		}()
		group, err := migrator.Migrate(ctx)
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return group
	}
	if g := runMigrations(); g.IsZero() || len(g.Migrations) != 1 {
		t.Fatalf("first Migrate applied %v", g)
	}
	if g := runMigrations(); !g.IsZero() {
		t.Fatalf("second Migrate applied %v, want nothing", g)
	}
	// The lock table refuses a second lock (its UNIQUE table_name).
	if err := migrator.Lock(ctx); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if err := migrator.Lock(ctx); err == nil {
		t.Fatal("a second Lock succeeded while the first is held")
	}
	if err := migrator.Unlock(ctx); err != nil {
		t.Fatal(err)
	}

	// CRUD.
	users := []*bunUser{{Name: "ada", Email: "ada@example.com"}, {Name: "grace", Email: "grace@example.com"}}
	if _, err := db.NewInsert().Model(&users).Exec(ctx); err != nil {
		t.Fatalf("insert users: %v", err)
	}
	if users[0].ID == 0 || users[1].ID != users[0].ID+1 {
		t.Fatalf("generated ids %d, %d", users[0].ID, users[1].ID)
	}
	now := time.Now()
	posts := []*bunPost{
		{UserID: users[0].ID, Title: "notes", Views: 10, Published: now},
		{UserID: users[0].ID, Title: "sketches", Views: 3, Published: now},
		{UserID: users[1].ID, Title: "compilers", Views: 7, Published: now},
	}
	if _, err := db.NewInsert().Model(&posts).Exec(ctx); err != nil {
		t.Fatalf("insert posts: %v", err)
	}
	var got bunPost
	if err := db.NewSelect().Model(&got).Where("p.title = ?", "notes").Scan(ctx); err != nil {
		t.Fatalf("select post: %v", err)
	}
	// bun formats time.Time itself, to microseconds (truncated).
	if want := now.UTC().Truncate(time.Microsecond); !got.Published.Equal(want) {
		t.Errorf("published %v, want %v", got.Published, want)
	}
	n, err := db.NewSelect().Model((*bunPost)(nil)).Where("views > ?", 5).Count(ctx)
	if err != nil || n != 2 {
		t.Errorf("Count of posts with views > 5: %d %v", n, err)
	}
	var page []bunPost
	total, err := db.NewSelect().Model(&page).Order("views DESC").Limit(2).ScanAndCount(ctx)
	if err != nil || total != 3 || len(page) != 2 || page[0].Title != "notes" {
		t.Errorf("ScanAndCount: %d rows of %d, %v (%v)", len(page), total, page, err)
	}
	var withPosts []bunUser
	if err := db.NewSelect().Model(&withPosts).Relation("Posts").Order("u.id").Scan(ctx); err != nil {
		t.Fatalf("users with posts: %v", err)
	}
	var counts []int
	for _, u := range withPosts {
		counts = append(counts, len(u.Posts))
	}
	if !reflect.DeepEqual(counts, []int{2, 1}) {
		t.Errorf("posts per user %v, want [2 1]", counts)
	}
	users[1].Name = "grace hopper"
	if _, err := db.NewUpdate().Model(users[1]).Column("name").WherePK().Exec(ctx); err != nil {
		t.Fatalf("update user: %v", err)
	}
	if _, err := db.NewUpdate().Model((*bunPost)(nil)).Set("views = views + 1").Where("user_id = ?", users[0].ID).Exec(ctx); err != nil {
		t.Fatalf("update posts: %v", err)
	}
	res, err := db.NewDelete().Model((*bunPost)(nil)).Where("title = ?", "sketches").Exec(ctx)
	if err != nil {
		t.Fatalf("delete post: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("delete affected %d rows", n)
	}
	peerUsers := peerQuery(ctx, t, root, []string{}, "users", "id", "name")
	if len(peerUsers) != 2 || peerUsers[1]["name"] != "grace hopper" {
		t.Errorf("the peer reads users %v", peerUsers)
	}
	peerPosts := peerQuery(ctx, t, root, []string{}, "posts", "title", "views")
	var views []string
	for _, p := range peerPosts {
		views = append(views, p["title"].(string)+":"+jsonString(p["views"]))
	}
	if want := []string{"compilers:7", "notes:11"}; !reflect.DeepEqual(views, want) {
		t.Errorf("the peer reads posts %v, want %v", views, want)
	}

	// Rollback drops the tables again.
	if _, err := migrator.Rollback(ctx); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if got := peerTables(ctx, t, root, []string{}); !reflect.DeepEqual(got, []string{"bun_migration_locks", "bun_migrations"}) {
		t.Errorf("after Rollback the peer lists %v", got)
	}
}
