package catalog

import (
	"errors"
	"strings"
	"testing"
)

// Finding 8 of issue #10: look-alike and invisible names, name lengths, and
// ".." as a path segment rather than a substring.
func TestNameRules(t *testing.T) {
	for _, name := range []string{
		"a\u200bb",          // zero-width space (Cf)
		"evil\u202etxt.exe", // right-to-left override (Cf)
		"\ufeffbom",         // byte order mark (Cf)
		"cafe\u0301",        // NFD twin of "café"
		strings.Repeat("n", MaxNameBytes+1),
	} {
		if err := ValidateName("table", name); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("ValidateName(%+q) = %v, want InvalidInput", name, err)
		}
	}
	for _, name := range []string{"café", "my..data", "..", "日本語", strings.Repeat("n", MaxNameBytes)} {
		if err := ValidateName("table", name); err != nil {
			t.Errorf("ValidateName(%+q) = %v, want nil", name, err)
		}
	}
	long := Ident{strings.Repeat("a", 120), strings.Repeat("b", 121)}
	if err := validateIdent("table", long); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("object id of %d bytes: %v, want InvalidInput", len(long.ObjectID()), err)
	}
	for _, loc := range []string{"my..data", "a/b..c", "x..", "..x"} {
		if err := validateLocation(loc); err != nil {
			t.Errorf("validateLocation(%q) = %v, want nil", loc, err)
		}
		if !removableDir(loc) {
			t.Errorf("removableDir(%q) = false: a table there could not be dropped", loc)
		}
	}
	for _, loc := range []string{"..", "../x", "a/../b", "a/..", `a\..\b`} {
		if err := validateLocation(loc); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("validateLocation(%q) = %v, want InvalidInput", loc, err)
		}
	}
}
