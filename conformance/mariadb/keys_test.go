package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestKeysMatchMariaDB runs INSERTs with explicit and generated
// AUTO_INCREMENT ids mixed, duplicate PRIMARY KEYs (one column and two),
// INSERT IGNORE over them and UPDATEs that make a duplicate in both
// engines, and compares after each: failure, SHOW WARNINGS / SHOW ERRORS
// (level, code, message), the LastInsertId of a success that generated an
// id, the affected rows, the rows, and the counter
// (information_schema.tables.AUTO_INCREMENT).
func TestKeysMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	ctx := context.Background()
	myc, lcc := oneConnEach(ctx, t, my, lc)
	for _, s := range []string{
		"CREATE TABLE ai (id BIGINT NOT NULL AUTO_INCREMENT, v INT, PRIMARY KEY (id))",
		"CREATE TABLE ck (a INT NOT NULL, b VARCHAR(4) NOT NULL, v INT, PRIMARY KEY (a, b))",
		"CREATE TABLE src (id BIGINT, v INT)",
		"INSERT INTO src VALUES (NULL, 1), (700, 2), (NULL, 3), (NULL, 4)",
	} {
		for _, c := range []*sql.Conn{myc, lcc} {
			if _, err := c.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	type step struct {
		sql   string
		fails bool
		table string // the table whose rows and counter are compared
	}
	steps := []step{
		{sql: "INSERT INTO ai (id, v) VALUES (NULL, 1), (10, 2), (NULL, 3)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (5, 4), (NULL, 5), (0, 6)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (NULL, 7), (13, 8)", fails: true, table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (NULL, 7), (100, 8), (NULL, 9), (50, 10), (NULL, 11)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (NULL, 12), (NULL, 13), (200, 14), (150, 15), (NULL, 16), (NULL, 17)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (300, 18), (NULL, 19), (250, 20), (NULL, 21)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (NULL, 22), (NULL, 23)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (1, 0)", fails: true, table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (400, 24)", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (500, 1), (450, 2)", table: "ai"},
		// INSERT ... SELECT is a bulk insert: ids reserved 1, 2, 4, ... at a time.
		{sql: "INSERT INTO ai (id, v) SELECT id, v FROM src ORDER BY v", table: "ai"},
		{sql: "INSERT INTO ai (id, v) VALUES (600, 1), (NULL, 2), (550, 3)", table: "ai"},
		{sql: "INSERT INTO ai (v) VALUES (25)", table: "ai"},
		{sql: "INSERT IGNORE INTO ai (id, v) VALUES (5, 26), (NULL, 27)", table: "ai"},
		{sql: "UPDATE ai SET id = 10 WHERE id = 5", fails: true, table: "ai"},
		{sql: "INSERT INTO ck VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3)", table: "ck"},
		{sql: "INSERT INTO ck VALUES (3, 'x', 1), (3, 'x', 2)", fails: true, table: "ck"},
		{sql: "INSERT INTO ck VALUES (1, 'y', 9)", fails: true, table: "ck"},
		{sql: "INSERT IGNORE INTO ck VALUES (1, 'x', 0), (4, 'x', 4), (4, 'x', 5)", table: "ck"},
		{sql: "UPDATE ck SET b = 'y' WHERE a = 1 AND b = 'x'", fails: true, table: "ck"},
		{sql: "UPDATE ck SET a = 1 WHERE a = 2", fails: true, table: "ck"},
		{sql: "UPDATE ck SET v = v + 1 WHERE a = 1", table: "ck"},
	}
	state := func(c *sql.Conn, table string) string {
		t.Helper()
		rows, err := c.QueryContext(ctx, fmt.Sprintf("SELECT * FROM %s ORDER BY 1, 2", table))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				b.WriteString(v.String + "|")
			}
			b.WriteString(" ")
		}
		var next sql.NullInt64
		if err := c.QueryRowContext(ctx, "SELECT AUTO_INCREMENT FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", table).Scan(&next); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s AUTO_INCREMENT=%v", b.String(), next)
	}
	for _, st := range steps {
		myRes, myErr := myc.ExecContext(ctx, st.sql)
		lcRes, lcErr := lcc.ExecContext(ctx, st.sql)
		if (myErr != nil) != st.fails || (lcErr != nil) != st.fails {
			t.Errorf("%s: MariaDB %v, lancecat %v (want failure: %v)", st.sql, myErr, lcErr, st.fails)
			continue
		}
		want := readDiag(ctx, t, myc, "SHOW WARNINGS", false)
		got := readDiag(ctx, t, lcc, "SHOW WARNINGS", false)
		if want.String() != got.String() {
			t.Errorf("%s; SHOW WARNINGS\n  MariaDB  %s\n  lancecat %s", st.sql, want, got)
		}
		if !st.fails {
			myID, _ := myRes.LastInsertId()
			lcID, _ := lcRes.LastInsertId()
			if myID != lcID {
				t.Errorf("%s: LAST_INSERT_ID MariaDB %d, lancecat %d", st.sql, myID, lcID)
			}
			myN, _ := myRes.RowsAffected()
			lcN, _ := lcRes.RowsAffected()
			if myN != lcN {
				t.Errorf("%s: affected rows MariaDB %d, lancecat %d", st.sql, myN, lcN)
			}
		}
		if w, g := state(myc, st.table), state(lcc, st.table); w != g {
			t.Errorf("%s: after it\n  MariaDB  %s\n  lancecat %s", st.sql, w, g)
		}
	}
}

// TestDDLNotesMatchMariaDB: the notes of IF [NOT] EXISTS statements that
// find nothing to do (1050, 1051, 1007, 1008), compared with MariaDB's
// SHOW WARNINGS after each.
func TestDDLNotesMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	ctx := context.Background()
	myc, lcc := oneConnEach(ctx, t, my, lc)
	for _, s := range []string{
		"CREATE TABLE c (a INT)",
		"CREATE TABLE IF NOT EXISTS c (a INT)",
		"CREATE TABLE IF NOT EXISTS c AS SELECT 1 AS a",
		"CREATE TABLE IF NOT EXISTS n (a INT)",
		"DROP TABLE IF EXISTS nope",
		"DROP TABLE IF EXISTS nope, n, nope2",
		"DROP TABLE IF EXISTS c",
		"CREATE DATABASE IF NOT EXISTS diff",
		"CREATE SCHEMA IF NOT EXISTS diff",
		"CREATE DATABASE IF NOT EXISTS other",
		"DROP DATABASE IF EXISTS nodb",
		"DROP SCHEMA IF EXISTS other",
		"DROP SCHEMA IF EXISTS other",
	} {
		if _, err := myc.ExecContext(ctx, s); err != nil {
			t.Fatalf("MariaDB %s: %v", s, err)
		}
		if _, err := lcc.ExecContext(ctx, s); err != nil {
			t.Fatalf("lancecat %s: %v", s, err)
		}
		want := readDiag(ctx, t, myc, "SHOW WARNINGS", false)
		got := readDiag(ctx, t, lcc, "SHOW WARNINGS", false)
		if want.String() != got.String() {
			t.Errorf("%s; SHOW WARNINGS\n  MariaDB  %s\n  lancecat %s", s, want, got)
		}
	}
}
