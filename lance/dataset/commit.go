package dataset

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/internal/failpoint"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	"github.com/lancecat/lancecat/storage"
)

// maxCommitAttempts bounds how often a rebasable write is rebuilt on top of
// newer versions before giving up with ErrCommitConflict.
const maxCommitAttempts = 64

// commitRequest describes one write.
type commitRequest struct {
	// op names the operation ("Append", ...) for conflict checks.
	op string
	// build makes the next manifest (version, timestamp, flags and the
	// transaction's bookkeeping are filled in by commit) and the transaction
	// (operation set) from base, which is nil for a new dataset. It may stage
	// files: it records their paths with stage.
	build func(ctx context.Context, base *Manifest, stage func(path string)) (*Manifest, *tablepb.Transaction, error)
	// staged are files written before the commit (data files); they are
	// deleted when the commit does not land.
	staged []string
	// exact: never rebase (a concurrent commit is a conflict).
	exact bool
	// keepOnConflict: an ErrCommitConflict of an exact commit keeps the
	// files in staged (the caller tries again with them); the files build
	// staged are still deleted.
	keepOnConflict bool
	// modified lists the existing fragments the operation modifies or
	// removes: a concurrent commit that touched any of them conflicts even
	// when its operation is compatible (Lance's rule for Update and
	// Rewrite).
	modified []uint64
	// written are other files the caller wrote for this commit (index
	// files of CreateIndex) that are synced with the staged ones but not
	// deleted when the commit does not land.
	written []string
	// deferSync publishes the version without syncing it or its files
	// (CreateOptions.DeferSync): the Dataset returned lists them all as
	// Unsynced.
	deferSync bool
	// recheck, when set, is called with the version a rebased commit is
	// about to land on, before it is rebuilt there: a caller whose change
	// is valid only for what it read (a key not yet in the table) checks
	// what the concurrent commits added. Its error ends the commit (the
	// staged files are deleted).
	recheck func(ctx context.Context, latest *Dataset) error
}

// rebaseCompatible lists, per operation, the operations a concurrent commit
// may have done for ours to be rebuilt on top of it.
var rebaseCompatible = map[string][]string{
	"Append": {"Append", "Delete", "CreateIndex", "UpdateConfig", "Rewrite", "ReserveFragments", "Update", "DataReplacement"},
	// Update and Rewrite: the fragment-touching operations only when they
	// left commitRequest.modified alone (checked in rebaseTarget).
	"Update":       {"Append", "CreateIndex", "UpdateConfig", "ReserveFragments", "Project", "Delete", "Update", "Rewrite", "DataReplacement"},
	"Rewrite":      {"Append", "UpdateConfig", "ReserveFragments", "Delete", "Update", "Rewrite"},
	"Delete":       {"Append", "Delete", "CreateIndex", "UpdateConfig"},
	"UpdateConfig": {"Append", "Delete", "CreateIndex", "Rewrite", "ReserveFragments", "Update", "DataReplacement"},
	"CreateIndex":  {"Append", "Delete", "UpdateConfig"},
}

