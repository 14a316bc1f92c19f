package tpch

import (
	"context"
	"database/sql"
	"fmt"

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
		if _, err := db.ExecContext(ctx, t.DDL); err != nil {
			return fmt.Errorf("tpch: creating %s: %w", t.Name, err)
		}
		p := Path(dir, t.Name)
		if mariadb {
			mysql.RegisterLocalFile(p)
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s", p, t.Name)); err != nil {
			return fmt.Errorf("tpch: loading %s: %w", t.Name, err)
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

// MariaDBIndexes are the secondary indexes Load creates in MariaDB.
var MariaDBIndexes = []string{
	"CREATE INDEX l_supp_part ON lineitem (l_suppkey, l_partkey)",
	"CREATE INDEX o_cust ON orders (o_custkey)",
	"CREATE INDEX ps_supp ON partsupp (ps_suppkey)",
	"CREATE INDEX c_nation ON customer (c_nationkey)",
	"CREATE INDEX s_nation ON supplier (s_nationkey)",
}
