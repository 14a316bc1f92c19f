package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"
)

// blobStore is a Store over a gocloud blob.Bucket, rooted at a key prefix.
type blobStore struct {
	bucket      *blob.Bucket
	prefix      string // "" or "dir/"
	uri         string
	closeBucket bool // false for shared memory buckets
	closed      atomic.Bool
	// azure is the container client of an az:// store: PutIfAbsent goes through it (azure_put.go).
	azure *container.Client
	// azureBlockSize: larger objects are uploaded in staged blocks (azure_put.go).
	azureBlockSize int64
}

// deleteWorkers bounds the concurrent requests of DeletePrefix.
const deleteWorkers = 16

var writeOpts = blob.WriterOptions{ContentType: "application/octet-stream"}

func (s *blobStore) URI() string { return s.uri }

func (s *blobStore) Location(path string) string { return joinLocation(s.uri, path) }

func (s *blobStore) Close() error {
	if s.closed.Swap(true) || !s.closeBucket {
		return nil
	}
	return s.bucket.Close()
}

func (s *blobStore) check(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

// key validates path and returns its bucket key.
func (s *blobStore) key(ctx context.Context, op, path string) (string, error) {
	if err := s.check(ctx); err != nil {
		return "", err
	}
	if err := validatePath(path); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return s.prefix + path, nil
}

// wrap maps a gocloud error to the package's sentinels where one applies.
func wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	// Provider errors quote request URLs, which may carry SAS signatures.
	if gcerrors.Code(err) == gcerrors.NotFound {
		return RedactError(fmt.Errorf("%s %q: %w (%v)", op, path, ErrNotFound, err))
	}
	if unavailable(err) {
		return RedactError(fmt.Errorf("%s %q: %w: %w", op, path, ErrUnavailable, err))
	}
	return RedactError(fmt.Errorf("%s %q: %w", op, path, err))
}

// unavailable reports whether a provider error says the service could not be reached or failed
// on its side (not a refusal of the request, not the caller's cancellation).
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.ResourceExhausted, gcerrors.Internal:
		return true
	}
	if status := httpStatus(err); status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout {
		return true
	}
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || (errors.As(err, &ne) && ne.Timeout()) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

func (s *blobStore) Read(ctx context.Context, path string) ([]byte, error) {
	key, err := s.key(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	data, err := s.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, wrap("read", path, err)
	}
	return data, nil
}

func (s *blobStore) ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error) {
	key, err := s.key(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	if offset < 0 || length < 0 {
		return nil, checkRange(path, offset, length, 0)
	}
	if length == 0 {
		attrs, err := s.bucket.Attributes(ctx, key)
		if err != nil {
			return nil, wrap("read", path, err)
		}
		if err := checkRange(path, offset, 0, attrs.Size); err != nil {
			return nil, err
		}
		return []byte{}, nil
	}
	r, err := s.bucket.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, wrap("read", path, err)
		}
		// Services refuse a range that starts past the end (S3: 416); report it as such.
		if attrs, aerr := s.bucket.Attributes(ctx, key); aerr == nil {
			if rerr := checkRange(path, offset, length, attrs.Size); rerr != nil {
				return nil, rerr
			}
		}
		return nil, wrap("read", path, err)
	}
	defer r.Close()
	if err := checkRange(path, offset, length, r.Size()); err != nil {
		return nil, err
	}
	buf := make([]byte, length)
	n, err := io.ReadFull(r, buf)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %q [%d, +%d): got %d bytes: %w", path, offset, length, n, ErrOutOfRange)
		}
		return nil, wrap("read", path, err)
	}
	return buf, nil
}

func (s *blobStore) Stat(ctx context.Context, path string) (ObjectInfo, error) {
	key, err := s.key(ctx, "stat", path)
	if err != nil {
		return ObjectInfo{}, err
	}
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return ObjectInfo{}, wrap("stat", path, err)
	}
	return ObjectInfo{Path: path, Size: attrs.Size, ModTime: attrs.ModTime}, nil
}

// listKeys iterates over the bucket below the store prefix plus p.
func (s *blobStore) listKeys(ctx context.Context, p, delimiter string, visit func(*blob.ListObject)) error {
	it := s.bucket.List(&blob.ListOptions{Prefix: s.prefix + p, Delimiter: delimiter})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		visit(obj)
	}
}

