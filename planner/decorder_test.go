package planner

import "testing"

// TestDecimalOrderInWindowsAndGroupConcat: a DECIMAL key of a window's
// ORDER BY / PARTITION BY and of GROUP_CONCAT's ORDER BY sorts as a number.
// DECIMAL values are their exact text, and both sorted them byte-wise
// ('7934.435' before '97.313', '-943.380' after '2.500'); found by the
// MariaDB differential test (conformance/mariadb, seed 1).
func TestDecimalOrderInWindowsAndGroupConcat(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE w (id BIGINT, g BIGINT, d DECIMAL(12,3))")
	f.exec("INSERT INTO w VALUES (1, 1, 97.313), (2, 1, 7934.435), (3, 2, -943.38), (4, 1, 2.5), (5, 2, NULL), (6, 2, 10.0)")
	cases := []struct{ sql, want string }{
		{"SELECT id, ROW_NUMBER() OVER (ORDER BY d) FROM w ORDER BY id", "1,5 | 2,6 | 3,2 | 4,3 | 5,1 | 6,4"},
		{"SELECT id, RANK() OVER (ORDER BY d DESC) FROM w ORDER BY id", "1,2 | 2,1 | 3,5 | 4,4 | 5,6 | 6,3"},
		{"SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY d) FROM w ORDER BY id", "1,2 | 2,3 | 3,2 | 4,1 | 5,1 | 6,3"},
		{"SELECT id, SUM(d) OVER (ORDER BY d ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w ORDER BY id", "1,107.313 | 2,8031.748 | 3,-943.380 | 4,-940.880 | 5,NULL | 6,12.500"},
		{"SELECT id, LAG(id) OVER (ORDER BY d + 1) FROM w ORDER BY id", "1,6 | 2,1 | 3,5 | 4,3 | 5,NULL | 6,4"},
		{"SELECT GROUP_CONCAT(d ORDER BY d), GROUP_CONCAT(DISTINCT d ORDER BY d DESC SEPARATOR ' ') FROM w",
			"-943.380,2.500,10.000,97.313,7934.435,7934.435 97.313 10.000 2.500 -943.380"},
		{"SELECT g, GROUP_CONCAT(id ORDER BY d DESC) FROM w GROUP BY g ORDER BY g", "1,2,1,4 | 2,6,3,5"},
	}
	for _, tc := range cases {
		if got := show(f.rows(tc.sql)); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}
