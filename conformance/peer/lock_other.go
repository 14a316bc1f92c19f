//go:build !unix

package peer

// lockFile is a no-op where flock is unavailable: parallel test binaries may then generate the
// same fixture twice (each into its own .partial directory; the last rename wins).
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
