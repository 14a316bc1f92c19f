package dataset

import (
	"errors"
	"fmt"
)

// Errors. Match them with errors.Is.
var (
	// ErrNotFound: there is no dataset (no version file) at the location.
	ErrNotFound = errors.New("dataset: not found")
	// ErrVersionNotFound: the dataset exists but not the requested version.
	ErrVersionNotFound = errors.New("dataset: version not found")
	// ErrAlreadyExists: Create found a dataset at the location.
	ErrAlreadyExists = errors.New("dataset: already exists")
	// ErrCommitConflict: another writer committed the version this write
	// was built for. Reopen the latest version and retry.
	ErrCommitConflict = errors.New("dataset: commit conflict")
	// ErrCorrupt: a manifest, transaction or deletion file is malformed.
	ErrCorrupt = errors.New("dataset: corrupt file")
	// ErrUnsupported: the dataset uses a feature this implementation cannot
	// read (unknown reader feature flag, data overlays, ...).
	ErrUnsupported = errors.New("dataset: unsupported feature")
	// ErrReadOnlyFeature: the dataset uses a feature this implementation
	// cannot write (unknown writer feature flag, stable row ids, multiple
	// base paths); reads still work.
	ErrReadOnlyFeature = errors.New("dataset: cannot write dataset with this feature")
	// ErrInvalidArgument: a bad request (unknown column, schema mismatch, ...).
	ErrInvalidArgument = errors.New("dataset: invalid argument")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}
