package clients

import (
	"context"
	"reflect"
	"testing"
	"time"

	sq "github.com/Masterminds/squirrel"
)

// TestSquirrel: Masterminds/squirrel builds the statements an application
// sends (with ? placeholders, run through database/sql): a schema created
// twice with IF NOT EXISTS (the second a no-op), INSERTs whose generated ids
// come back through LastInsertId, SELECT with Eq/Gt/Like conditions, ORDER
// BY, LIMIT/OFFSET, COUNT and GROUP BY, a relation read by a subquery (no
// joins yet), UPDATE and DELETE with RowsAffected. The peer reads the rows
// squirrel wrote.
func TestSquirrel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, root, _ := openLoggedCatalog(t, "")
	schema := []string{
		"CREATE TABLE IF NOT EXISTS authors (id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(64) NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
		"CREATE TABLE IF NOT EXISTS books (id BIGINT NOT NULL AUTO_INCREMENT, author_id BIGINT NOT NULL, title VARCHAR(128) NOT NULL, year INT, added DATETIME(3), PRIMARY KEY (id), CONSTRAINT books_author FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	}
	for range 2 { // the second run is a no-op
		for _, q := range schema {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	b := sq.StatementBuilder.RunWith(db)
	ids := map[string]int64{}
	for _, name := range []string{"ursula", "octavia"} {
		res, err := b.Insert("authors").Columns("name").Values(name).ExecContext(ctx)
		if err != nil {
			t.Fatalf("insert author %s: %v", name, err)
		}
		if ids[name], err = res.LastInsertId(); err != nil || ids[name] == 0 {
			t.Fatalf("LastInsertId of %s: %d %v", name, ids[name], err)
		}
	}
	if ids["ursula"] == ids["octavia"] {
		t.Fatalf("two authors got id %d", ids["ursula"])
	}
	// time.Time arguments go to the driver with nanoseconds: DATETIME(3)
	// keeps them rounded to milliseconds, as MySQL 8 does.
	added := time.Date(2026, 1, 2, 3, 4, 5, 123500000, time.UTC)
	books := b.Insert("books").Columns("author_id", "title", "year", "added").
		Values(ids["ursula"], "The Dispossessed", 1974, added).
		Values(ids["ursula"], "The Lathe of Heaven", 1971, added).
		Values(ids["octavia"], "Kindred", 1979, added)
	res, err := books.ExecContext(ctx)
	if err != nil {
		t.Fatalf("insert books: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("inserted %d books, want 3", n)
	}

	// Reads.
	rows, err := b.Select("title", "year").From("books").Where(sq.And{sq.Eq{"author_id": ids["ursula"]}, sq.Gt{"year": 1970}}).OrderBy("year DESC").QueryContext(ctx)
	if err != nil {
		t.Fatalf("select books: %v", err)
	}
	var titles []string
	for rows.Next() {
		var title string
		var year int
		if err := rows.Scan(&title, &year); err != nil {
			t.Fatal(err)
		}
		titles = append(titles, title)
	}
	rows.Close()
	if want := []string{"The Dispossessed", "The Lathe of Heaven"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("ursula's books %v, want %v", titles, want)
	}
	var stored time.Time
	if err := b.Select("added").From("books").Where(sq.Eq{"title": "Kindred"}).QueryRowContext(ctx).Scan(&stored); err != nil || !stored.Equal(added.Round(time.Millisecond)) {
		t.Errorf("added stored as %v (%v), want %v", stored, err, added.Round(time.Millisecond))
	}
	var n int
	if err := b.Select("COUNT(*)").From("books").Where(sq.Like{"title": "The %"}).QueryRowContext(ctx).Scan(&n); err != nil || n != 2 {
		t.Errorf("COUNT of The %% books: %d %v", n, err)
	}
	var first string
	if err := b.Select("title").From("books").OrderBy("title").Limit(1).Offset(1).QueryRowContext(ctx).Scan(&first); err != nil || first != "The Dispossessed" {
		t.Errorf("LIMIT 1 OFFSET 1: %q %v", first, err)
	}
	// A relation: the authors of books before 1975, by a subquery.
	sub := sq.Select("author_id").From("books").Where(sq.Lt{"year": 1975})
	subSQL, subArgs, err := sub.ToSql()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, err = b.Select("name").From("authors").Where("id IN ("+subSQL+")", subArgs...).OrderBy("name").QueryContext(ctx)
	if err != nil {
		t.Fatalf("authors by subquery: %v", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		names = append(names, s)
	}
	rows.Close()
	if !reflect.DeepEqual(names, []string{"ursula"}) {
		t.Errorf("authors of books before 1975: %v", names)
	}
	// Counts per author (GROUP BY), labelled as MySQL labels them.
	rows, err = b.Select("books.author_id", "COUNT(*) AS n").From("books").GroupBy("books.author_id").OrderBy("n DESC").QueryContext(ctx)
	if err != nil {
		t.Fatalf("count per author: %v", err)
	}
	cols, _ := rows.Columns()
	if !reflect.DeepEqual(cols, []string{"author_id", "n"}) {
		t.Errorf("GROUP BY labels %v", cols)
	}
	var counts []int
	for rows.Next() {
		var a, c int
		if err := rows.Scan(&a, &c); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, c)
	}
	rows.Close()
	if !reflect.DeepEqual(counts, []int{2, 1}) {
		t.Errorf("books per author %v, want [2 1]", counts)
	}

	// Writes.
	res, err = b.Update("books").Set("year", sq.Expr("year + ?", 1)).Where(sq.Eq{"title": "Kindred"}).ExecContext(ctx)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("update affected %d rows", n)
	}
	res, err = b.Delete("books").Where(sq.Eq{"author_id": ids["ursula"]}).ExecContext(ctx)
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("delete affected %d rows", n)
	}
	got := peerQuery(ctx, t, root, []string{}, "books", "title", "year")
	if len(got) != 1 || got[0]["title"] != "Kindred" || jsonString(got[0]["year"]) != "1980" {
		t.Errorf("the peer reads books %v, want Kindred 1980", got)
	}
}
