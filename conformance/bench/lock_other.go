//go:build !unix

package main

// lockFile is a no-op where flock is unavailable.
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
