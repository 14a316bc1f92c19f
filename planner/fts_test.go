package planner

import (
	"errors"
	"testing"

	"github.com/lancecat/lancecat/catalog"
)

// TestBooleanModeQuery: MySQL's boolean-mode operators map onto Lance's
// query types; the operators lancecat does not map are refused.
func TestBooleanModeQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"+buffer -read", `boolean(MUST match("buffer", OR), MUST_NOT match("read", OR))`},
		{`"zero value" goroutine*`, `boolean(SHOULD phrase("zero value"), SHOULD prefix("goroutine"))`},
		{`+"returns an error"  file`, `boolean(MUST phrase("returns an error"), SHOULD match("file", OR))`},
	} {
		q, err := booleanModeQuery(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if q.String() != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, q, tc.want)
		}
	}
	for _, bad := range []string{">more <less", "(grouped)", `"open`} {
		_, err := booleanModeQuery(bad)
		var ce *catalog.Error
		if !errors.As(err, &ce) {
			t.Errorf("%q: %v, want a catalog error", bad, err)
		}
	}
}
