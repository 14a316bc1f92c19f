package planner

import (
	"context"
	"errors"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/storage"
)

// IMPORT INTO ... FROM 's3://bucket/dir/file' (or gs://, az://, with a
// glob in the last path part) reads objects through the storage package,
// opened with the session's StorageOptions: the catalog DSN's storage.*
// options, the same credentials and endpoints the catalog uses. Because
// those credentials may reach far more than the catalog, a URI is read
// only when it lies under one of Options.ImportSources (the driver's
// import_sources option), as load_data_dir confines local files: SQL text
// alone never chooses which buckets the credentials read. An entry
// s3://bucket/dir allows every object under dir/ (a whole path segment:
// not s3://bucket/dir2/...); a glob is allowed when its directory is.
// Objects are streamed: CSV through sequential ranged reads of
// importReadSize bytes, Parquet through a ReaderAt over ranged reads (its
// footer, then column chunks importParquetBuffer bytes at a time).

// importReadSize is the size of each ranged read of a CSV object.
const importReadSize = 4 << 20

// objectURI is a parsed s3://, gs:// or az:// URI: no query, fragment or
// user info, every path segment non-empty and neither "." nor "..".
type objectURI struct {
	scheme, bucket string
	segs           []string
}

func (u objectURI) String() string {
	return u.scheme + "://" + strings.Join(append([]string{u.bucket}, u.segs...), "/")
}

// parseObjectURI parses raw by hand rather than with net/url: '?' and '['
// are glob characters here, not a query or an IPv6 host.
func parseObjectURI(raw string) (objectURI, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return objectURI{}, errors.New("not a URI")
	}
	u := objectURI{scheme: strings.ToLower(scheme)}
	switch u.scheme {
	case "s3", "gs", "az":
	default:
		return objectURI{}, errors.New("only s3://, gs:// and az:// object stores can be imported from (local files through load_data_dir)")
	}
	bucket, p, _ := strings.Cut(rest, "/")
	if bucket == "" || strings.ContainsAny(bucket, "@:?#%*[") {
		return objectURI{}, errors.New("bad bucket name (user info, ports and queries are not allowed)")
	}
	u.bucket = bucket
	p = strings.TrimSuffix(p, "/")
	if p != "" {
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00#%") {
				return objectURI{}, errors.New("bad path (empty, \".\" or \"..\" segments, '\\\\', '#' and '%' are not allowed)")
			}
			u.segs = append(u.segs, seg)
		}
	}
	return u, nil
}

// under reports whether u is prefix or lies below it.
func (u objectURI) under(prefix objectURI) bool {
	if u.scheme != prefix.scheme || u.bucket != prefix.bucket || len(u.segs) < len(prefix.segs) {
		return false
	}
	for i, s := range prefix.segs {
		if u.segs[i] != s {
			return false
		}
	}
	return true
}

