package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadDataMatchesMariaDB runs the same LOAD DATA statements over the
// same files in MariaDB (server files under --secure-file-priv) and in
// lancecat (load_data_dir) and compares the affected-row counts, whether
// the statement failed, and the rows it leaves: AUTO_INCREMENT ids,
// UNIQUE duplicates failing, REPLACE and IGNORE, LINES STARTING BY, and
// @variables with SET.
//
// Not compared: LOCAL (MariaDB turns duplicate errors into IGNORE for
// LOCAL; lancecat does not, see planner/load.go).
func TestLoadDataMatchesMariaDB(t *testing.T) {
	ctx := context.Background()
	files := t.TempDir()
	my, lc := startBothWith(t, []string{"--secure-file-priv=" + files}, "&load_data_dir="+files)
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	execBoth(t, my, lc,
		"CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT, code VARCHAR(10), n INT, PRIMARY KEY (id), UNIQUE KEY (code))",
		"CREATE TABLE p (s VARCHAR(10), n INT)",
		"CREATE TABLE u (a INT, b INT, c VARCHAR(20), d INT DEFAULT 9)")
	type step struct {
		file, text string
		stmt       string // %s is the file's path
		check      string // the query whose rows are compared after the statement
	}
	steps := []step{
		{"a.csv", "\\N,a,1\n0,b,2\n\\N,c,3\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','", "SELECT id, code, n FROM t ORDER BY id"},
		{"b.csv", "10,d,4\n\\N,e,5\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','", "SELECT id, code, n FROM t ORDER BY id"},
		{"mix.csv", "\\N,x1,1\n60,x2,2\n\\N,x3,3\n50,x4,4\n\\N,x5,5\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','", "SELECT id, code, n FROM t ORDER BY id"},
		{"c.csv", "f,6\ng,7\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)", "SELECT id, code, n FROM t ORDER BY id"},
		{"dup.csv", "h,8\ni,9\nh,10\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)", "SELECT id, code, n FROM t ORDER BY id"},
		{"dup2.csv", "j,8\na,9\n", "LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ',' (code, n)", "SELECT code, n FROM t ORDER BY code"},
		{"ign.csv", "2,b,20\n30,k,30\n31,k,31\n", "LOAD DATA INFILE '%s' IGNORE INTO TABLE t FIELDS TERMINATED BY ','", "SELECT id, code, n FROM t ORDER BY id"},
		{"rep.csv", "2,B,200\n40,a,40\n41,m,41\n41,M,42\n", "LOAD DATA INFILE '%s' REPLACE INTO TABLE t FIELDS TERMINATED BY ','", "SELECT id, code, n FROM t ORDER BY id"},
		{"p.txt", "xxx\"abc\",1\nsomething xxx\"def\",2\n\"ghi\",3\nxxx\"jkl\",4", "LOAD DATA INFILE '%s' INTO TABLE p FIELDS TERMINATED BY ',' ENCLOSED BY '\"' LINES STARTING BY 'xxx'", "SELECT s, n FROM p ORDER BY n"},
		{"h.txt", "skip me\nxxx\"mno\",5\n", "LOAD DATA INFILE '%s' INTO TABLE p FIELDS TERMINATED BY ',' ENCLOSED BY '\"' LINES STARTING BY 'xxx' IGNORE 1 LINES", "SELECT s, n FROM p ORDER BY n"},
		{"v.csv", "1,skip,2,x\n3,skip,4,\\N\n", "LOAD DATA INFILE '%s' INTO TABLE u FIELDS TERMINATED BY ',' (a, @skip, @b, @c) SET b = @b * 10 + a, c = CONCAT(COALESCE(@c, 'none'), '-', a)", "SELECT a, b, c, d FROM u ORDER BY a"},
		{"w.csv", "5,2.5\n6,7\n", "LOAD DATA INFILE '%s' INTO TABLE u FIELDS TERMINATED BY ',' (a, @x) SET b = @x * 3", "SELECT a, b, c, d FROM u ORDER BY a"},
	}
	for _, st := range steps {
		stmt := fmt.Sprintf(st.stmt, write(st.file, st.text))
		nMy, errMy := rowsAffected(ctx, my, stmt)
		nLc, errLc := rowsAffected(ctx, lc, stmt)
		if (errMy == nil) != (errLc == nil) {
			t.Fatalf("%s: MariaDB error %v, lancecat error %v", st.file, errMy, errLc)
		}
		if errMy == nil && nMy != nLc {
			t.Errorf("%s: affected rows MariaDB %d, lancecat %d", st.file, nMy, nLc)
		}
		want, got := textRows(ctx, t, my, st.check), textRows(ctx, t, lc, st.check)
		if want != got {
			t.Errorf("%s (error %v): rows differ\nMariaDB:\n%s\nlancecat:\n%s", st.file, errLc, want, got)
		}
	}
}

// textRows renders a query's rows as text, one line a row.
func textRows(ctx context.Context, t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			if v.Valid {
				b.WriteString(v.String)
			} else {
				b.WriteString("NULL")
			}
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
