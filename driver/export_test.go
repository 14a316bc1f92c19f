package driver

// OpenHandles exposes the number of open catalog handles to the tests.
func OpenHandles() int { return openHandles() }