// commit builds and commits the next version after base (nil: version 1 of
// a new dataset) under dir, using the given naming scheme.
func commit(ctx context.Context, store storage.Store, dir string, scheme NamingScheme, base *Manifest, req commitRequest) (*Dataset, error) {
	staged := slices.Clone(req.staged)
	stage := func(p string) { staged = append(staged, p) }
	cleanup := func() {
		// Best effort, on a context that outlives a cancelled caller.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, p := range staged {
			_ = store.Delete(cctx, p)
		}
	}
	for attempt := 1; ; attempt++ {
		if base != nil {
			if err := base.checkWritable(); err != nil {
				cleanup()
				return nil, err
			}
		}
		next, tx, err := req.build(ctx, base, stage)
		if err != nil {
			cleanup()
			return nil, err
		}
		finalize(next, base, tx)
		if next.Version == 1 {
			// Lance writes the first transaction to a file as well.
			name := fmt.Sprintf("%d-%s.txn", tx.ReadVersion, tx.Uuid)
			p := joinPath(dir, transactionsDir, name)
			b, err := deterministic.Marshal(tx)
			if err == nil {
				err = storage.PutDeferred(ctx, store, p, b)
			}
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("dataset: write transaction file: %w", err)
			}
			stage(p)
			next.TransactionFile = name
		}
		next.Transaction = &Transaction{ReadVersion: tx.ReadVersion, UUID: tx.Uuid, Tag: tx.Tag, Properties: cloneOrNil(tx.TransactionProperties), Operation: operationName(tx), raw: tx}
		next.HasIndexSection = len(next.Indices) > 0
		file, err := EncodeManifest(next, next.HasIndexSection, tx)
		if err != nil {
			cleanup()
			return nil, err
		}
		// Every file this version refers to and writes is made durable
		// together with the version file's content (one round of parallel
		// fsyncs on local disk, nothing on object stores) before the
		// version file is created, so a published version never points at
		// a file a crash can lose. With deferSync nothing is synced here:
		// the caller syncs the version with the commit that refers to it.
		path := joinPath(dir, versionsDir, manifestFileName(scheme, next.Version))
		failpoint.Inject("dataset/files-staged")
		done := func() *Dataset {
			ds := landed(ctx, store, dir, scheme, path, int64(len(file)), next)
			if req.deferSync {
				ds.unsynced = append(append(slices.Clone(staged), req.written...), path)
			}
			return ds
		}
		if req.deferSync {
			err = storage.PutIfAbsentDeferred(ctx, store, path, file)
		} else {
			err = storage.PutIfAbsentAfterSync(ctx, store, path, file, append(slices.Clone(staged), req.written...))
		}
		if err == nil {
			failpoint.Inject("dataset/version-published")
			return done(), nil
		}
		// Whatever the error, the version file may be ours: a write whose
		// acknowledgement was lost, or a retried request whose first attempt
		// landed and that then saw its own write as a conflict (412). Treating
		// our own version as failed or as someone else's would delete the files
		// it references.
		ours, verr := isOurs(ctx, store, path, tx.Uuid)
		switch {
		case verr == nil && ours:
			return done(), nil
		case verr != nil:
			// When we cannot tell whether the version landed, keep the staged
			// files: deleting files of a landed commit would corrupt it.
			return nil, fmt.Errorf("%w: version %d of %s: %w (checking it: %v)", ErrCommitOutcomeUnknown, next.Version, store.Location(dir), err, verr)
		case !errors.Is(err, storage.ErrAlreadyExists):
			cleanup()
			return nil, fmt.Errorf("dataset: commit version %d of %s: %w", next.Version, store.Location(dir), err)
		}
		// Someone else committed this version.
		if base == nil {
			cleanup()
			return nil, fmt.Errorf("%w: %w: %s (version 1 exists)", ErrAlreadyExists, ErrCommitConflict, store.Location(dir))
		}
		allowed := rebaseCompatible[req.op]
		if req.exact && req.keepOnConflict {
			for _, p := range staged[len(req.staged):] {
				_ = store.Delete(ctx, p)
			}
			return nil, fmt.Errorf("%w: version %d of %s was committed by another writer", ErrCommitConflict, next.Version, store.Location(dir))
		}
		if req.exact || allowed == nil || attempt >= maxCommitAttempts {
			cleanup()
			return nil, fmt.Errorf("%w: version %d of %s was committed by another writer", ErrCommitConflict, next.Version, store.Location(dir))
		}
		latest, err := rebaseTarget(ctx, store, dir, base, allowed, req.modified)
		if err != nil {
			cleanup()
			return nil, err
		}
		if req.recheck != nil {
			if err := req.recheck(ctx, latest); err != nil {
				cleanup()
				return nil, err
			}
		}
		newBase := latest.manifest
		// Files staged by build are rebuilt next time; data files passed in
		// req.staged are reused.
		for _, p := range staged[len(req.staged):] {
			_ = store.Delete(ctx, p)
		}
		staged = staged[:len(req.staged)]
		base = newBase
		time.Sleep(time.Duration(rand.IntN(5*attempt)) * time.Millisecond)
	}
}

// landed finishes a successful commit: best-effort hint, new snapshot.
func landed(ctx context.Context, store storage.Store, dir string, scheme NamingScheme, path string, size int64, m *Manifest) *Dataset {
	_ = writeVersionHint(ctx, store, dir, m.Version)
	return &Dataset{store: store, dir: dir, manifest: m, loc: VersionInfo{Version: m.Version, Path: path, Size: size, Scheme: scheme}}
}

