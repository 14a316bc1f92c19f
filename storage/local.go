package storage

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// localStore is a Store on a local directory, written directly on the operating system (see
// the package documentation for why it does not use fileblob).
type localStore struct {
	root   string // absolute, cleaned OS path
	uri    string
	noSync bool // Durability None: never fsync
	closed atomic.Bool
	// fsync syncs one open file or directory (a seam for tests that
	// record the order of syncs).
	fsync func(*os.File) error
	// syncers hands out the syncfs(2) of the root's file system for large
	// rounds (nil: not on this platform or durability; see fsSyncers);
	// syncer is it, taken before the first deferred write.
	syncers *fsSyncers
	syncer  atomic.Pointer[fsSyncer]

	mu sync.Mutex
	// newDirs are directories this store created whose entry in their
	// parent has not been synced yet: syncing a file in one also syncs the
	// parent (and so on up), so a new directory cannot vanish in a crash
	// with the synced files in it.
	newDirs map[string]struct{}
}

func newLocalStore(dir string, d Durability) *localStore {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	s := &localStore{root: dir, uri: u.String(), noSync: d == DurabilityNone,
		fsync: (*os.File).Sync, newDirs: map[string]struct{}{}}
	if !s.noSync {
		s.syncers = processSyncers
	}
	return s
}

// writeChunk bounds how much is written between context checks.
const writeChunk = 4 << 20

func (s *localStore) URI() string { return s.uri }

// Durability reports the store's durability setting.
func (s *localStore) Durability() Durability {
	if s.noSync {
		return DurabilityNone
	}
	return DurabilityFull
}

func (s *localStore) Location(path string) string { return joinLocation(s.uri, path) }

