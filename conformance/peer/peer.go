// Package peer runs the reference implementation of Lance (Rust Lance bundled in the pinned
// @lancedb/lancedb Node package under conformance/peer) for lancecat's conformance tests, and
// provides the fixtures those tests are proven on.
//
// Tests call Require to skip (or, with LANCECAT_REQUIRE_PEER=1 or CI=true, fail) when node or the installed
// node_modules are missing; Op runs one peer.mjs operation; Dump prints the peer's read of a
// dataset (JSONL.md); Fixture and FixtureCopy hand out peer-written fixtures.
package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lancecat/lancecat/internal/testenv"
)

// RequireEnv is the environment variable that turns a missing peer into a test failure.
const RequireEnv = testenv.RequireEnv

// ErrUnavailable is wrapped by Available's error when the peer cannot run here.
var ErrUnavailable = errors.New("reference peer unavailable")

// Error is an operation the peer ran and refused; Message is the peer's own error text.
type Error struct {
	Op      string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("peer %s: %s", e.Op, e.Message) }

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// RepoRoot returns the directory holding lancecat's go.mod.
func RepoRoot() (string, error) {
	rootOnce.Do(func() {
		var starts []string
		if _, file, _, ok := runtime.Caller(0); ok {
			starts = append(starts, filepath.Dir(file))
		}
		if wd, err := os.Getwd(); err == nil {
			starts = append(starts, wd)
		}
		for _, s := range starts {
			if d, ok := findGoMod(s); ok {
				rootDir = d
				return
			}
		}
		rootErr = errors.New("peer: cannot find the repository root (go.mod) from the source file or working directory")
	})
	return rootDir, rootErr
}

func findGoMod(dir string) (string, bool) {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.Contains(data, []byte("module github.com/lancecat/lancecat")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Dir returns conformance/peer, where the Node scripts and node_modules live.
func Dir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "conformance", "peer"), nil
}

// Available reports whether the peer can run: node on PATH and the pinned node_modules installed.
// The error wraps ErrUnavailable.
func Available() error {
	dir, err := Dir()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("%w: node not found on PATH (%v); install Node.js >= 20 and run `npm ci` in %s", ErrUnavailable, err, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@lancedb", "lancedb", "package.json")); err != nil {
		return fmt.Errorf("%w: %s/node_modules/@lancedb/lancedb is missing; run `npm ci` in %s", ErrUnavailable, dir, dir)
	}
	return nil
}

// Require skips the test, loudly, when the peer is unavailable; with LANCECAT_REQUIRE_PEER=1
// or CI=true in the environment (testenv.Strict) it fails the test instead.
func Require(t testing.TB) {
	t.Helper()
	err := Available()
	if err == nil {
		return
	}
	if testenv.Strict() {
		t.Fatal("PEER REQUIRED BUT UNAVAILABLE (" + RequireEnv + "=1): " + err.Error())
		return
	}
	t.Skip("PEER TESTS SKIPPED: " + err.Error() + " (set " + RequireEnv + "=1 to make this a failure)")
}

// Run runs `node <script> args...` in conformance/peer and returns its stdout. A non-zero exit
// yields an error carrying stderr; stdout is returned as well. It calls Require first.
func Run(ctx context.Context, t testing.TB, script string, args ...string) ([]byte, error) {
	t.Helper()
	Require(t)
	return run(ctx, script, args...)
}

func run(ctx context.Context, script string, args ...string) ([]byte, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("peer: node %s %s: %w: %s", script, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// Op runs one peer.mjs operation with args (marshalled to JSON) and decodes its JSON result into
// out (nil: discard). Numbers decode as json.Number when out holds interface values. A refusal by
// the peer is returned as *Error with the peer's message.
func Op(ctx context.Context, t testing.TB, op string, args any, out any) error {
	t.Helper()
	Require(t)
	if args == nil {
		args = map[string]any{}
	}
	argJSON, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("peer %s: marshal args: %w", op, err)
	}
	stdout, runErr := run(ctx, "peer.mjs", op, string(argJSON))
	if runErr != nil {
		var perr struct {
			Op    string `json:"op"`
			Error string `json:"error"`
		}
		if json.Unmarshal(bytes.TrimSpace(stdout), &perr) == nil && perr.Error != "" {
			return &Error{Op: op, Message: perr.Error}
		}
		return runErr
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("peer %s: decode result %q: %w", op, truncate(stdout, 200), err)
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