// isOurs reports whether the version file at path exists and holds our
// transaction (a put that failed in transit may still have landed).
func isOurs(ctx context.Context, store storage.Store, path, txUUID string) (bool, error) {
	b, err := store.Read(ctx, path)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return false, nil
	}
	return m.Transaction != nil && m.Transaction.UUID == txUUID, nil
}

// rebaseTarget loads the latest version and checks that every commit after
// base did an operation in allowed, touched none of the modified fragments
// and kept the schema's fields.
func rebaseTarget(ctx context.Context, store storage.Store, dir string, base *Manifest, allowed []string, modified []uint64) (*Dataset, error) {
	latest, err := Open(ctx, store, dir, OpenOptions{})
	if err != nil {
		return nil, err
	}
	for v := base.Version + 1; v <= latest.Version(); v++ {
		m := latest.manifest
		if v != latest.Version() {
			d, err := Open(ctx, store, dir, OpenOptions{Version: v})
			if err != nil {
				return nil, err
			}
			m = d.manifest
		}
		tx, err := transactionOf(ctx, store, dir, m)
		if err != nil {
			return nil, err
		}
		if tx == nil || !slices.Contains(allowed, tx.Operation) {
			op := "unknown"
			if tx != nil {
				op = tx.Operation
			}
			return nil, fmt.Errorf("%w: version %d of %s did a concurrent %s", ErrCommitConflict, v, store.Location(dir), op)
		}
		for _, id := range touchedFragments(tx) {
			if slices.Contains(modified, id) {
				return nil, fmt.Errorf("%w: version %d of %s did a concurrent %s of fragment %d", ErrCommitConflict, v, store.Location(dir), tx.Operation, id)
			}
		}
	}
	if !sameFields(base, latest.manifest) {
		return nil, fmt.Errorf("%w: the schema of %s changed concurrently", ErrCommitConflict, store.Location(dir))
	}
	return latest, nil
}

func sameFields(a, b *Manifest) bool {
	fa, fb := a.Schema.Flatten(), b.Schema.Flatten()
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		x, y := fa[i], fb[i]
		if x.ID != y.ID || x.ParentID != y.ParentID || x.Name != y.Name || x.LogicalType != y.LogicalType || x.Nullable != y.Nullable {
			return false
		}
	}
	return true
}

// finalize fills in what every commit sets the same way: version,
// timestamp, writer, feature flags, max fragment id, and the transaction's
// read version and uuid.
func finalize(next, base *Manifest, tx *tablepb.Transaction) {
	next.Version = 1
	if base != nil {
		next.Version = base.Version + 1
	}
	next.Timestamp = time.Now().UTC()
	next.WriterVersion = &WriterVersion{Library: WriterLibrary, Version: WriterLibraryVersion}
	next.Transaction = nil
	next.TransactionFile = ""
	next.Tag = ""
	// Feature flags as Lance derives them from the manifest's content.
	next.ReaderFlags, next.WriterFlags = 0, 0
	for _, f := range next.Fragments {
		if f.Deletion != nil {
			next.ReaderFlags |= FlagDeletionFiles
			next.WriterFlags |= FlagDeletionFiles
			break
		}
	}
	if len(next.Config) > 0 {
		next.WriterFlags |= FlagTableConfig
	}
	// max_fragment_id only grows (ids are never reused).
	for _, f := range next.Fragments {
		id := uint32(f.ID)
		if next.MaxFragmentID == nil || id > *next.MaxFragmentID {
			next.MaxFragmentID = proto.Uint32(id)
		}
	}
	if base != nil {
		tx.ReadVersion = base.Version
	}
	tx.Uuid = uuid.NewString()
}

// nextFrom starts the next manifest from base: same schema, fragments,
// indices, config, metadata and data format.
func nextFrom(base *Manifest) *Manifest {
	next := &Manifest{
		Schema:        base.Schema.Clone(),
		DataFormat:    base.DataFormat,
		Config:        cloneOrNil(base.Config),
		TableMetadata: cloneOrNil(base.TableMetadata),
		NextRowID:     base.NextRowID,
		BasePaths:     slices.Clone(base.BasePaths),
		Branch:        base.Branch,
		Indices:       slices.Clone(base.Indices),
	}
	if base.MaxFragmentID != nil {
		next.MaxFragmentID = proto.Uint32(*base.MaxFragmentID)
	}
	for _, f := range base.Fragments {
		next.Fragments = append(next.Fragments, f.clone())
	}
	return next
}
