// Package testenv decides what a test does when something it needs from outside Go is missing:
// the reference peer (node and the pinned @lancedb/lancedb), or an object-store emulator
// (versitygw, azurite, fake-gcs-server). On a developer's machine such a test skips, loudly;
// in CI (CI=true) or with LANCECAT_REQUIRE_PEER=1 it fails, so the suite cannot go green without
// the reference or the servers it claims to have tested against.
package testenv

import (
	"os"
	"testing"
)

// RequireEnv is the environment variable that turns a missing dependency into a test failure.
const RequireEnv = "LANCECAT_REQUIRE_PEER"

// Strict reports whether a missing peer or test server must fail the test instead of skipping
// it: LANCECAT_REQUIRE_PEER=1, or CI=true (as .ci/run runs).
func Strict() bool {
	return os.Getenv(RequireEnv) == "1" || os.Getenv("CI") == "true"
}

// Missing stops the test because what (e.g. "azurite") cannot run here for reason: a failure
// under Strict, a loud skip otherwise that says how to make it a failure.
func Missing(t testing.TB, what, reason string) {
	t.Helper()
	if Strict() {
		t.Fatalf("%s REQUIRED BUT UNAVAILABLE (%s=1 or CI=true): %s", what, RequireEnv, reason)
		return
	}
	t.Skipf("SKIPPING (%s unavailable): %s (set %s=1 to make this a failure)", what, reason, RequireEnv)
}
