// Package catalog implements the semantics of the Lance directory namespace
// (the "directory catalog" of lance-format/lance-namespace,
// docs/src/catalog/dir/index.md): nested namespaces and tables tracked in a
// `__manifest` Lance table, the V1 directory-listing catalog, and the
// compatibility mode that merges both, as Rust Lance (the reference) does.
//
// The package holds the rules — naming, validation, conflicts and retries,
// side effects and their cleanup, pagination, feature flags, atomic batches —
// and is written against small persistence interfaces (ManifestTable,
// Datasets, RootDir) that the Lance layer under manifest/ implements. Package
// catalog/catalogtest has in-memory fakes of them.
package catalog

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// Mode selects which catalog versions are served.
type Mode int

const (
	// ModeCompatibility (the default, what lancedb.connect uses): the
	// `__manifest` table plus root-level `<name>.lance` directories (V1).
	ModeCompatibility Mode = iota
	// ModeManifestOnly: only the `__manifest` table (V2); root tables get
	// hash-named directories.
	ModeManifestOnly
	// ModeDirectoryOnly: only V1 directory listing; a flat root namespace.
	ModeDirectoryOnly
)

func (m Mode) String() string {
	switch m {
	case ModeCompatibility:
		return "compatibility"
	case ModeManifestOnly:
		return "manifest-only"
	case ModeDirectoryOnly:
		return "directory-only"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

func (m Mode) manifest() bool   { return m != ModeDirectoryOnly }
func (m Mode) dirListing() bool { return m != ModeManifestOnly }

// Marker files inside table directories (V1).
const (
	ReservedMarker     = ".lance-reserved"
	DeregisteredMarker = ".lance-deregistered"
	// ManifestDir is the directory of the `__manifest` table under the root.
	ManifestDir = "__manifest"
)

// ErrObjectExists is what RootDir.PutIfAbsent wraps when the object exists.
var ErrObjectExists = errors.New("object already exists")

// RootDir is the catalog root directory on the object store, as the catalog
// uses it (markers, table directories, V1 listing). Paths are relative to the
// root, slash-separated. StoreDir adapts a storage.Store.
type RootDir interface {
	// URI is the root URI (file:///..., s3://bucket/prefix, memory://name).
	URI() string
	// Exists reports whether the object at path exists.
	Exists(ctx context.Context, path string) (bool, error)
	// HasObjects reports whether at least one object lies under dir.
	HasObjects(ctx context.Context, dir string) (bool, error)
	// ChildDirs lists the names of the directories directly under dir
	// ("" is the root).
	ChildDirs(ctx context.Context, dir string) ([]string, error)
	// PutIfAbsent creates an object only if it does not exist (atomically);
	// it fails with an error wrapping ErrObjectExists otherwise.
	PutIfAbsent(ctx context.Context, path string, data []byte) error
	// Delete removes one object; a missing object is not an error.
	Delete(ctx context.Context, path string) error
	// DeletePrefix deletes every object under dir and returns the count.
	DeletePrefix(ctx context.Context, dir string) (int, error)
	// NewestModTime is the latest modification time of the objects under
	// dir (zero when there are none).
	NewestModTime(ctx context.Context, dir string) (time.Time, error)
}

// Options configures Open.
type Options struct {
	// Mode defaults to ModeCompatibility.
	Mode Mode
	// Root is the catalog directory. Required.
	Root RootDir
	// Manifest is the `__manifest` table. Required unless ModeDirectoryOnly.
	Manifest ManifestTable
	// Datasets opens and writes table datasets. Required.
	Datasets Datasets
	// SkipIndexBuild turns off the `__manifest` scalar indices (the
	// reference's inline_optimization_enabled=false): every commit is then
	// a rewrite without indices.
	SkipIndexBuild bool
	// CommitRetries bounds the retries after a commit conflict; 0 means the
	// default (20, the reference's); a negative value means no retry.
	CommitRetries int
	// RetryBackoff is the base delay between retries (attempt n waits about
	// n*RetryBackoff, with jitter); 0 means 10ms.
	RetryBackoff time.Duration
	// ReadOnly refuses every mutation with PermissionDenied and never
	// creates the `__manifest` table.
	ReadOnly bool
	// AutoVacuumEvery runs Vacuum(AutoVacuumOptions) after every that many
	// successful commits of this Catalog: 0 means DefaultAutoVacuumEvery, a
	// negative value never vacuums automatically. The zero
	// AutoVacuumOptions means DefaultAutoVacuumOptions.
	AutoVacuumEvery   int
	AutoVacuumOptions VacuumOptions
}

// Auto-vacuum defaults: growth is bounded by default.
//
// Cadence: every 20 commits (Lance's own auto-cleanup interval), so the
// listing a vacuum does is amortized over many commits.
//
// Window: a superseded version's files are deleted one minute after its
// successor landed. Readers need a version's files only while one operation
// runs on it: lancecat resolves the latest version at the start of every
// catalog operation (Latest probes the version files each call; batches
// re-plan on the latest snapshot at commit), and the reference namespace
// probes for the successor version before every operation and reloads when
// there is one. A reader can therefore only lose files if one operation
// takes longer than the window after a newer version landed; catalog
// operations take milliseconds (listing 100,000 entries: ~15 ms). Right
// after a commit the window is measured on the store's clock where the
// implementation can (the manifest package uses the new version file's
// time), so a local clock somewhat ahead of an object store's does not
// shorten it.
//
// Version files are kept (DefaultAutoVacuumOptions.KeepVersionFiles): the
// reference only probes the immediate successor of the version it holds, so
// removing any version file could leave a long-lived reference process on a
// stale snapshot whose files are gone. They are about a kilobyte each.
const (
	DefaultAutoVacuumEvery     = 20
	DefaultAutoVacuumRetention = time.Minute
)

// DefaultAutoVacuumOptions are the options of the automatic vacuum: the
// DefaultAutoVacuumRetention window, version files kept.
func DefaultAutoVacuumOptions() VacuumOptions {
	return VacuumOptions{Retention: DefaultAutoVacuumRetention, KeepVersionFiles: true}
}

// DefaultCommitRetries is the retry budget of a mutation after commit
// conflicts (each retry re-reads the latest manifest).
const DefaultCommitRetries = 20

// Catalog is an open directory catalog. It is safe for concurrent use; the
// mutations of one Catalog are serialized (as in the reference) so they do
// not compete with each other, while several Catalogs (or processes) on the
// same root resolve conflicts by retrying.
type Catalog struct {
	opts    Options
	retries int
	backoff time.Duration

	mu          sync.Mutex // serializes mutations
	created     bool       // __manifest known to exist (guarded by mu)
	commits     int        // successful commits (guarded by mu)
	lastVacuum  error      // error of the last auto-vacuum (guarded by mu)
	vacuumCount int        // auto-vacuum runs (guarded by mu)
}

// Open opens the catalog. In a manifest mode it reads the latest
// `__manifest` snapshot and refuses a catalog whose reader feature flags
// this build does not understand. It never writes: the `__manifest` table is
// created by the first mutation.
func Open(ctx context.Context, opts Options) (*Catalog, error) {
	if opts.Root == nil {
		return nil, newErr(CodeInvalidInput, nil, "catalog: Options.Root is required")
	}
	if opts.Datasets == nil {
		return nil, newErr(CodeInvalidInput, nil, "catalog: Options.Datasets is required")
	}
	switch opts.Mode {
	case ModeCompatibility, ModeManifestOnly:
		if opts.Manifest == nil {
			return nil, newErr(CodeInvalidInput, nil, "catalog: Options.Manifest is required in %s mode", opts.Mode)
		}
	case ModeDirectoryOnly:
	default:
		return nil, newErr(CodeInvalidInput, nil, "catalog: unknown mode %d", int(opts.Mode))
	}
	c := &Catalog{opts: opts, retries: opts.CommitRetries, backoff: opts.RetryBackoff}
	if c.retries == 0 {
		c.retries = DefaultCommitRetries
	} else if c.retries < 0 {
		c.retries = 0
	}
	if c.backoff <= 0 {
		c.backoff = 10 * time.Millisecond
	}
	if opts.Mode.manifest() {
		if _, err := c.snapshot(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Mode returns the mode the catalog was opened in.
func (c *Catalog) Mode() Mode { return c.opts.Mode }

// URI returns the catalog root URI.
func (c *Catalog) URI() string { return c.opts.Root.URI() }

// TableURI returns the full URI of a relative table location.
func (c *Catalog) TableURI(location string) string { return JoinLocation(c.opts.Root.URI(), location) }

// snapshot returns the latest `__manifest` snapshot after checking the
// reader feature flags.
func (c *Catalog) snapshot(ctx context.Context) (ManifestSnapshot, error) {
	snap, err := c.opts.Manifest.Latest(ctx)
	if err != nil {
		return nil, asCatalogError(err, "read %s", ManifestDir)
	}
	if err := checkFeatureFlags(snap.Metadata(), ReaderFeatureFlagsKey, "read"); err != nil {
		return nil, err
	}
	return snap, nil
}

// checkFeatureFlags refuses any set bit: lancecat understands no catalog
// feature flag yet. An unparsable value is refused too.
func checkFeatureFlags(meta map[string]string, key, verb string) error {
	raw, ok := meta[key]
	if !ok {
		return nil
	}
	flags, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return newErr(CodeUnsupported, nil,
			"the %s table has an unparsable feature-flag value %q for %q; it was likely written by a newer, incompatible version of Lance: please upgrade Lance/lancecat to %s this catalog",
			ManifestDir, raw, key, verb)
	}
	if flags != 0 {
		what := "read"
		if verb != "read" {
			what = "modify"
		}
		return newErr(CodeUnsupported, nil,
			"the %s table was written with feature flags %d (%s) that this version of lancecat does not understand: please upgrade Lance/lancecat to %s this catalog",
			ManifestDir, flags, key, what)
	}
	return nil
}

func (c *Catalog) checkWritable() error {
	if c.opts.ReadOnly {
		return newErr(CodePermissionDenied, nil, "catalog %s is open read-only", c.URI())
	}
	return nil
}

// sleepBackoff waits before retry attempt n (1-based).
func (c *Catalog) sleepBackoff(ctx context.Context, n int) error {
	d := time.Duration(n) * c.backoff
	d += time.Duration(rand.Int64N(int64(c.backoff)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Vacuum deletes the files of old `__manifest` versions (see VacuumOptions:
// the latest version is always kept, a version must have been superseded for
// longer than the retention window), and the top-level directories that no
// `__manifest` row owns and that were not written to within the window
// (debris of writers that died mid-mutation; see vacuumOrphanDirs). Table
// datasets' own old versions have their own cleanup.
func (c *Catalog) Vacuum(ctx context.Context, opts VacuumOptions) (VacuumReport, error) {
	if err := c.checkWritable(); err != nil {
		return VacuumReport{}, err
	}
	if !c.opts.Mode.manifest() {
		return VacuumReport{}, nil
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return VacuumReport{}, err
	}
	if err := checkFeatureFlags(snap.Metadata(), WriterFeatureFlagsKey, "modify"); err != nil {
		return VacuumReport{}, err
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultVacuumRetention
	}
	if opts.Retention < 0 {
		return VacuumReport{}, newErr(CodeInvalidInput, nil, "vacuum retention must not be negative")
	}
	rep, err := c.opts.Manifest.Vacuum(ctx, opts)
	if err != nil {
		return rep, asCatalogError(err, "vacuum %s", ManifestDir)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if err := c.vacuumOrphanDirs(ctx, snap, now.Add(-opts.Retention), &rep); err != nil {
		return rep, asCatalogError(err, "vacuum orphan table directories")
	}
	if err := c.vacuumStagedFiles(ctx, snap, opts, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// vacuumStagedFiles removes, inside the directory of every table the
// `__manifest` lists, the files no version of that table references and older
// than the retention: a write that died between staging its files and
// committing its version leaves them (a kill -9 in the middle of INSERT).
// Tables outside the root's relative layout, compatibility-mode root tables
// without a manifest row, and locations that pass through a symbolic link are
// left alone. Only explicit vacuums do this (auto-vacuum touches `__manifest`
// only): a retention shorter than the longest write in flight would delete
// that write's staged files, as Lance's own cleanup would.
func (c *Catalog) vacuumStagedFiles(ctx context.Context, snap ManifestSnapshot, opts VacuumOptions, rep *VacuumReport) error {
	v, ok := c.opts.Datasets.(StagedFileVacuumer)
	if !ok {
		return nil
	}
	rows, err := snap.Scan(ctx, RowFilter{Types: []string{ObjectTypeTable}})
	if err != nil {
		return asCatalogError(err, "scan %s", ManifestDir)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Location == nil || !removableDir(*r.Location) {
			continue
		}
		loc := CleanLocation(*r.Location)
		if seen[loc] {
			continue
		}
		seen[loc] = true
		if link, err := c.symlinkOnPath(ctx, loc); err != nil {
			return asCatalogError(err, "vacuum table %q", r.ObjectID)
		} else if link != "" {
			continue
		}
		tr, err := v.VacuumStaged(ctx, loc, opts)
		if err != nil {
			return asCatalogError(err, "vacuum staged files of table %q", r.ObjectID)
		}
		rep.StagedFilesRemoved += tr.FilesRemoved
		rep.StagedBytesRemoved += tr.BytesRemoved
	}
	return nil
}

// DefaultVacuumOptions are the safe defaults: one hour of retention, and
// version files kept (see VacuumOptions.KeepVersionFiles).
func DefaultVacuumOptions() VacuumOptions {
	return VacuumOptions{Retention: DefaultVacuumRetention, KeepVersionFiles: true}
}

// AutoVacuumStats reports how many auto-vacuums ran and the last error.
func (c *Catalog) AutoVacuumStats() (runs int, lastErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vacuumCount, c.lastVacuum
}

// afterCommit counts the commit and runs the auto-vacuum (c.mu held).
func (c *Catalog) afterCommit(ctx context.Context) {
	c.commits++
	every := c.opts.AutoVacuumEvery
	if every == 0 {
		every = DefaultAutoVacuumEvery
	}
	if every > 0 && c.commits%every == 0 {
		opts := c.opts.AutoVacuumOptions
		if opts == (VacuumOptions{}) {
			opts = DefaultAutoVacuumOptions()
		}
		if opts.Retention == 0 {
			opts.Retention = DefaultAutoVacuumRetention
		}
		_, err := c.opts.Manifest.Vacuum(ctx, opts)
		c.vacuumCount++
		c.lastVacuum = err
	}
}
