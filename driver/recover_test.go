package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// A panic under a statement becomes an Internal error that names the
// statement, not a crash of the host program.
func TestRecoverAsError(t *testing.T) {
	run := func() (err error) {
		defer recoverAsError(&err, sqlparse.Pos{Line: 2, Column: 1}, "SELECT boom FROM ns.t")
		var m map[string]int
		m["x"] = 1 // nil map write: a runtime panic
		return nil
	}
	err := run()
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if !errors.Is(err, catalog.ErrInternal) || de.Line != 2 || !strings.Contains(de.Message, "SELECT boom FROM ns.t") {
		t.Fatalf("err = %+v, want Internal at line 2 naming the statement", de)
	}
	if strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("stack shown to the user: %v", err)
	}
}
