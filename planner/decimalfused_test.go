package planner

import (
	"strings"
	"testing"
)

// TestFusedDecimalArithmetic: a +, -, * tree over DECIMAL and BIGINT
// columns and literals computed on the fused int64 path gives what the
// node-by-node path gives (fuseDecimals off),
// through NULLs, integers on both sides, an int64 overflow, more than 18
// digits and a product scale past the maximum.
func TestFusedDecimalArithmetic(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec(`CREATE TABLE d (p DECIMAL(15,2), q DECIMAL(15,2), r DECIMAL(30,20), i BIGINT, w DECIMAL(38,4))`)
	f.exec(`INSERT INTO d VALUES
		(12345.67, 0.05, 1.00000000000000000001, 7, 1.5),
		(NULL, 0.10, NULL, NULL, NULL),
		(-99999.99, -0.02, 3.5, -3, 12345678901234567890123456.1234),
		(9999999999999.99, 9999999999999.99, 0.00000000000000000002, 9223372036854775807, -0.0001),
		(0.00, 1.00, 2, 0, 0)`)
	exprs := []string{
		"p * (1 - q) * (1 + q)", "p + q", "p - q * 3", "p * i", "i - p", "q * r", "r + 1", "w * 2 - p",
		"r * r", "q * r * q", "p * 1.5 - i", "(p + q) * (p - q)",
	}
	for _, e := range exprs {
		q := "SELECT " + e + ", " + e + " > 0 FROM d"
		got := f.rows(q)
		fuseDecimals = false
		want := f.rows(q)
		fuseDecimals = true
		if len(got) != 5 {
			t.Fatalf("%s: %d rows", q, len(got))
		}
		if show(got) != show(want) {
			t.Errorf("%s\n fused       %s\n node by node %s", e, show(got), show(want))
		}
		if e == "p * (1 - q) * (1 + q)" && !strings.HasPrefix(show(got), "12314.805825") {
			t.Errorf("%s: %s", e, show(got))
		}
	}
}