func (s *localStore) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *localStore) check(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

func (s *localStore) osPath(p string) string {
	if p == "" {
		return s.root
	}
	return filepath.Join(s.root, filepath.FromSlash(p))
}

// missing reports whether an OS error means "no object here".
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// openObject opens a regular file for reading and returns it with its size.
func (s *localStore) openObject(ctx context.Context, op, path string) (*os.File, int64, error) {
	if err := s.check(ctx); err != nil {
		return nil, 0, err
	}
	if err := validatePath(path); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	f, err := os.Open(s.osPath(path))
	if err != nil {
		if missing(err) {
			return nil, 0, fmt.Errorf("%s %q: %w", op, path, ErrNotFound)
		}
		return nil, 0, fmt.Errorf("%s %q: %w", op, path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s %q: %w", op, path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s %q: not a file: %w", op, path, ErrNotFound)
	}
	return f, fi.Size(), nil
}

func (s *localStore) Read(ctx context.Context, path string) ([]byte, error) {
	f, size, err := s.openObject(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if _, err := f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && size == 0) {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	return buf, nil
}

func (s *localStore) ReadRange(ctx context.Context, path string, offset, length int64) ([]byte, error) {
	f, size, err := s.openObject(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkRange(path, offset, length, size); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	buf := make([]byte, length)
	if err := readAtFull(f, path, offset, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readAtFull fills dst from f at offset; a short read is ErrOutOfRange.
func readAtFull(f *os.File, path string, offset int64, dst []byte) error {
	n, err := f.ReadAt(dst, offset)
	if n < len(dst) {
		if err == nil || errors.Is(err, io.EOF) {
			return fmt.Errorf("read %q [%d, +%d): got %d bytes: %w", path, offset, len(dst), n, ErrOutOfRange)
		}
		return fmt.Errorf("read %q: %w", path, err)
	}
	return nil
}

func (s *localStore) Stat(ctx context.Context, path string) (ObjectInfo, error) {
	if err := s.check(ctx); err != nil {
		return ObjectInfo{}, err
	}
	if err := validatePath(path); err != nil {
		return ObjectInfo{}, fmt.Errorf("stat: %w", err)
	}
	fi, err := os.Stat(s.osPath(path))
	if err != nil {
		if missing(err) {
			return ObjectInfo{}, fmt.Errorf("stat %q: %w", path, ErrNotFound)
		}
		return ObjectInfo{}, fmt.Errorf("stat %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return ObjectInfo{}, fmt.Errorf("stat %q: not a file: %w", path, ErrNotFound)
	}
	return ObjectInfo{Path: path, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// entryInfo resolves a directory entry, following symbolic links. ok is false for entries
// that are neither files nor directories (or dangling links).
func entryInfo(dir string, e fs.DirEntry) (fi fs.FileInfo, ok bool, err error) {
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err = os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			if missing(err) {
				return nil, false, nil
			}
			return nil, false, err
		}
	} else {
		fi, err = e.Info()
		if err != nil {
			if missing(err) { // removed since ReadDir
				return nil, false, nil
			}
			return nil, false, err
		}
	}
	return fi, fi.Mode().IsRegular() || fi.IsDir(), nil
}

// readDir lists one directory; a missing directory (or a file in its place) is empty.
func readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if missing(err) {
			return nil, nil
		}
		return nil, err
	}
	return entries, nil
}

func (s *localStore) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	p, err := validatePrefix(prefix)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	var out []ObjectInfo
	if err := s.walk(ctx, p, false, func(rel string, fi fs.FileInfo) {
		out = append(out, ObjectInfo{Path: rel, Size: fi.Size(), ModTime: fi.ModTime()})
	}, nil, nil); err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	slices.SortFunc(out, func(a, b ObjectInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// walk visits every regular file below the directory prefix p ("" or "dir/"), calling file
// with its store-relative path (temporary files only when withTemp is set), and dir (if not
// nil) for every directory below p after its contents. Symbolic links to directories are not
// followed, to stay clear of cycles.
// walk visits the files below p (regular files, and links to them) and,
// when dir is set, every directory after its contents. Links to directories
// are not followed; link, when set, is called with each of them (and with
// dangling links) so a delete can remove the link itself.
func (s *localStore) walk(ctx context.Context, p string, withTemp bool, file func(rel string, fi fs.FileInfo), dir func(rel string), link func(rel string)) error {
	var visit func(rel string) error
	visit = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		osDir := s.osPath(strings.TrimSuffix(rel, "/"))
		entries, err := readDir(osDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() {
				if err := visit(rel + name + "/"); err != nil {
					return err
				}
				if dir != nil {
					dir(rel + name)
				}
				continue
			}
			if isTempName(name) && !withTemp {
				continue
			}
			fi, ok, err := entryInfo(osDir, e)
			if err != nil {
				return err
			}
			if ok && fi.Mode().IsRegular() {
				file(rel+name, fi)
			} else if link != nil && e.Type()&fs.ModeSymlink != 0 {
				link(rel + name)
			}
		}
		return nil
	}
	return visit(p)
}

func (s *localStore) ListDir(ctx context.Context, dir string) ([]ObjectInfo, []string, error) {
	if err := s.check(ctx); err != nil {
		return nil, nil, err
	}
	p, err := validatePrefix(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list dir: %w", err)
	}
	osDir := s.osPath(strings.TrimSuffix(p, "/"))
	entries, err := readDir(osDir)
	if err != nil {
		return nil, nil, fmt.Errorf("list dir %q: %w", dir, err)
	}
	var files []ObjectInfo
	var dirs []string
	for _, e := range entries {
		name := e.Name()
		if isTempName(name) {
			continue
		}
		fi, ok, err := entryInfo(osDir, e)
		if err != nil {
			return nil, nil, fmt.Errorf("list dir %q: %w", dir, err)
		}
		switch {
		case !ok:
		case fi.IsDir():
			dirs = append(dirs, name)
		default:
			files = append(files, ObjectInfo{Path: p + name, Size: fi.Size(), ModTime: fi.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b ObjectInfo) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(dirs)
	return files, dirs, nil
}

// tempName names a temporary file for final name base. See the package documentation.
func tempName(base string) string {
	const maxBase = 100
	if len(base) > maxBase {
		cut := maxBase
		for cut > 0 && !isRuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + "." + strings.ToLower(rand.Text()) + tempSuffix
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// writeTemp writes data to a new temporary file next to final (creating the directory as
// needed), fsyncs it when sync is set (and the store syncs at all), closes it, and returns
// its path. On error nothing is left behind.
func (s *localStore) writeTemp(ctx context.Context, final string, data []byte, sync bool) (string, error) {
	dir := filepath.Dir(final)
	f, tmp, err := s.createTemp(final)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		s.pruneEmptyParents(dir)
		return "", err
	}
	for off := 0; off < len(data); off += writeChunk {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		end := min(off+writeChunk, len(data))
		if _, err := f.Write(data[off:end]); err != nil {
			return fail(err)
		}
	}
	if sync && !s.noSync {
		if err := s.fsync(f); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		s.pruneEmptyParents(dir)
		return "", err
	}
	if err := ctx.Err(); err != nil {
		os.Remove(tmp)
		s.pruneEmptyParents(dir)
		return "", err
	}
	return tmp, nil
}

// createTemp creates a new temporary file next to final (creating the
// directory as needed).
func (s *localStore) createTemp(final string) (*os.File, string, error) {
	dir := filepath.Dir(final)
	for attempt := 0; ; attempt++ {
		if err := s.mkdirs(dir); err != nil {
			return nil, "", err
		}
		tmp := filepath.Join(dir, tempName(filepath.Base(final)))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, tmp, nil
		}
		// A concurrent Delete may have pruned the directory between MkdirAll and OpenFile.
		if !errors.Is(err, fs.ErrNotExist) || attempt >= 4 {
			return nil, "", err
		}
	}
}

// mkdirs creates dir and its missing parents, recording the ones it created (see newDirs).
func (s *localStore) mkdirs(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		created = append(created, d)
		if d == s.root || !strings.HasPrefix(d, s.root+string(filepath.Separator)) {
			break
		}
	}
	// MkdirAll reports "file exists" when a directory it found existing
	// (mkdir's EEXIST) is gone by the time it checks it again: a concurrent
	// delete pruned it. Creating it again is the answer, a few times; past
	// that the directory keeps vanishing, which is the caller's conflict.
	for attempt := 0; ; attempt++ {
		err := os.MkdirAll(dir, 0o777)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt >= 4 {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w: %w", ErrDirRemoved, err)
			}
			return err
		}
	}
	if !s.noSync && len(created) > 0 {
		s.mu.Lock()
		for _, d := range created {
			s.newDirs[d] = struct{}{}
		}
		s.mu.Unlock()
	}
	return nil
}

// syncWorkers bounds the concurrent fsyncs of one Sync.
const syncWorkers = 16

// syncFiles fsyncs the files, the directories holding them, the dirs, and every directory
// this store created on their way that is not synced yet, all in parallel; bare files are
// fsynced without their directory (a temporary file about to be linked elsewhere in it). A
// failed file sync is an error (the data may not be durable); directory syncs are best
// effort, as some file systems refuse to fsync directories.
func (s *localStore) syncFiles(ctx context.Context, files, bare, dirs []string) error {
	if s.noSync {
		return ctx.Err()
	}
	dirSet := map[string]bool{}
	for _, f := range files {
		dirSet[filepath.Dir(f)] = true
	}
	for _, d := range dirs {
		dirSet[d] = true
	}
	// Directories created for these objects need their own entries synced.
	// (A map and a work list: a commit syncing a thousand new tables has
	// thousands of directories.)
	consumed := map[string]bool{}
	s.mu.Lock()
	work := make([]string, 0, len(dirSet))
	for d := range dirSet {
		work = append(work, d)
	}
	for len(work) > 0 {
		d := work[len(work)-1]
		work = work[:len(work)-1]
		if _, ok := s.newDirs[d]; ok && !consumed[d] {
			consumed[d] = true
			if p := filepath.Dir(d); !dirSet[p] {
				dirSet[p] = true
				work = append(work, p)
			}
		}
	}
	s.mu.Unlock()
	type job struct {
		path string
		dir  bool
	}
	jobs := make([]job, 0, len(files)+len(bare)+len(dirSet))
	for _, f := range files {
		jobs = append(jobs, job{f, false})
	}
	for _, f := range bare {
		jobs = append(jobs, job{f, false})
	}
	for d := range dirSet {
		jobs = append(jobs, job{d, true})
	}
	// A large round: one syncfs makes the paths on the root's file system
	// durable; the others (and all of them if syncfs is not usable) are
	// fsynced.
	paths := make([]string, len(jobs))
	for i, j := range jobs {
		paths[i] = j.path
	}
	covered := s.syncer.Load().syncRound(paths)
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, syncWorkers)
	for i, j := range jobs {
		if covered != nil && covered[i] {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			f, err := os.Open(j.path)
			if err != nil {
				if !j.dir {
					errs[i] = fmt.Errorf("sync %s: %w", j.path, err)
				}
				return
			}
			err = s.fsync(f)
			f.Close()
			if err != nil && !j.dir {
				errs[i] = fmt.Errorf("sync %s: %w", j.path, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.mu.Lock()
	for d := range consumed {
		delete(s.newDirs, d)
	}
	s.mu.Unlock()
	return nil
}

// syncDir makes a rename or link in dir durable (and the directories created for it).
// It is best effort: the object is already visible when this runs.
func (s *localStore) syncDir(dir string) {
	_ = s.syncFiles(context.Background(), nil, nil, []string{dir})
}

// prepareSyncfs takes the syncfs of the root's file system, once, before
// the store writes a file that a later round syncs (see fsSyncers).
func (s *localStore) prepareSyncfs() {
	if s.syncers != nil && s.syncer.Load() == nil {
		if sy := s.syncers.forRoot(s.root); sy != nil {
			s.syncer.CompareAndSwap(nil, sy)
		}
	}
}

// PutUnsynced implements Syncer: Put without any fsync.
func (s *localStore) PutUnsynced(ctx context.Context, path string, data []byte) error {
	s.prepareSyncfs()
	return s.put(ctx, path, data, false)
}

// Sync implements Syncer.
func (s *localStore) Sync(ctx context.Context, paths []string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	files := make([]string, len(paths))
	for i, p := range paths {
		if err := validatePath(p); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		files[i] = s.osPath(p)
	}
	return dirRemoved(s.syncFiles(ctx, files, nil, nil))
}

func (s *localStore) prepareWrite(ctx context.Context, op, path string) (string, error) {
	if err := s.check(ctx); err != nil {
		return "", err
	}
	if err := validatePath(path); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return s.osPath(path), nil
}

func (s *localStore) Put(ctx context.Context, path string, data []byte) error {
	return s.put(ctx, path, data, true)
}

func (s *localStore) put(ctx context.Context, path string, data []byte, sync bool) error {
	final, err := s.prepareWrite(ctx, "put", path)
	if err != nil {
		return err
	}
	tmp, err := s.writeTemp(ctx, final, data, sync)
	if err != nil {
		return fmt.Errorf("put %q: %w", path, dirRemoved(err))
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("put %q: %w", path, dirRemoved(err))
	}
	if sync {
		s.syncDir(filepath.Dir(final))
	}
	return nil
}

func (s *localStore) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	return s.PutIfAbsentAfterSync(ctx, path, data, nil)
}

// PutIfAbsentAfterSync implements Syncer: the temporary file and the synced objects are
// fsynced in one parallel round before the link publishes the object.
func (s *localStore) PutIfAbsentAfterSync(ctx context.Context, path string, data []byte, synced []string) error {
	final, err := s.prepareWrite(ctx, "put-if-absent", path)
	if err != nil {
		return err
	}
	others := make([]string, len(synced))
	for i, p := range synced {
		if err := validatePath(p); err != nil {
			return fmt.Errorf("put-if-absent %q: sync: %w", path, err)
		}
		others[i] = s.osPath(p)
	}
	// Cheap early answer for the common lost race; the link below is what decides.
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("put-if-absent %q: %w", path, ErrAlreadyExists)
	}
	tmp, err := s.writeTemp(ctx, final, data, false)
	if err != nil {
		return fmt.Errorf("put-if-absent %q: %w", path, dirRemoved(err))
	}
	if err := s.syncFiles(ctx, others, []string{tmp}, nil); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("put-if-absent %q: %w", path, dirRemoved(err))
	}
	beforeLink(tmp, final)
	err = createFromTemp(tmp, final)
	os.Remove(tmp) // after a link both names exist; after a no-replace rename this is a no-op
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("put-if-absent %q: %w", path, ErrAlreadyExists)
		}
		if errors.Is(err, fs.ErrNotExist) {
			// The temporary file or the directory holding final vanished: a
			// concurrent delete removed the directory after writeTemp made it.
			return fmt.Errorf("put-if-absent %q: %w: %w", path, ErrDirRemoved, err)
		}
		return fmt.Errorf("put-if-absent %q: %w", path, err)
	}
	s.syncDir(filepath.Dir(final))
	return nil
}

// PutIfAbsentUnsynced implements Syncer: the atomic create of
// PutIfAbsentAfterSync without any fsync.
func (s *localStore) PutIfAbsentUnsynced(ctx context.Context, path string, data []byte) error {
	s.prepareSyncfs()
	final, err := s.prepareWrite(ctx, "put-if-absent", path)
	if err != nil {
		return err
	}
	tmp, err := s.writeTemp(ctx, final, data, false)
	if err != nil {
		return fmt.Errorf("put-if-absent %q: %w", path, dirRemoved(err))
	}
	beforeLink(tmp, final)
	err = createFromTemp(tmp, final)
	os.Remove(tmp)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("put-if-absent %q: %w", path, ErrAlreadyExists)
		}
		if errors.Is(err, fs.ErrNotExist) {
			// The temporary file or the directory holding final vanished: a
			// concurrent delete removed the directory after writeTemp made it.
			return fmt.Errorf("put-if-absent %q: %w: %w", path, ErrDirRemoved, err)
		}
		return fmt.Errorf("put-if-absent %q: %w", path, err)
	}
	return nil
}

// dirRemoved marks a write that failed because a file or directory it
// needed vanished (a temporary file, a file to sync, the directory itself) as
// ErrDirRemoved: the writer never deletes its own files, so only a concurrent
// delete of the directory (a DROP racing the write) can remove them.
func dirRemoved(err error) error {
	if err != nil && errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrDirRemoved) {
		return fmt.Errorf("%w: %w", ErrDirRemoved, err)
	}
	return err
}

// beforeLink runs between writing the temporary file and linking it; tests
// set it to delete the directory at exactly that moment.
var beforeLink = func(tmp, final string) {}

// createFromTemp gives the fully written file tmp the name final if, and only if, final does
// not exist, atomically across processes. It returns an error matching fs.ErrExist when final
// exists. A hard link is the primary mechanism; file systems without hard links fall back to
// a no-replace rename where the OS has one.
func createFromTemp(tmp, final string) error {
	err := os.Link(tmp, final)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EMLINK) {
		if rerr := renameNoReplace(tmp, final); rerr == nil || errors.Is(rerr, fs.ErrExist) {
			return rerr
		}
	}
	return err
}

