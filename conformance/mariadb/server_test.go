package mariadb

import (
	"context"
	"errors"
	"testing"
)

// TestStartWithoutServer: without the programs Start fails with
// ErrNotInstalled (which startMariaDB turns into a failure on CI).
func TestStartWithoutServer(t *testing.T) {
	t.Setenv("LANCECAT_MARIADB_BIN", t.TempDir())
	if _, err := Start(context.Background(), t.TempDir()); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Start: %v, want ErrNotInstalled", err)
	}
	t.Setenv("CI", "true")
	if !Required() {
		t.Error("Required() is false under CI=true")
	}
	t.Setenv("CI", "")
	t.Setenv("LANCECAT_REQUIRE_MARIADB", "")
	if Required() {
		t.Error("Required() is true outside CI")
	}
}
