package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// diagArea is what SHOW WARNINGS and the counts say after a statement.
type diagArea struct {
	rows          []string // "Level Code Message"
	warns, errors int64
}

func (d diagArea) String() string {
	return fmt.Sprintf("@@warning_count=%d @@error_count=%d [%s]", d.warns, d.errors, strings.Join(d.rows, "; "))
}

// readDiag reads SHOW WARNINGS (or SHOW ERRORS, or with a LIMIT: show is the
// statement) and @@warning_count, @@error_count on one connection.
// codesOnly drops the messages (lancecat's error messages are its own).
func readDiag(ctx context.Context, t *testing.T, c *sql.Conn, show string, codesOnly bool) diagArea {
	t.Helper()
	var d diagArea
	rows, err := c.QueryContext(ctx, show)
	if err != nil {
		t.Fatalf("%s: %v", show, err)
	}
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for i, v := range vals {
			if codesOnly && i == 2 {
				break // the message
			}
			parts = append(parts, v.String)
		}
		d.rows = append(d.rows, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if err := c.QueryRowContext(ctx, "SELECT @@warning_count, @@error_count").Scan(&d.warns, &d.errors); err != nil {
		t.Fatalf("@@warning_count: %v", err)
	}
	return d
}

// runDrained runs q and reads all its rows (the warnings of streamed rows
// are raised as they are read).
func runDrained(ctx context.Context, c *sql.Conn, q string) error {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

// TestWarningsMatchMariaDB runs statements that MariaDB answers with notes,
// warnings or an error in both engines, each on one connection, and
// compares SHOW WARNINGS (level, code, message), SHOW ERRORS, SHOW
// WARNINGS LIMIT, SHOW COUNT(*) and @@warning_count / @@error_count after
// each, and when the area is cleared and when it is kept.
func TestWarningsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	ctx := context.Background()
	myc, lcc := oneConnEach(ctx, t, my, lc)
	for _, s := range []string{
		"CREATE TABLE w1 (id BIGINT, f DOUBLE, s VARCHAR(10))",
		"INSERT INTO w1 VALUES (1, 1.5, 'x'), (2, 2.5, '3 '), (3, 0, '7'), (4, NULL, '1e')",
	} {
		if _, err := myc.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
		if _, err := lcc.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	type step struct {
		sql       string
		fails     bool   // both engines fail it
		show      string // "" : SHOW WARNINGS
		codesOnly bool
	}
	steps := []step{
		// Division and MOD by zero: 1365, one per evaluation.
		{sql: "SELECT 1/0, 5 DIV 0, 5 % 0, MOD(5, 0), 1.5 / 0, 2e0 % 0"},
		{sql: "SELECT id, id / (id - 2), id % (id - 3) FROM w1 ORDER BY id"},
		// The area stays for a statement without tables or conditions ...
		{sql: "SELECT 1"},
		{sql: "SET @@session.group_concat_max_len = 1024"},
		{sql: "SHOW WARNINGS", show: "SHOW WARNINGS LIMIT 1, 2"},
		{sql: "SELECT 1", show: "SHOW WARNINGS LIMIT 3"},
		{sql: "SELECT 1", show: "SHOW COUNT(*) WARNINGS"},
		// ... and is cleared by one naming a table.
		{sql: "SELECT id FROM w1 WHERE id < 0"},
		// Strings converted to numbers: 1292, a Note for trailing spaces;
		// as DOUBLE in arithmetic, DECIMAL against an integer, DOUBLE
		// against a DOUBLE.
		{sql: "SELECT 'abc' + 1, '1 ' + 0, '' + 0, '1e' + 0, '1.' + 0, ' 1' + 0, '0x10' + 0, '-' + 0, '1.5e-3x' * 2"},
		{sql: "SELECT 1 = 'x', 1.5e0 < 'y', 'z' < 2, 3 <> ' 3 '"},
		{sql: "SELECT id, s + 1, 2 = s, s < 3, f = s FROM w1 ORDER BY id"},
		// A constant string is converted once per statement.
		{sql: "SELECT id FROM w1 WHERE id = 'q'"},
		{sql: "SELECT id FROM w1 WHERE id > 'q1' ORDER BY id"},
		// CAST's truncation.
		{sql: "SELECT CAST('12abc' AS SIGNED), CAST('x' AS UNSIGNED), CAST(' 7 ' AS SIGNED)"},
		// GROUP_CONCAT cut at group_concat_max_len: 1260.
		{sql: "SET SESSION group_concat_max_len = 4"},
		{sql: "SELECT GROUP_CONCAT(s ORDER BY id) FROM w1"},
		{sql: "SET SESSION group_concat_max_len = 1048576"},
		// The error of a failed statement: Error level, MySQL's code.
		{sql: "SELECT * FROM no_such_table", fails: true, codesOnly: true},
		{sql: "SELECT 1", show: "SHOW ERRORS", codesOnly: true},
		{sql: "SELECT 1", show: "SHOW COUNT(*) ERRORS"},
		{sql: "SELECT nope FROM w1", fails: true, codesOnly: true},
		{sql: "SELEC 1", fails: true, codesOnly: true},
		// max_error_count keeps the first n; the count goes on.
		{sql: "SET max_error_count = 2", codesOnly: true},
		{sql: "SELECT 1/0, 2/0, 3/0, 'a' + 0"},
		{sql: "SET max_error_count = DEFAULT"},
		{sql: "SELECT 1/0, 2/0, 3/0, 'a' + 0"},
	}
	for _, st := range steps {
		myErr := runDrained(ctx, myc, st.sql)
		lcErr := runDrained(ctx, lcc, st.sql)
		if (myErr != nil) != st.fails || (lcErr != nil) != st.fails {
			t.Errorf("%s: MariaDB %v, lancecat %v (want failure: %v)", st.sql, myErr, lcErr, st.fails)
			continue
		}
		show := st.show
		if show == "" {
			show = "SHOW WARNINGS"
		}
		want := readDiag(ctx, t, myc, show, st.codesOnly)
		got := readDiag(ctx, t, lcc, show, st.codesOnly)
		if want.String() != got.String() {
			t.Errorf("%s; %s\n  MariaDB  %s\n  lancecat %s", st.sql, show, want, got)
		}
	}
}

// TestIgnoreWarningsMatchMariaDB runs INSERT IGNORE and LOAD DATA ...
// IGNORE with values the columns refuse and duplicate keys in both
// engines and compares the affected rows, the rows stored and SHOW
// WARNINGS: each bad value becomes the column's adjusted value with
// MariaDB's warning, each duplicate is skipped with 1062. lancecat raises
// a statement's value warnings before its duplicate warnings (it checks
// keys once all rows are built); MariaDB goes row by row, so where a
// duplicate comes before a bad value the warnings are compared as a set.
// Without IGNORE, in MariaDB's default STRICT_TRANS_TABLES, both fail and
// store nothing.
func TestIgnoreWarningsMatchMariaDB(t *testing.T) {
	ctx := context.Background()
	files := t.TempDir()
	my, lc := startBothWith(t, []string{"--secure-file-priv=" + files}, "&load_data_dir="+files)
	myc, lcc := oneConnEach(ctx, t, my, lc)
	// MariaDB's default sql_mode, strict for transactional tables.
	if _, err := myc.ExecContext(ctx, "SET sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION'"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE tj (id BIGINT PRIMARY KEY, a TINYINT, b INT NOT NULL, u INT UNSIGNED, s VARCHAR(10) NOT NULL, f DOUBLE NOT NULL)",
		"CREATE TABLE lt (id INT PRIMARY KEY, a TINYINT, b INT NOT NULL, c VARCHAR(10) UNIQUE)",
		"CREATE TABLE lk (id INT PRIMARY KEY, a TINYINT, s VARCHAR(10))",
	} {
		if _, err := myc.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
		if _, err := lcc.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	type step struct {
		sql   string
		fails bool
		asSet bool // compare the warnings as a set (see above)
		check string
	}
	steps := []step{
		{sql: "INSERT IGNORE INTO tj VALUES (1, '12abc', NULL, -5, NULL, NULL), (2, '1.5', 1, 1, 'a', 'x'), (3, ' 7 ', 1, 99999999999, 'b', '1.5x'), (2, 1, 1, 1, 'c', 1)", check: "SELECT * FROM tj ORDER BY id"},
		{sql: "INSERT IGNORE INTO tj VALUES (3, 5, 5, 5, 'z', 5), (9, 'q', -1e10, 3.7, 'y', '-'), (10, -129, 1, 1, 'w', ' 2 ')", asSet: true, check: "SELECT * FROM tj ORDER BY id"},
		{sql: "INSERT IGNORE INTO tj (id, a) VALUES (11, 1)", check: "SELECT * FROM tj ORDER BY id"},
		{sql: "INSERT INTO tj VALUES (20, 300, 1, 1, 'a', 1)", fails: true, check: "SELECT * FROM tj ORDER BY id"},
		{sql: "INSERT INTO tj VALUES (21, 'x', 1, 1, 'a', 1)", fails: true, check: "SELECT * FROM tj ORDER BY id"},
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' IGNORE INTO TABLE lt FIELDS TERMINATED BY ','", write("i1.csv", "1,x,\\N,a\n2,300,5,b\n3,12abc,4,c\n4, 7 ,1,d\n")), check: "SELECT * FROM lt ORDER BY id"},
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' IGNORE INTO TABLE lt FIELDS TERMINATED BY ','", write("i2.csv", "5,1,1,e\n1,2,2,f\n6,3,3,a\n")), check: "SELECT * FROM lt ORDER BY id"},
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE lt FIELDS TERMINATED BY ','", write("s1.csv", "7,300,1,g\n")), fails: true, check: "SELECT * FROM lt ORDER BY id"},
		// One key: the streamed REPLACE / IGNORE (planner/loadupsert.go).
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' IGNORE INTO TABLE lk FIELDS TERMINATED BY ','", write("k1.csv", "1,1,a\n2,2,b\n1,3,c\n3,4,d\n2,5,e\n")), check: "SELECT * FROM lk ORDER BY id"},
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' IGNORE INTO TABLE lk FIELDS TERMINATED BY ','", write("k2.csv", "4,300,f\n3,1,g\n5,x,h\n5,1,i\n")), asSet: true, check: "SELECT * FROM lk ORDER BY id"},
		{sql: fmt.Sprintf("LOAD DATA INFILE '%s' REPLACE INTO TABLE lk FIELDS TERMINATED BY ','", write("k3.csv", "2,20,j\n6,60,k\n6,61,l\n1,10,m\n7,70,n\n2,21,o\n")), check: "SELECT * FROM lk ORDER BY id"},
		{sql: "INSERT INTO lt VALUES (50, 1, 1, 'a')", fails: true, check: "SELECT * FROM lt ORDER BY id"},
		{sql: "INSERT IGNORE INTO lt VALUES (50, 1, 1, 'a'), (51, 1, 1, 'z')", check: "SELECT * FROM lt ORDER BY id"},
	}
	for _, st := range steps {
		rMy, errMy := myc.ExecContext(ctx, st.sql)
		rLc, errLc := lcc.ExecContext(ctx, st.sql)
		if (errMy != nil) != st.fails || (errLc != nil) != st.fails {
			t.Errorf("%s: MariaDB %v, lancecat %v (want failure: %v)", st.sql, errMy, errLc, st.fails)
			continue
		}
		if !st.fails {
			nMy, _ := rMy.RowsAffected()
			nLc, _ := rLc.RowsAffected()
			if nMy != nLc {
				t.Errorf("%s: affected rows MariaDB %d, lancecat %d", st.sql, nMy, nLc)
			}
			want := readDiag(ctx, t, myc, "SHOW WARNINGS", false)
			got := readDiag(ctx, t, lcc, "SHOW WARNINGS", false)
			if st.asSet {
				slices.Sort(want.rows)
				slices.Sort(got.rows)
			}
			if want.String() != got.String() {
				t.Errorf("%s\n  MariaDB  %s\n  lancecat %s", st.sql, want, got)
			}
		}
		if w, g := textRows(ctx, t, my, st.check), textRows(ctx, t, lc, st.check); w != g {
			t.Errorf("%s: rows differ\nMariaDB:\n%s\nlancecat:\n%s", st.sql, w, g)
		}
	}
}
