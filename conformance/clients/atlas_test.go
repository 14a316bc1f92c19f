package clients

import (
	"context"
	"testing"
	"time"

	"ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/mysql"
	"ariga.io/atlas/sql/schema"
)

// atlasDesired is the schema an application declares to Atlas: two tables,
// a primary key, a unique and a plain index, a foreign key with ON DELETE
// SET NULL, utf8mb4_bin.
func atlasDesired() *schema.Schema {
	s := schema.New("$root").AddAttrs(&schema.Charset{V: "utf8mb4"}, &schema.Collation{V: "utf8mb4_bin"})
	id := schema.NewIntColumn("id", "bigint").AddAttrs(&mysql.AutoIncrement{})
	email := schema.NewStringColumn("email", "varchar", schema.StringSize(128))
	name := schema.NewNullStringColumn("name", "varchar", schema.StringSize(64))
	users := schema.NewTable("users").AddColumns(id, email, name)
	users.SetPrimaryKey(schema.NewPrimaryKey(id))
	users.AddIndexes(schema.NewUniqueIndex("users_email").AddColumns(email), schema.NewIndex("users_name").AddColumns(name))
	pid := schema.NewIntColumn("id", "bigint").AddAttrs(&mysql.AutoIncrement{})
	owner := schema.NewNullIntColumn("user_id", "bigint")
	title := schema.NewStringColumn("title", "varchar", schema.StringSize(200))
	posts := schema.NewTable("posts").AddColumns(pid, owner, title)
	posts.SetPrimaryKey(schema.NewPrimaryKey(pid))
	posts.AddForeignKeys(schema.NewForeignKey("posts_user").AddColumns(owner).SetRefTable(users).AddRefColumns(id).SetOnDelete(schema.SetNull))
	s.AddTables(users, posts)
	return s
}

// TestAtlas: ariga.io/atlas's MySQL driver (the inspect/diff/apply engine
// of the atlas CLI and of ent's migrations) opened on lancecat reads the
// server variables (@@version 8.0.36-lancecat: MySQL 8 SQL), plans the
// desired schema from an empty one and lancecat runs the planned DDL
// (Atlas's CREATE TABLE with table options, indices, FOREIGN KEY). Then the
// round trip: inspect what lancecat has, diff against the desired schema —
// the diff must be empty, or lancecat's SHOW CREATE TABLE / information_schema
// would make Atlas plan changes on every run. Atlas inspects by joining
// information_schema views.
func TestAtlas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, _, _ := openLoggedCatalog(t, "")
	drv, err := mysql.Open(db)
	if err != nil {
		t.Fatalf("atlas mysql.Open: %v", err)
	}
	desired := atlasDesired()
	empty := schema.New("$root").AddAttrs(&schema.Charset{V: "utf8mb4"}, &schema.Collation{V: "utf8mb4_bin"})
	changes, err := drv.SchemaDiff(empty, desired)
	if err != nil {
		t.Fatalf("SchemaDiff: %v", err)
	}
	plan, err := drv.PlanChanges(ctx, "init", changes)
	if err != nil {
		t.Fatalf("PlanChanges: %v", err)
	}
	if len(plan.Changes) == 0 {
		t.Fatal("empty plan for the desired schema")
	}
	for _, c := range plan.Changes {
		if _, err := db.ExecContext(ctx, c.Cmd, c.Args...); err != nil {
			t.Fatalf("planned %q: %v", c.Cmd, err)
		}
	}
	var fk string
	if err := db.QueryRowContext(ctx, "SELECT CONSTRAINT_NAME FROM information_schema.referential_constraints WHERE CONSTRAINT_SCHEMA = DATABASE() AND DELETE_RULE = 'SET NULL'").Scan(&fk); err != nil || fk != "posts_user" {
		t.Fatalf("the foreign key Atlas declared: %q %v", fk, err)
	}

	t.Run("round trip", func(t *testing.T) {
		current, err := drv.InspectSchema(ctx, "", nil)
		if err != nil {
			t.Fatalf("InspectSchema: %v", err)
		}
		changes, err := drv.SchemaDiff(current, desired)
		if err != nil {
			t.Fatalf("SchemaDiff: %v", err)
		}
		if len(changes) != 0 {
			plan, _ := drv.PlanChanges(ctx, "again", changes)
			var cmds []string
			if plan != nil {
				for _, c := range plan.Changes {
					cmds = append(cmds, c.Cmd)
				}
			}
			t.Fatalf("inspecting what Atlas applied gives %d changes: %v", len(changes), cmds)
		}
		// Applying an empty diff is a no-op, as a second migration run.
		if err := drv.ApplyChanges(ctx, changes); err != nil {
			t.Fatalf("ApplyChanges of the empty diff: %v", err)
		}
		var _ migrate.Driver = drv
	})
}
