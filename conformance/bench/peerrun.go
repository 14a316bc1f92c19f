package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lancecat/lancecat/conformance/peer"
)

// peerScript is the peer's side of the benchmarks, in conformance/peer (where
// node_modules is).
const peerScript = "bench-peer.mjs"

// runPeer runs `node bench-peer.mjs suite <args as JSON>` in conformance/peer
// and decodes its JSON result into out.
func runPeer(ctx context.Context, suite string, args any, out any) error {
	if err := peer.Available(); err != nil {
		return err
	}
	dir, err := peer.Dir()
	if err != nil {
		return err
	}
	argJSON, err := json.Marshal(args)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, peerScript), suite, string(argJSON))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var perr struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &perr) == nil && perr.Error != "" {
		return fmt.Errorf("peer %s: %s", suite, perr.Error)
	}
	if runErr != nil {
		return fmt.Errorf("peer %s: %w: %s", suite, runErr, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("peer %s: decode %q: %w", suite, stdout.String(), err)
	}
	return nil
}

// fixtureDir returns the generated fixture name from the shared fixture cache,
// generating it with the peer when it is missing (peer.Generated).
func fixtureDir(ctx context.Context, name string) (string, error) {
	return peer.Generated(name)
}
