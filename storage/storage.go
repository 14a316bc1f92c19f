package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// ObjectInfo describes one stored object. Path is relative to the store root, slash-separated.
type ObjectInfo struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// Store is an object store rooted at a URI. All paths are relative to the root, slash-separated,
// with no leading slash and no "." or ".." segments (those are rejected with an error wrapping
// ErrInvalidPath).
type Store interface {
	// URI is the normalized root URI: file:///abs/dir, memory://name, s3://bucket/prefix,
	// gs://bucket/prefix, az://container/prefix. Open(URI()) reaches the same objects.
	URI() string
	// Location is the full URI of a path under the root. Open(Location(dir)) opens a store
	// rooted at that directory.
	Location(path string) string
	// Read returns the whole object. A missing object fails with ErrNotFound.
	Read(ctx context.Context, path string) ([]byte, error)
	// ReadRange returns exactly length bytes starting at offset. A range that does not lie
	// within the object fails with ErrOutOfRange; a missing object with ErrNotFound.
	ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error)
	// Stat describes one object. A missing object fails with ErrNotFound.
	Stat(ctx context.Context, path string) (ObjectInfo, error)
	// List returns every object under prefix (a directory prefix like "a/b/", or "" for all),
	// recursively, sorted by Path. A missing prefix lists nothing.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// ListDir lists one level of dir: the objects directly in it (sorted by Path) and the
	// names of its child directories (sorted).
	ListDir(ctx context.Context, dir string) (files []ObjectInfo, dirs []string, err error)
	// Put creates or replaces an object. Readers never see a torn object.
	// It keeps nothing of data once it returns (callers reuse the buffer).
	Put(ctx context.Context, path string, data []byte) error
	// PutIfAbsent creates an object only if it does not exist, atomically across processes.
	// It fails with an error wrapping ErrAlreadyExists when the object exists.
	PutIfAbsent(ctx context.Context, path string, data []byte) error
	// Delete removes an object. Deleting a missing object is not an error.
	Delete(ctx context.Context, path string) error
	// DeletePrefix deletes every object under prefix and returns how many it deleted.
	DeletePrefix(ctx context.Context, prefix string) (int, error)
	// Close releases the store. Operations after Close fail with ErrClosed.
	Close() error
}

// Sentinel errors. Match them with errors.Is.
var (
	ErrNotFound      = errors.New("storage: object not found")
	ErrAlreadyExists = errors.New("storage: object already exists")
	ErrInvalidPath   = errors.New("storage: invalid path")
	ErrReadOnly      = errors.New("storage: store is read-only")
	ErrOutOfRange    = errors.New("storage: range outside object")
	ErrClosed        = errors.New("storage: store is closed")
	ErrInvalidURI    = errors.New("storage: invalid URI")
	ErrInvalidOption = errors.New("storage: invalid storage option")
	// ErrSymlink: a local path to delete passes through a symbolic link;
	// deletes never follow one (it could lead out of the catalog root).
	ErrSymlink = errors.New("storage: path passes through a symbolic link")
	// ErrUnavailable: an object store could not be reached (a refused or dropped connection,
	// a network timeout) or answered with a server error (5xx, throttling) after the SDK's
	// retries; the same call may succeed later. Whether a failed write landed is unknown.
	ErrUnavailable = errors.New("storage: object store unavailable")
	// ErrDirRemoved: a put-if-absent lost its directory to a concurrent delete
	// (a DROP of the table being created) between writing the object and
	// publishing it. Nothing was published; the directory is not re-created,
	// which would resurrect part of what the delete removed.
	ErrDirRemoved = errors.New("storage: directory removed concurrently")
)

// Options configures Open.
type Options struct {
	// ReadOnly makes every mutation (Put, PutIfAbsent, Delete, DeletePrefix) fail with
	// ErrReadOnly before touching the store.
	ReadOnly bool
	// StorageOptions configures object-store access; see the package documentation for
	// the keys. They are LanceDB's storageOptions key names.
	StorageOptions map[string]string
	// Durability says when local-disk writes are fsynced (default DurabilityFull).
	Durability Durability
	// AzureBlockSize: on az:// an object larger than this is uploaded as staged blocks of
	// this size (Put Block) committed by one Put Block List, the request PutIfAbsent makes
	// conditional; smaller objects are one Put Blob, which Azure caps at 5,000 MiB.
	// 0 means DefaultAzureBlockSize.
	AzureBlockSize int64
}

// Open opens the store rooted at uri: a plain local path (relative or absolute), a file://
// URI, memory://name, s3://bucket/prefix, gs://bucket/prefix or az://container/prefix.
// Opening a local directory that does not exist yet succeeds; it is created on first write.
func Open(ctx context.Context, uri string, opts Options) (Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := open(ctx, uri, opts)
	if err != nil {
		// URIs, options and provider errors may carry secrets.
		return nil, RedactError(err)
	}
	if opts.ReadOnly {
		return readOnlyStore{s}, nil
	}
	return s, nil
}

func open(ctx context.Context, uri string, opts Options) (Store, error) {
	scheme, hasScheme := splitScheme(uri)
	if !hasScheme {
		if uri == "" {
			return nil, fmt.Errorf("%w: empty URI", ErrInvalidURI)
		}
		abs, err := filepath.Abs(uri)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInvalidURI, uri, err)
		}
		return newLocalStore(abs, opts.Durability), nil
	}
	switch scheme {
	case "file":
		dir, err := parseFileURI(uri)
		if err != nil {
			return nil, err
		}
		return newLocalStore(dir, opts.Durability), nil
	case "memory":
		name, prefix, err := parseBucketURI(uri, false)
		if err != nil {
			return nil, err
		}
		return openMemory(name, prefix)
	case "s3", "gs", "az":
		bucket, prefix, err := parseBucketURI(uri, true)
		if err != nil {
			return nil, err
		}
		so := normalizeOptions(opts.StorageOptions)
		switch scheme {
		case "s3":
			return openS3(ctx, bucket, prefix, so)
		case "gs":
			return openGCS(ctx, bucket, prefix, so)
		default:
			return openAzure(ctx, bucket, prefix, so, opts.AzureBlockSize)
		}
	default:
		return nil, fmt.Errorf("%w: unsupported scheme %q in %q", ErrInvalidURI, scheme, uri)
	}
}