// importObjects resolves an object-store IMPORT INTO source to its
// objects. done closes the store once the statement is over.
func (s *Session) importObjects(ctx context.Context, raw string) (files []importFile, done func(), err error) {
	shown := quoteString(storage.Redact(raw))
	if len(s.opts.ImportSources) == 0 {
		return nil, nil, errorf(catalog.CodePermissionDenied, "IMPORT INTO from %s: object-store sources are disabled: set the import_sources option to the URI prefixes IMPORT INTO may read", shown)
	}
	u, err := parseObjectURI(raw)
	if err != nil {
		return nil, nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO from %s: %v", shown, err)
	}
	if len(u.segs) == 0 {
		return nil, nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO from %s: name an object or a glob of objects, not a bucket", shown)
	}
	dir := objectURI{scheme: u.scheme, bucket: u.bucket, segs: u.segs[:len(u.segs)-1]}
	base := u.segs[len(u.segs)-1]
	glob := strings.ContainsAny(base, "*?[")
	for _, seg := range dir.segs {
		if strings.ContainsAny(seg, "*?[") {
			return nil, nil, errorf(catalog.CodeUnsupported, "not supported: IMPORT INTO glob %s with a pattern outside the last path part", shown)
		}
	}
	if glob {
		if _, err := path.Match(base, ""); err != nil {
			return nil, nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: bad glob %s: %v", shown, err)
		}
	}
	// A glob may match any object of its directory, so the directory must
	// be allowed; a single object must be.
	check := u
	if glob {
		check = dir
	}
	allowed := false
	for _, e := range s.opts.ImportSources {
		p, err := parseObjectURI(e)
		if err != nil {
			return nil, nil, errorf(catalog.CodeInvalidInput, "import_sources entry %s: %v", quoteString(storage.Redact(e)), err)
		}
		if check.under(p) {
			allowed = true
			break
		}
	}
	if !allowed {
		return nil, nil, errorf(catalog.CodePermissionDenied, "IMPORT INTO from %s: not under any import_sources prefix", shown)
	}
	st, err := storage.Open(ctx, dir.String(), storage.Options{ReadOnly: true, StorageOptions: s.opts.StorageOptions})
	if err != nil {
		return nil, nil, &catalog.Error{Code: catalog.CodeInvalidInput, Message: "IMPORT INTO from " + shown, Cause: err}
	}
	done = func() { st.Close() }
	var infos []storage.ObjectInfo
	if glob {
		objs, _, err := st.ListDir(ctx, "")
		if err != nil {
			done()
			return nil, nil, importStoreErr(shown, err)
		}
		for _, o := range objs {
			if ok, _ := path.Match(base, o.Path); ok {
				infos = append(infos, o)
			}
		}
		if len(infos) == 0 {
			done()
			return nil, nil, errorf(catalog.CodeInvalidInput, "IMPORT INTO: no object matches %s", shown)
		}
		sort.Slice(infos, func(i, j int) bool { return infos[i].Path < infos[j].Path })
	} else {
		info, err := st.Stat(ctx, base)
		if err != nil {
			done()
			return nil, nil, importStoreErr(shown, err)
		}
		infos = []storage.ObjectInfo{info}
	}
	for _, info := range infos {
		files = append(files, importFile{name: info.Path, open: func(ctx context.Context) (importReader, error) {
			return &objectReader{ctx: ctx, st: st, path: info.Path, size: info.Size}, nil
		}})
	}
	return files, done, nil
}

// importStoreErr types a storage failure; storage errors carry no secrets
// (the storage package redacts them).
func importStoreErr(shown string, err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return errorf(catalog.CodeInvalidInput, "IMPORT INTO: no object %s", shown)
	case errors.Is(err, storage.ErrUnavailable):
		return &catalog.Error{Code: catalog.CodeServiceUnavailable, Message: "IMPORT INTO from " + shown, Cause: err}
	}
	return &catalog.Error{Code: catalog.CodeInvalidInput, Message: "IMPORT INTO from " + shown, Cause: err}
}

// objectReader reads one object by ranged reads. It keeps the statement's
// context because io.Reader and io.ReaderAt (what the CSV reader and
// arrow-go's Parquet reader take) carry none.
type objectReader struct {
	ctx  context.Context
	st   storage.Store
	path string
	size int64
	off  int64  // Read and Seek's position
	buf  []byte // read ahead of off by Read
}

func (r *objectReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= r.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > r.size-off {
		n = r.size - off
	}
	if n == 0 {
		return 0, nil
	}
	b, err := r.st.ReadRange(r.ctx, r.path, off, n)
	if err != nil {
		return 0, storage.RedactError(err)
	}
	copy(p, b)
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// Read reads ahead importReadSize bytes at a time: the CSV reader asks for
// 64 KiB, and a ranged GET per 64 KiB would be slow.
func (r *objectReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.off >= r.size {
			return 0, io.EOF
		}
		n := int64(importReadSize)
		if n > r.size-r.off {
			n = r.size - r.off
		}
		b, err := r.st.ReadRange(r.ctx, r.path, r.off, n)
		if err != nil {
			return 0, storage.RedactError(err)
		}
		r.buf = b
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.off += int64(n)
	return n, nil
}

func (r *objectReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("bad whence")
	}
	if offset < 0 {
		return 0, errors.New("negative position")
	}
	r.off, r.buf = offset, nil
	return offset, nil
}

// Close does nothing: the store is closed when the statement ends.
func (r *objectReader) Close() error { return nil }
