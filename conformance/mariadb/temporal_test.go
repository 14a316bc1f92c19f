package mariadb

import "testing"

// TestTemporalNumericMatchesMariaDB: a DATE, DATETIME or TIMESTAMP in a
// numeric context is its number (YYYYMMDD, YYYYMMDDhhmmss, midnight
// included) in arithmetic, unary minus, CAST to SIGNED and DECIMAL, and in
// SUM and AVG, as MariaDB computes them; SUM and AVG of integers are
// exact DECIMALs (4 decimals for AVG).
func TestTemporalNumericMatchesMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	execBoth(t, my, lc,
		"CREATE TABLE tn (id BIGINT NOT NULL, k INT, dt DATE, ts DATETIME, PRIMARY KEY (id))",
		"INSERT INTO tn VALUES (1, 1, '2024-01-02', '2024-01-02 03:04:05'), (2, 2, '2024-01-03', '2024-01-03 00:00:00'), "+
			"(3, 27, NULL, NULL), (4, 9, '1999-12-31', '2000-02-29 23:59:59'), (5, NULL, '2024-02-01', '2024-02-01 10:00:00')",
	)
	for _, q := range []string{
		"SELECT id, ts + 0, dt + 0, ts * 1, dt - 1, -ts, -dt, ts DIV 2, ts % 7, dt % 100 FROM tn ORDER BY id",
		"SELECT id, CAST(ts AS SIGNED), CAST(dt AS SIGNED), CAST(ts AS UNSIGNED), CAST(ts AS DECIMAL(20,2)), CAST(dt AS DECIMAL(10,1)) FROM tn ORDER BY id",
		"SELECT id, ts + 0.5, dt * 1.5, ts + 1e0, ts - dt, dt + k FROM tn ORDER BY id",
		"SELECT id FROM tn WHERE dt + 0 > 20240101 AND ts + 0 < 20240201000000 ORDER BY id",
		"SELECT SUM(dt), AVG(dt), SUM(ts), AVG(ts), SUM(dt + 0), AVG(ts * 1) FROM tn",
		"SELECT k > 1, SUM(dt), AVG(ts) FROM tn GROUP BY k > 1 ORDER BY 1",
		"SELECT id, SUM(dt) OVER (ORDER BY id), AVG(k) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM tn ORDER BY id",
		"SELECT SUM(k), AVG(k), SUM(id), AVG(id), AVG(-k), SUM(k > 1) FROM tn",
		"SELECT CAST(DATE_ADD('2024-01-01', INTERVAL 1 DAY) AS DOUBLE), CAST(DATE_SUB('2024-01-01', INTERVAL 1 HOUR) AS DECIMAL(20,2)), CAST(DATE_ADD('2024-01-01', INTERVAL 1 DAY) AS SIGNED)",
		"SELECT DATE_ADD('2024-01-01', INTERVAL id DAY) + 0, -DATE_SUB('2024-01-01 00:00:00', INTERVAL id SECOND), ADDDATE('2024-01-01', id) * 2, DATE_ADD('2024-01-01', INTERVAL id DAY) FROM tn ORDER BY id",
		"SELECT DATE_ADD(dt, INTERVAL 1 DAY) + 0, DATE_ADD(ts, INTERVAL 1 HOUR) + 0, (SELECT MAX(ts) FROM tn) + 0 FROM tn ORDER BY id",
	} {
		compareQuery(t, my, lc, q, false)
	}
}