// splitScheme splits "scheme://rest". A string without "://" (or with something that is not
// a URI scheme before it) is a plain path.
func splitScheme(uri string) (scheme string, ok bool) {
	i := strings.Index(uri, "://")
	if i <= 0 {
		return "", false
	}
	s := uri[:i]
	for j, c := range s {
		isAlpha := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !(isAlpha || (j > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

func parseFileURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidURI, uri, err)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%w: %q: file URIs must be file:///absolute/path", ErrInvalidURI, uri)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: %q: file URIs take no query or fragment", ErrInvalidURI, uri)
	}
	if !strings.HasPrefix(u.Path, "/") {
		return "", fmt.Errorf("%w: %q: file URIs must be file:///absolute/path", ErrInvalidURI, uri)
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), nil
}

// parseBucketURI splits scheme://bucket/prefix into bucket and a prefix that is either empty or
// ends with "/". The prefix is validated like a path.
func parseBucketURI(uri string, needBucket bool) (bucket, prefix string, err error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: %v", ErrInvalidURI, uri, err)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("%w: %q: no query, fragment or user info allowed", ErrInvalidURI, uri)
	}
	bucket = u.Host
	if needBucket && bucket == "" {
		return "", "", fmt.Errorf("%w: %q: missing bucket name", ErrInvalidURI, uri)
	}
	p := strings.Trim(u.Path, "/")
	if p != "" {
		if err := validatePath(p); err != nil {
			return "", "", fmt.Errorf("%w: %q: bad prefix: %v", ErrInvalidURI, uri, err)
		}
		prefix = p + "/"
	}
	return bucket, prefix, nil
}

// bucketURI renders scheme://bucket/prefix (prefix without its trailing slash).
func bucketURI(scheme, bucket, prefix string) string {
	u := url.URL{Scheme: scheme, Host: bucket}
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		u.Path = "/" + p
	}
	return u.String()
}

func joinLocation(root, path string) string {
	if path == "" {
		return root
	}
	u := url.URL{Path: path}
	esc := u.EscapedPath()
	if strings.HasSuffix(root, "/") {
		return root + esc
	}
	return root + "/" + esc
}

// validatePath checks an object path: non-empty, relative, slash-separated, no empty, "." or
// ".." segments, valid UTF-8, no NUL or backslash.
func validatePath(p string) error {
	if p == "" {
		return fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidPath, p)
	}
	if strings.ContainsAny(p, "\x00\\") {
		return fmt.Errorf("%w: %q contains a NUL byte or a backslash", ErrInvalidPath, p)
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("%w: %q has a leading slash", ErrInvalidPath, p)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w: %q has an empty segment", ErrInvalidPath, p)
		case ".", "..":
			return fmt.Errorf("%w: %q has a %q segment", ErrInvalidPath, p, seg)
		}
	}
	return nil
}

// validatePrefix checks a directory prefix and returns it normalized to "" or "dir/".
func validatePrefix(prefix string) (string, error) {
	if prefix == "" {
		return "", nil
	}
	p := strings.TrimSuffix(prefix, "/")
	if err := validatePath(p); err != nil {
		return "", err
	}
	return p + "/", nil
}

// isTempName reports whether a file name is one of the local store's temporary files.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix)
}

const tempSuffix = ".lancecat-tmp"

// readOnlyStore refuses every mutation.
type readOnlyStore struct{ Store }

func (r readOnlyStore) Put(ctx context.Context, path string, data []byte) error {
	return fmt.Errorf("put %q: %w", path, ErrReadOnly)
}

func (r readOnlyStore) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	return fmt.Errorf("put-if-absent %q: %w", path, ErrReadOnly)
}

func (r readOnlyStore) Delete(ctx context.Context, path string) error {
	return fmt.Errorf("delete %q: %w", path, ErrReadOnly)
}

func (r readOnlyStore) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	return 0, fmt.Errorf("delete prefix %q: %w", prefix, ErrReadOnly)
}

// checkRange validates a range request against an object size.
func checkRange(path string, offset, length, size int64) error {
	if offset < 0 || length < 0 {
		return fmt.Errorf("read %q: negative offset %d or length %d: %w", path, offset, length, ErrOutOfRange)
	}
	if offset > size || length > size-offset {
		return fmt.Errorf("read %q [%d, +%d): object has %d bytes: %w", path, offset, length, size, ErrOutOfRange)
	}
	return nil
}

// SymlinkChecker is implemented by stores whose paths can pass through
// symbolic links (the local store). Object stores have none.
type SymlinkChecker interface {
	// SymlinkOnPath returns the first component of path (store-relative,
	// from the root down, path itself included) that is a symbolic link,
	// or "" when there is none.
	SymlinkOnPath(ctx context.Context, path string) (string, error)
}

// LinkRemover is implemented by stores whose paths can be symbolic links
// (the local store).
type LinkRemover interface {
	// RemoveLink removes the symbolic link at path (store-relative) itself,
	// never following it: what it points to stays. It fails with an error
	// wrapping ErrNotFound when path is not a link, and with ErrSymlink when
	// a directory above it is one.
	RemoveLink(ctx context.Context, path string) error
}
