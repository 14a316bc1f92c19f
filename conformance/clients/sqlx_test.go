package clients

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// person is the row struct sqlx maps through db tags.
type person struct {
	ID    int64          `db:"id"`
	Name  string         `db:"name"`
	Email sql.NullString `db:"email"`
	Age   int32          `db:"age"`
}

// TestSqlx: sqlx's NamedExec (single and batch), Select and Get fill structs
// through db tags against a lancecat table, and the peer reads the same rows.
func TestSqlx(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sqlDB, root := openCatalog(t)
	db := sqlx.NewDb(sqlDB, "mysql") // lancecat takes '?' placeholders, as MySQL does

	db.MustExecContext(ctx, "CREATE SCHEMA app")
	db.MustExecContext(ctx, `CREATE TABLE app.people (
		id BIGINT NOT NULL, name VARCHAR(64) NOT NULL, email VARCHAR(128), age INT NOT NULL,
		PRIMARY KEY (id))`)

	if _, err := db.NamedExecContext(ctx,
		"INSERT INTO app.people (id, name, email, age) VALUES (:id, :name, :email, :age)",
		person{ID: 1, Name: "ada", Email: sql.NullString{String: "ada@example.com", Valid: true}, Age: 36}); err != nil {
		t.Fatalf("NamedExec one struct: %v", err)
	}
	batch := []person{
		{ID: 2, Name: "grace", Age: 45},
		{ID: 3, Name: "linus", Email: sql.NullString{String: "l@example.com", Valid: true}, Age: 28},
	}
	res, err := db.NamedExecContext(ctx,
		"INSERT INTO app.people (id, name, email, age) VALUES (:id, :name, :email, :age)", batch)
	if err != nil {
		t.Fatalf("NamedExec batch: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("batch NamedExec affected %d rows, want 2", n)
	}
	if _, err := db.NamedExecContext(ctx, "UPDATE app.people SET age = :age WHERE id = :id",
		map[string]any{"id": 2, "age": 46}); err != nil {
		t.Fatalf("NamedExec map UPDATE: %v", err)
	}

	var all []person
	if err := db.SelectContext(ctx, &all, "SELECT id, name, email, age FROM app.people ORDER BY id"); err != nil {
		t.Fatalf("Select: %v", err)
	}
	want := []person{
		{ID: 1, Name: "ada", Email: sql.NullString{String: "ada@example.com", Valid: true}, Age: 36},
		{ID: 2, Name: "grace", Age: 46},
		{ID: 3, Name: "linus", Email: sql.NullString{String: "l@example.com", Valid: true}, Age: 28},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("Select = %+v, want %+v", all, want)
	}

	var one person
	if err := db.GetContext(ctx, &one, "SELECT * FROM app.people WHERE name = ?", "linus"); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if one != want[2] {
		t.Errorf("Get = %+v, want %+v", one, want[2])
	}
	if err := db.GetContext(ctx, &one, "SELECT * FROM app.people WHERE id = ?", 99); err != sql.ErrNoRows {
		t.Errorf("Get of a missing row: %v, want sql.ErrNoRows", err)
	}

	// sqlx.In expands a slice into the IN list; Rebind keeps '?'.
	q, args, err := sqlx.In("SELECT name FROM app.people WHERE id IN (?) ORDER BY name", []int64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.SelectContext(ctx, &names, db.Rebind(q), args...); err != nil {
		t.Fatalf("Select with sqlx.In: %v", err)
	}
	if !reflect.DeepEqual(names, []string{"ada", "linus"}) {
		t.Errorf("sqlx.In select = %v, want [ada linus]", names)
	}

	// The peer reads what sqlx wrote.
	rows := peerQuery(ctx, t, root, []string{"app"}, "people", "id", "name", "email", "age")
	var got []string
	for _, r := range rows {
		got = append(got, jsonString(r["id"])+":"+jsonString(r["name"])+":"+jsonString(r["email"])+":"+jsonString(r["age"]))
	}
	wantPeer := []string{`1:"ada":"ada@example.com":36`, `2:"grace":null:46`, `3:"linus":"l@example.com":28`}
	if !reflect.DeepEqual(got, wantPeer) {
		t.Errorf("peer reads %v, want %v", got, wantPeer)
	}
}
