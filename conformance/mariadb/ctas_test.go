package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCreateTableAsSelectTypesMatchMariaDB runs CREATE TABLE ... AS SELECT
// over the same source table in MariaDB and in lancecat and compares
// DESCRIBE's Field, Type and Null of the new table, column by column, and
// the rows copied.
//
// Type is compared case-insensitively, with MariaDB's integer display width
// stripped (bigint(21) is MySQL 8's and lancecat's bigint).
//
// Not compared (lancecat differs on purpose, README "SQL"):
//   - A string computed by a function (UPPER(s), CONCAT(s, 'x')): MariaDB
//     sizes a VARCHAR from its arguments' lengths, lancecat's column is
//     TEXT (no length is tracked through functions). Only Null is compared.
//   - `/` divides as DOUBLE in lancecat (MySQL: DECIMAL with 4 more digits
//     of scale): the type is not compared.
//   - SUM over a DECIMAL column sums as DOUBLE in lancecat (MySQL:
//     DECIMAL(p+22,s)): the type is not compared.
func TestCreateTableAsSelectTypesMatchMariaDB(t *testing.T) {
	ctx := context.Background()
	my, lc := startBoth(t)
	execBoth(t, my, lc,
		"CREATE TABLE src (i INT NOT NULL, b BIGINT, d DECIMAL(10,2), dn DECIMAL(6,3) NOT NULL, s VARCHAR(20), f DOUBLE, dt DATETIME, dd DATE)",
		"INSERT INTO src VALUES (1, 10, 1.25, 2.500, 'ab', 0.5, '2024-01-02 03:04:05', '2024-01-02'), (2, NULL, NULL, -1.125, NULL, NULL, NULL, NULL)")
	type col struct {
		expr string
		// typeOff: only Null is compared (see above).
		typeOff bool
	}
	cols := []col{
		{expr: "i"},
		{expr: "d"},
		{expr: "CAST(d AS DECIMAL(20,4))"},
		{expr: "CAST(dn AS DECIMAL(20,4))"},
		{expr: "1"},
		{expr: "12345678901"},
		{expr: "'abc'"},
		{expr: "1.5"},
		{expr: "-2.25"},
		{expr: "d * 2"},
		{expr: "dn * 2"},
		{expr: "d + 1.25"},
		{expr: "dn - dn"},
		{expr: "d + i"},
		{expr: "dn * b"},
		{expr: "i + 1"},
		{expr: "b + 1"},
		{expr: "i * i"},
		{expr: "f * 2"},
		{expr: "i > 1"},
		{expr: "b > 1"},
		{expr: "COALESCE(b, 0)"},
		{expr: "CAST(i AS SIGNED)"},
		{expr: "UPPER(s)", typeOff: true},
		{expr: "CONCAT('x', 'y')", typeOff: true},
		{expr: "dd"},
		{expr: "d / 3", typeOff: true},
	}
	var sel []string
	for k, c := range cols {
		sel = append(sel, fmt.Sprintf("%s AS c%d", c.expr, k))
	}
	stmt := "CREATE TABLE dst AS SELECT " + strings.Join(sel, ", ") + " FROM src"
	execBoth(t, my, lc, stmt)
	want, err := describe(ctx, my, "dst")
	if err != nil {
		t.Fatalf("MariaDB DESCRIBE: %v", err)
	}
	got, err := describe(ctx, lc, "dst")
	if err != nil {
		t.Fatalf("lancecat DESCRIBE: %v", err)
	}
	if len(want) != len(cols) || len(got) != len(cols) {
		t.Fatalf("DESCRIBE dst: MariaDB %d columns, lancecat %d, want %d", len(want), len(got), len(cols))
	}
	for k, c := range cols {
		w, g := want[k], got[k]
		w[1] = intDisplayWidth.ReplaceAllString(strings.ToLower(w[1]), "$1")
		g[1] = strings.ToLower(g[1])
		if w[0] != g[0] || w[2] != g[2] || (!c.typeOff && w[1] != g[1]) {
			t.Errorf("%s: MariaDB %s %s NULL=%s, lancecat %s %s NULL=%s", c.expr, w[0], w[1], w[2], g[0], g[1], g[2])
		}
	}
	var exact []string
	for k, c := range cols {
		if !c.typeOff {
			exact = append(exact, fmt.Sprintf("c%d", k))
		}
	}
	compareQuery(t, my, lc, "SELECT "+strings.Join(exact, ", ")+" FROM dst ORDER BY c0", true)

	// Aggregates, a join and an outer join.
	execBoth(t, my, lc, "CREATE TABLE agg AS SELECT i, COUNT(*) AS n, SUM(d) AS sd, MAX(dn) AS mx, MIN(s) AS ms FROM src GROUP BY i")
	compareDescribe(t, ctx, my, lc, "agg", "sd")
	compareQuery(t, my, lc, "SELECT i, n, sd, mx, ms FROM agg ORDER BY i", true)
	execBoth(t, my, lc,
		"CREATE TABLE j AS SELECT a.i, b.dn, a.dn * b.i AS p, a.s = b.s AS eq FROM src AS a JOIN src AS b ON a.i = b.i",
		"CREATE TABLE lj AS SELECT a.i, b.i AS bi, b.dn + 1 AS dn1 FROM src AS a LEFT JOIN src AS b ON a.i = b.i + 1")
	compareDescribe(t, ctx, my, lc, "j")
	compareQuery(t, my, lc, "SELECT i, dn, p, eq FROM j ORDER BY i", true)
	compareDescribe(t, ctx, my, lc, "lj")
	compareQuery(t, my, lc, "SELECT i, bi, dn1 FROM lj ORDER BY i", true)
}

// compareDescribe compares DESCRIBE's Field, Type and Null of table in both
// engines; typeOff names columns whose Type is not compared.
func compareDescribe(t *testing.T, ctx context.Context, my, lc *sql.DB, table string, typeOff ...string) {
	t.Helper()
	want, err := describe(ctx, my, table)
	if err != nil {
		t.Fatalf("MariaDB DESCRIBE %s: %v", table, err)
	}
	got, err := describe(ctx, lc, table)
	if err != nil {
		t.Fatalf("lancecat DESCRIBE %s: %v", table, err)
	}
	if len(want) != len(got) {
		t.Fatalf("DESCRIBE %s: MariaDB %v, lancecat %v", table, want, got)
	}
	for k := range want {
		w, g := want[k], got[k]
		w[1] = intDisplayWidth.ReplaceAllString(strings.ToLower(w[1]), "$1")
		g[1] = strings.ToLower(g[1])
		if slices.Contains(typeOff, w[0]) {
			w[1], g[1] = "", ""
		}
		if w != g {
			t.Errorf("DESCRIBE %s: MariaDB %v, lancecat %v", table, w, g)
		}
	}
}

// describe returns DESCRIBE's Field, Type and Null of each column.
func describe(ctx context.Context, db *sql.DB, table string) ([][3]string, error) {
	r, err := queryCells(ctx, db, "DESCRIBE "+table)
	if err != nil {
		return nil, err
	}
	var out [][3]string
	for _, row := range r.rows {
		out = append(out, [3]string{row[0].text, row[1].text, row[2].text})
	}
	return out, nil
}
