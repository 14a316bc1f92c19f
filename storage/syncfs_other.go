//go:build !linux

package storage

// newFSSyncers: syncfs(2) is Linux only; elsewhere every path is fsynced.
func newFSSyncers() *fsSyncers { return nil }
