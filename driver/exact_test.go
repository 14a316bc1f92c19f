package driver_test

import (
	"math"
	"testing"
)

// TestUint64PlaceholderRoundTrip: a uint64 argument above MaxInt64 comes
// back as that uint64 (it came back as the float64 1.8446744073709552e+19),
// and a DECIMAL literal as its exact text.
func TestUint64PlaceholderRoundTrip(t *testing.T) {
	db := openDB(t, "")
	var got any
	if err := db.QueryRow("SELECT ?", uint64(math.MaxUint64)).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if u, ok := got.(uint64); !ok || u != math.MaxUint64 {
		t.Errorf("SELECT ? with uint64 max = %#v, want uint64(18446744073709551615)", got)
	}
	var s string
	if err := db.QueryRow("SELECT 18446744073709551615, 12345678901234567890.123456789").Scan(&s, new(string)); err != nil {
		t.Fatal(err)
	}
	if s != "18446744073709551615" {
		t.Errorf("SELECT 18446744073709551615 printed %s", s)
	}
	var d string
	if err := db.QueryRow("SELECT 12345678901234567890.123456789 + 1").Scan(&d); err != nil {
		t.Fatal(err)
	}
	if d != "12345678901234567891.123456789" {
		t.Errorf("decimal arithmetic printed %s", d)
	}
}