// SymlinkOnPath implements SymlinkChecker. The root itself may be a link:
// the user chose it.
func (s *localStore) SymlinkOnPath(ctx context.Context, path string) (string, error) {
	if err := s.check(ctx); err != nil {
		return "", err
	}
	p := strings.Trim(path, "/")
	if p == "" {
		return "", nil
	}
	if err := validatePath(p); err != nil {
		return "", err
	}
	return symlinkOnPath(s.root, p)
}

// RemoveLink implements LinkRemover.
func (s *localStore) RemoveLink(ctx context.Context, path string) error {
	osPath, err := s.prepareWrite(ctx, "remove link", path)
	if err != nil {
		return err
	}
	if err := s.refuseSymlinkDirs("remove link", path, false); err != nil {
		return err
	}
	fi, err := os.Lstat(osPath)
	if err != nil {
		if missing(err) {
			return fmt.Errorf("remove link %q: %w", path, ErrNotFound)
		}
		return fmt.Errorf("remove link %q: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("remove link %q: not a symbolic link: %w", path, ErrNotFound)
	}
	// os.Remove unlinks the link itself (unlink(2) never follows it).
	if err := os.Remove(osPath); err != nil && !missing(err) {
		return fmt.Errorf("remove link %q: %w", path, err)
	}
	return nil
}

// symlinkOnPath walks rel (validated, slash-separated) below root with
// Lstat and returns the first component that is a symbolic link. It stops
// at the first component that does not exist (nothing below it can be a
// link).
func symlinkOnPath(root, rel string) (string, error) {
	cur := root
	done := ""
	for seg := range strings.SplitSeq(rel, "/") {
		cur = filepath.Join(cur, seg)
		done = path.Join(done, seg)
		fi, err := os.Lstat(cur)
		if err != nil {
			if missing(err) {
				return "", nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return done, nil
		}
	}
	return "", nil
}

// refuseSymlinkDirs fails when a directory on the way to rel (rel itself
// included when self is set) is a symbolic link: removing through it would
// delete files outside the directory the caller meant.
func (s *localStore) refuseSymlinkDirs(op, rel string, self bool) error {
	dir := rel
	if !self {
		dir = path.Dir(rel)
		if dir == "." {
			return nil
		}
	}
	link, err := symlinkOnPath(s.root, dir)
	if err != nil {
		return fmt.Errorf("%s %q: %w", op, rel, err)
	}
	if link != "" {
		return fmt.Errorf("%s %q: %q is a symbolic link: %w", op, rel, link, ErrSymlink)
	}
	return nil
}

func (s *localStore) Delete(ctx context.Context, path string) error {
	osPath, err := s.prepareWrite(ctx, "delete", path)
	if err != nil {
		return err
	}
	if err := s.refuseSymlinkDirs("delete", path, false); err != nil {
		return err
	}
	fi, err := os.Lstat(osPath)
	if err != nil {
		if missing(err) {
			return nil
		}
		return fmt.Errorf("delete %q: %w", path, err)
	}
	if fi.IsDir() {
		return nil // a directory is not an object
	}
	if err := os.Remove(osPath); err != nil && !missing(err) {
		return fmt.Errorf("delete %q: %w", path, err)
	}
	s.pruneEmptyParents(filepath.Dir(osPath))
	return nil
}

// pruneEmptyParents removes dir and its ancestors below the root while they are empty, so that
// directories exist on disk only as long as objects do, as on an object store. rmdir of a
// non-empty directory fails, which stops the walk without harm.
func (s *localStore) pruneEmptyParents(dir string) {
	for dir != s.root && strings.HasPrefix(dir, s.root+string(filepath.Separator)) {
		if err := os.Remove(dir); err != nil {
			return
		}
		s.mu.Lock()
		delete(s.newDirs, dir)
		s.mu.Unlock()
		dir = filepath.Dir(dir)
	}
}

func (s *localStore) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	p, err := validatePrefix(prefix)
	if err != nil {
		return 0, fmt.Errorf("delete prefix: %w", err)
	}
	if p != "" {
		// The walk below does not descend into linked directories, but a
		// link on the prefix itself would be followed by every path under it.
		if err := s.refuseSymlinkDirs("delete prefix", strings.TrimSuffix(p, "/"), true); err != nil {
			return 0, err
		}
	}
	type file struct {
		rel  string
		temp bool
	}
	var files []file
	var dirs []string
	err = s.walk(ctx, p, true, func(rel string, fi fs.FileInfo) {
		files = append(files, file{rel, isTempName(filepath.Base(rel))})
	}, func(rel string) { dirs = append(dirs, rel) }, func(rel string) {
		// A link to a directory (or a dangling one) inside the prefix: the
		// link goes (os.Remove never follows it), what it points to stays.
		files = append(files, file{rel, true})
	})
	if err != nil {
		return 0, fmt.Errorf("delete prefix %q: %w", prefix, err)
	}
	n := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if err := os.Remove(s.osPath(f.rel)); err != nil {
			if missing(err) {
				continue
			}
			return n, fmt.Errorf("delete prefix %q: %w", prefix, err)
		}
		if !f.temp {
			n++
		}
	}
	// dirs lists children after their contents; removing in that order empties bottom-up.
	for _, d := range dirs {
		os.Remove(s.osPath(d))
	}
	if p != "" {
		s.pruneEmptyParents(s.osPath(strings.TrimSuffix(p, "/")))
	}
	return n, nil
}
