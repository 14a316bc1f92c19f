package mariadb

import (
	"context"
	"testing"
)

// TestDateWarningsMatchMariaDB: date functions given text that is no date
// or datetime return NULL with MariaDB's 1292 "Incorrect datetime value",
// one per bad argument, compared with MariaDB's SHOW WARNINGS.
func TestDateWarningsMatchMariaDB(t *testing.T) {
	my, lc := startBoth(t)
	ctx := context.Background()
	myc, lcc := oneConnEach(ctx, t, my, lc)
	for _, s := range []string{
		"SELECT DATE('2020-13-45')",
		"SELECT YEAR('bad'), MONTH('2020-13-01'), DAYOFWEEK('x'), TO_DAYS('nope')",
		"SELECT LAST_DAY('2020-02-30'), DAYNAME('2021-04-31')",
		"SELECT DATE_ADD('x', INTERVAL 1 DAY), DATE_SUB('2020-00-10', INTERVAL 1 MONTH)",
		"SELECT DATEDIFF('bad', '2020-01-01'), DATEDIFF('2020-01-01', 'worse')",
		"SELECT DATE_FORMAT('nope', '%Y')",
		"SELECT UNIX_TIMESTAMP('bad')",
		"SELECT YEAR('2020-06-01'), DATE('2020-06-01 10:00:00'), DATEDIFF('2020-01-02', '2020-01-01')",
	} {
		if err := runDrained(ctx, myc, s); err != nil {
			t.Fatalf("MariaDB %s: %v", s, err)
		}
		if err := runDrained(ctx, lcc, s); err != nil {
			t.Fatalf("lancecat %s: %v", s, err)
		}
		want := readDiag(ctx, t, myc, "SHOW WARNINGS", false)
		got := readDiag(ctx, t, lcc, "SHOW WARNINGS", false)
		if want.String() != got.String() {
			t.Errorf("%s; SHOW WARNINGS\n  MariaDB  %s\n  lancecat %s", s, want, got)
		}
	}
}
