package driver_test

import (
	"errors"
	"strings"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
)

// The limits of the Safety section of the README, each a clear InvalidInput
// (never Internal, never an allocation of the size asked for).
func TestLimitsAreInvalidInput(t *testing.T) {
	db := openDB(t, "")
	mustExec(t, db, "CREATE SCHEMA ns; CREATE TABLE ns.v (a VECTOR(65536))")
	nulls := strings.Repeat("(NULL),", 1100) + "(NULL)"
	for _, q := range []string{
		// 17 GB for one NULL row before the limits.
		"CREATE TABLE ns.y (a VECTOR(2147483647))",
		"CREATE TABLE ns.y (a VECTOR(65537))",
		"CREATE TABLE ns.y (a DECIMAL(10,11))",
		// 1,101 rows of 256 KiB: beyond the per-statement budget.
		"INSERT INTO ns.v VALUES " + nulls,
		"SELECT '" + strings.Repeat("x", 16<<20) + "'",
		"CREATE TABLE ns.`" + strings.Repeat("n", 256) + "` (a INT)",
	} {
		_, err := db.Exec(q)
		if !errors.Is(err, lancecat.ErrInvalidInput) {
			short := q
			if len(short) > 80 {
				short = short[:80] + "..."
			}
			t.Errorf("%s: err = %v, want InvalidInput", short, err)
		}
	}
	// Below the limits the same shapes work.
	mustExec(t, db, "INSERT INTO ns.v VALUES "+strings.Repeat("(NULL),", 9)+"(NULL)")
}
