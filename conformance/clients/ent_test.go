package clients

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/lancecat/lancecat/conformance/clients/ent"
	"github.com/lancecat/lancecat/conformance/clients/ent/post"
	"github.com/lancecat/lancecat/conformance/clients/ent/user"
)

// entDDL is the schema of ./ent/schema as ent's MySQL migration declares it
// (ent's types, index and foreign key names, ON DELETE SET NULL, table
// options).
var entDDL = []string{
	"CREATE TABLE IF NOT EXISTS `users` (`id` bigint NOT NULL AUTO_INCREMENT, `name` varchar(64) NOT NULL, `email` varchar(255) NOT NULL, `age` bigint NULL, PRIMARY KEY (`id`), UNIQUE INDEX `email` (`email`), INDEX `user_name` (`name`)) CHARSET utf8mb4 COLLATE utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS `posts` (`id` bigint NOT NULL AUTO_INCREMENT, `title` varchar(255) NOT NULL, `views` bigint NOT NULL DEFAULT 0, `created_at` timestamp NOT NULL, `user_posts` bigint NULL, PRIMARY KEY (`id`), CONSTRAINT `posts_users_posts` FOREIGN KEY (`user_posts`) REFERENCES `users` (`id`) ON DELETE SET NULL) CHARSET utf8mb4 COLLATE utf8mb4_bin",
}

// TestEnt: entgo.io/ent's generated client (./ent, generated from
// ./ent/schema and committed) over lancecat through ent's MySQL dialect on
// an existing *sql.DB. ent migrates with Atlas, whose MySQL inspection
// joins information_schema views (TABLES with COLLATIONS and ENGINES,
// KEY_COLUMN_USAGE with REFERENTIAL_CONSTRAINTS); a second migration plans
// nothing (only reads). Then an
// application's CRUD: Create and CreateBulk with generated ids, edges set
// on create, Query with predicates, Count, an O2M edge traversal
// (QueryPosts: a subquery) and eager loading (WithPosts: a second query
// with IN), Update with AddViews, Delete, and the peer reads the rows.
func TestEnt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, root, log := openLoggedCatalog(t, "")
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.MySQL, db)))
	defer client.Close()

	// ent's migration (Atlas: inspect, diff, apply), twice: the second run
	// inspects what the first created and must plan nothing.
	if err := client.Schema.Create(ctx); err != nil {
		t.Fatalf("Schema.Create: %v", err)
	}
	before := len(log.statements())
	if err := client.Schema.Create(ctx); err != nil {
		t.Fatalf("second Schema.Create: %v", err)
	}
	for _, q := range log.statements()[before:] {
		if !strings.HasPrefix(strings.TrimSpace(q), "SELECT") && !strings.HasPrefix(q, "SHOW") {
			t.Errorf("the second migration changed the schema: %s", q)
		}
	}
	// The DDL ent's migration sends is what lancecat keeps: creating it
	// again with IF NOT EXISTS is a no-op.
	for _, q := range entDDL {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	ada, err := client.User.Create().SetName("ada").SetEmail("ada@example.com").SetAge(36).Save(ctx)
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	grace, err := client.User.Create().SetName("grace").SetEmail("grace@example.com").Save(ctx)
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	if ada.ID == 0 || grace.ID == ada.ID {
		t.Fatalf("generated ids %d, %d", ada.ID, grace.ID)
	}
	posts, err := client.Post.CreateBulk(
		client.Post.Create().SetTitle("notes").SetViews(10).SetAuthor(ada),
		client.Post.Create().SetTitle("sketches").SetAuthor(ada),
		client.Post.Create().SetTitle("compilers").SetViews(7).SetAuthor(grace),
	).Save(ctx)
	if err != nil {
		t.Fatalf("create posts: %v", err)
	}
	if len(posts) != 3 || posts[0].ID == 0 || posts[2].ID != posts[0].ID+2 {
		t.Fatalf("bulk ids %v", posts)
	}
	if _, err := client.User.Create().SetName("ada2").SetEmail("ada@example.com").Save(ctx); err == nil {
		t.Error("a duplicate UNIQUE email was accepted")
	}

	n, err := client.Post.Query().Where(post.ViewsGT(5)).Count(ctx)
	if err != nil || n != 2 {
		t.Errorf("posts with views > 5: %d %v", n, err)
	}
	titles, err := ada.QueryPosts().Order(ent.Asc(post.FieldTitle)).Select(post.FieldTitle).Strings(ctx)
	if err != nil || !reflect.DeepEqual(titles, []string{"notes", "sketches"}) {
		t.Errorf("ada's posts %v %v", titles, err)
	}
	users, err := client.User.Query().Where(user.NameIn("ada", "grace")).WithPosts().Order(ent.Asc(user.FieldID)).All(ctx)
	if err != nil {
		t.Fatalf("users with posts: %v", err)
	}
	var counts []int
	for _, u := range users {
		counts = append(counts, len(u.Edges.Posts))
	}
	if !reflect.DeepEqual(counts, []int{2, 1}) {
		t.Errorf("posts per user %v", counts)
	}
	if err := client.Post.Update().Where(post.HasAuthorWith(user.ID(ada.ID))).AddViews(1).Exec(ctx); err != nil {
		t.Fatalf("update posts: %v", err)
	}
	if err := client.User.UpdateOne(grace).SetName("grace hopper").ClearAge().Exec(ctx); err != nil {
		t.Fatalf("update user: %v", err)
	}
	if deleted, err := client.Post.Delete().Where(post.Title("sketches")).Exec(ctx); err != nil || deleted != 1 {
		t.Fatalf("delete post: %d %v", deleted, err)
	}
	var views []string
	for _, p := range peerQuery(ctx, t, root, []string{}, "posts", "title", "views", "user_posts") {
		views = append(views, p["title"].(string)+":"+jsonString(p["views"])+":"+jsonString(p["user_posts"]))
	}
	if want := []string{"compilers:7:2", "notes:11:1"}; !reflect.DeepEqual(views, want) {
		t.Errorf("the peer reads posts %v, want %v", views, want)
	}
	peerUsers := peerQuery(ctx, t, root, []string{}, "users", "id", "name", "age")
	if len(peerUsers) != 2 || peerUsers[1]["name"] != "grace hopper" || peerUsers[1]["age"] != nil {
		t.Errorf("the peer reads users %v", peerUsers)
	}
}
