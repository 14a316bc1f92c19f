package tpch

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Load creates the tables in db and loads the files Generate wrote to dir,
// one LOAD DATA LOCAL INFILE per table. In lancecat (whose handle must
// have load_data_dir=dir) that is the fast write path: the file's rows are
// parsed into Arrow record batches, written as data files as each batch
// fills, and published by one commit per table. In MariaDB the files are
// registered with the Go MySQL driver's LOCAL INFILE allow-list, and the
// foreign-key columns get secondary indexes (MariaDBIndexes), as TPC-H
// allows: without them MariaDB answers Q13 and Q20 by nested loops (68 s
// and 161 s at SF 0.1). lineitem's leads with l_suppkey: one leading with
// l_partkey made MariaDB drive Q14 from part through it.
func Load(ctx context.Context, db *sql.DB, dir string, mariadb bool) error {
	for _, t := range Tables {
		p := Path(dir, t.Name)
		if mariadb {
			if _, err := db.ExecContext(ctx, t.DDL); err != nil {
				return fmt.Errorf("tpch: creating %s: %w", t.Name, err)
			}
			mysql.RegisterLocalFile(p)
			if _, err := db.ExecContext(ctx, fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s", p, t.Name)); err != nil {
				return fmt.Errorf("tpch: loading %s: %w", t.Name, err)
			}
			continue
		}
		parts, err := splitLines(p, loadPartRows)
		if err != nil {
			return fmt.Errorf("tpch: loading %s: %w", t.Name, err)
		}
		ddl := t.DDL
		if len(parts) > 1 {
			ddl = withoutPrimaryKey(ddl)
		}
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("tpch: creating %s: %w", t.Name, err)
		}
		for _, part := range parts {
			_, err := db.ExecContext(ctx, fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s", part, t.Name))
			if part != p {
				os.Remove(part)
			}
			if err != nil {
				return fmt.Errorf("tpch: loading %s: %w", t.Name, err)
			}
		}
	}
	if mariadb {
		for _, ix := range MariaDBIndexes {
			if _, err := db.ExecContext(ctx, ix); err != nil {
				return fmt.Errorf("tpch: %s: %w", ix, err)
			}
		}
		for _, t := range Tables {
			// Fresh statistics for the optimizer.
			if _, err := db.ExecContext(ctx, "ANALYZE TABLE "+t.Name); err != nil {
				return fmt.Errorf("tpch: ANALYZE TABLE %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// loadPartRows is the most rows one LOAD DATA reads into lancecat, and the
// most a table with a primary key may hold: lancecat checks the keys of a
// load against the table's in memory, within the planner's MaxRows
// (1,000,000). So from SF 1 on orders and lineitem are created without
// their primary key (Lance's is unenforced, and no query plan uses it) and
// loaded in parts (files of their own beside the table's, removed once
// loaded).
const loadPartRows = 1_000_000

// withoutPrimaryKey is a CREATE TABLE of Tables without its PRIMARY KEY
// clause (the last one).
func withoutPrimaryKey(ddl string) string {
	i := strings.LastIndex(ddl, ",\n  PRIMARY KEY")
	if i < 0 {
		return ddl
	}
	return ddl[:i] + ")"
}

// splitLines returns path itself when it has at most n lines, else the
// files (path.1, path.2, ...) it split into, of n lines each.
func splitLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var parts []string
	var w *bufio.Writer
	var out *os.File
	closePart := func() error {
		if out == nil {
			return nil
		}
		err := w.Flush()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		out = nil
		return err
	}
	lines := 0
	for {
		l, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s: a line past %d bytes", path, r.Size())
		}
		if len(l) > 0 {
			if lines%n == 0 {
				if cerr := closePart(); cerr != nil {
					return nil, cerr
				}
				name := fmt.Sprintf("%s.%d", path, len(parts)+1)
				if out, err = os.Create(name); err != nil {
					return nil, err
				}
				w = bufio.NewWriterSize(out, 1<<20)
				parts = append(parts, name)
			}
			w.Write(l)
			lines++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			closePart()
			return nil, err
		}
	}
	if err := closePart(); err != nil {
		return nil, err
	}
	if len(parts) <= 1 {
		for _, p := range parts {
			os.Remove(p)
		}
		return []string{path}, nil
	}
	return parts, nil
}

// MariaDBIndexes are the secondary indexes Load creates in MariaDB.
var MariaDBIndexes = []string{
	"CREATE INDEX l_supp_part ON lineitem (l_suppkey, l_partkey)",
	"CREATE INDEX o_cust ON orders (o_custkey)",
	"CREATE INDEX ps_supp ON partsupp (ps_suppkey)",
	"CREATE INDEX c_nation ON customer (c_nationkey)",
	"CREATE INDEX s_nation ON supplier (s_nationkey)",
}