func (s *blobStore) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	p, err := validatePrefix(prefix)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	var out []ObjectInfo
	err = s.listKeys(ctx, p, "", func(o *blob.ListObject) {
		// Keys ending in "/" are directory markers some tools create, not objects.
		if o.IsDir || strings.HasSuffix(o.Key, "/") {
			return
		}
		out = append(out, ObjectInfo{Path: strings.TrimPrefix(o.Key, s.prefix), Size: o.Size, ModTime: o.ModTime})
	})
	if err != nil {
		return nil, wrap("list", prefix, err)
	}
	slices.SortFunc(out, func(a, b ObjectInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

func (s *blobStore) ListDir(ctx context.Context, dir string) ([]ObjectInfo, []string, error) {
	if err := s.check(ctx); err != nil {
		return nil, nil, err
	}
	p, err := validatePrefix(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list dir: %w", err)
	}
	full := s.prefix + p
	var files []ObjectInfo
	var dirs []string
	err = s.listKeys(ctx, p, "/", func(o *blob.ListObject) {
		name := strings.TrimPrefix(o.Key, full)
		switch {
		case o.IsDir:
			if name = strings.TrimSuffix(name, "/"); name != "" {
				dirs = append(dirs, name)
			}
		case name == "" || strings.HasSuffix(name, "/"):
			// directory marker
		default:
			files = append(files, ObjectInfo{Path: p + name, Size: o.Size, ModTime: o.ModTime})
		}
	})
	if err != nil {
		return nil, nil, wrap("list dir", dir, err)
	}
	slices.SortFunc(files, func(a, b ObjectInfo) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	return files, dirs, nil
}

func (s *blobStore) Put(ctx context.Context, path string, data []byte) error {
	key, err := s.key(ctx, "put", path)
	if err != nil {
		return err
	}
	if s.azure != nil {
		return azurePut(ctx, s.azure, key, path, data, false, s.azureBlockSize)
	}
	opts := writeOpts
	return wrap("put", path, s.bucket.WriteAll(ctx, key, data, &opts))
}

func (s *blobStore) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	key, err := s.key(ctx, "put-if-absent", path)
	if err != nil {
		return err
	}
	if s.azure != nil {
		return azurePut(ctx, s.azure, key, path, data, true, s.azureBlockSize)
	}
	opts := writeOpts
	opts.IfNotExist = true
	err = s.bucket.WriteAll(ctx, key, data, &opts)
	if err == nil {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return RedactError(fmt.Errorf("put-if-absent %q: %w (%v)", path, ErrAlreadyExists, err))
	}
	return wrap("put-if-absent", path, err)
}

func (s *blobStore) Delete(ctx context.Context, path string) error {
	key, err := s.key(ctx, "delete", path)
	if err != nil {
		return err
	}
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return wrap("delete", path, err)
	}
	return nil
}

func (s *blobStore) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	p, err := validatePrefix(prefix)
	if err != nil {
		return 0, fmt.Errorf("delete prefix: %w", err)
	}
	var keys []string
	objects := 0
	err = s.listKeys(ctx, p, "", func(o *blob.ListObject) {
		if o.IsDir {
			return
		}
		keys = append(keys, o.Key)
		if !strings.HasSuffix(o.Key, "/") {
			objects++
		}
	})
	if err != nil {
		return 0, wrap("delete prefix", prefix, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		deleted  int
		wg       sync.WaitGroup
	)
	work := make(chan string)
	for range min(deleteWorkers, len(keys)) {
		wg.Go(func() {
			for key := range work {
				err := s.bucket.Delete(ctx, key)
				mu.Lock()
				switch {
				case err == nil || gcerrors.Code(err) == gcerrors.NotFound:
					if !strings.HasSuffix(key, "/") {
						deleted++
					}
				case firstErr == nil:
					firstErr = wrap("delete prefix", prefix, err)
					cancel()
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, k := range keys {
		select {
		case work <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return deleted, firstErr
	}
	if deleted < objects {
		return deleted, ctx.Err()
	}
	return deleted, nil
}

// memory stores: one memblob bucket per name, shared by every Open in this process.
var memRegistry = struct {
	sync.Mutex
	buckets map[string]*blob.Bucket
	next    int
}{buckets: map[string]*blob.Bucket{}}

func openMemory(name, prefix string) (Store, error) {
	memRegistry.Lock()
	defer memRegistry.Unlock()
	if name == "" {
		// A fresh store: a generated name nobody holds yet, so that URI and Location still
		// round-trip through Open.
		for {
			memRegistry.next++
			name = "anon-" + strconv.Itoa(memRegistry.next)
			if _, taken := memRegistry.buckets[name]; !taken {
				break
			}
		}
	}
	b, ok := memRegistry.buckets[name]
	if !ok {
		b = memblob.OpenBucket(nil)
		memRegistry.buckets[name] = b
	}
	return &blobStore{bucket: b, prefix: prefix, uri: bucketURI("memory", name, prefix)}, nil
}

// httpStatus is the HTTP status of a provider's error response (AWS smithy, Azure, Google), or 0.
func httpStatus(err error) int {
	var aws interface{ HTTPStatusCode() int }
	if errors.As(err, &aws) {
		return aws.HTTPStatusCode()
	}
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		return az.StatusCode
	}
	var g *googleapi.Error
	if errors.As(err, &g) {
		return g.Code
	}
	return 0
}
