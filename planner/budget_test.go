package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestValueBudget: CONCAT checks its result's size against
// Options.MaxValueBytes before building it. SELECT LENGTH(CONCAT(body x
// 100)) used to build 800 MB strings from a 500-byte statement.
func TestValueBudget(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE b (body VARCHAR(1000000))")
	f.exec("INSERT INTO b VALUES ('" + strings.Repeat("x", 800_000) + "')")
	q := "SELECT LENGTH(CONCAT(" + strings.TrimSuffix(strings.Repeat("body, ", 100), ", ") + ")) FROM b"
	_, err := f.try(q)
	if !errors.Is(err, ErrValueTooLarge) || !errors.Is(err, catalog.ErrInvalidInput) {
		t.Fatalf("80 MB CONCAT: %v, want ErrValueTooLarge", err)
	}
	if got := f.rows("SELECT LENGTH(CONCAT(body, body)) FROM b"); got[0][0] != int64(1_600_000) {
		t.Errorf("1.6 MB CONCAT = %v", got)
	}
	small := newDataFixture(t, Options{MaxValueBytes: 10})
	if _, err := small.try("SELECT CONCAT('12345', '678901')"); !errors.Is(err, ErrValueTooLarge) {
		t.Errorf("11 bytes over a budget of 10: %v", err)
	}
	if got := small.rows("SELECT CONCAT('12345', '67890')"); got[0][0] != "1234567890" {
		t.Errorf("10 bytes in a budget of 10: %v", got)
	}
}
