package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
	lanceschema "github.com/lancecat/lancecat/lance/schema"
)

// StagedOverwrite is an overwrite whose data files are written but whose
// version is not committed yet: the two-phase form of OverwriteWith. Its
// View reads the uncommitted next version (fragment ids from 0, version
// base+1), so indices can be built over exactly the rows that will land and
// committed in the same version, as the reference does for `__manifest`
// rewrites (data, then index files, then one put-if-absent of the version
// file).
//
// Exactly one of Commit or Abort must be called. Files staged for an
// overwrite that does not land (data files, and the index files and tracked
// index directories) are deleted; files of a landed commit never are, and
// neither are they when the outcome is unknown.
type StagedOverwrite struct {
	base   *Dataset
	view   *Dataset
	frags  []*Fragment
	schema *lanceschema.Schema
	opts   OverwriteOptions
	files  []string // data files written

	mu        sync.Mutex
	indexDirs []string // index UUIDs whose directories are removed if the overwrite does not land
	done      bool
}

// StageOverwrite writes records as the data files of the next version, like
// OverwriteWith, without committing. opts.Indices is ignored: the indices are
// given to Commit.
func (d *Dataset) StageOverwrite(ctx context.Context, records []arrow.RecordBatch, opts OverwriteOptions) (*StagedOverwrite, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	version := d.manifest.DataFormat.Version
	if err := checkWriteFormat(version); err != nil {
		return nil, err
	}
	ls := d.manifest.Schema
	if !opts.KeepSchema {
		if len(records) == 0 {
			return nil, invalidf("overwrite with a new schema needs at least one record batch")
		}
		var err error
		if ls, err = lanceschema.FromArrow(records[0].Schema()); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		if err := checkSchema(ls); err != nil {
			return nil, err
		}
	}
	frags, staged, err := writeFragments(ctx, d.store, d.dir, ls, version, records)
	if err != nil {
		return nil, err
	}
	assignIDs(frags, 0)
	opts.Indices = nil
	s := &StagedOverwrite{base: d, frags: frags, schema: ls, opts: opts, files: staged}
	m := s.manifest(d.manifest, nil)
	m.Version = d.manifest.Version + 1
	m.Timestamp = time.Now().UTC()
	m.WriterVersion = &WriterVersion{Library: WriterLibrary, Version: WriterLibraryVersion}
	m.staged = true
	s.view = &Dataset{store: d.store, dir: d.dir, manifest: m, loc: VersionInfo{Version: m.Version, Scheme: d.loc.Scheme}}
	return s, nil
}

// manifest builds the next manifest from base with the staged fragments
// and the given indices.
func (s *StagedOverwrite) manifest(base *Manifest, indices []*IndexMetadata) *Manifest {
	next := nextFrom(base)
	next.Schema = s.schema.Clone()
	next.Indices = indices
	next.TableMetadata = (&mapUpdate{set: s.opts.SetTableMetadata, remove: s.opts.UnsetTableMetadata}).apply(next.TableMetadata)
	next.Fragments = make([]*Fragment, len(s.frags))
	for i, f := range s.frags {
		next.Fragments[i] = f.clone()
	}
	return next
}

// View is a read-only snapshot of the uncommitted version: Scan, Take,
// Fragments, Schema and Version (base+1) work as on a committed version;
// any write on it fails with ErrInvalidArgument. Index files built over it
// (under its _indices/) belong to the staged version.
func (s *StagedOverwrite) View() *Dataset { return s.view }

// DataFiles lists the store paths of the staged data files.
func (s *StagedOverwrite) DataFiles() []string { return slices.Clone(s.files) }

// TrackIndexDir registers the index UUID whose _indices/<uuid>/ directory
// is being written for this overwrite: Abort, or a commit that does not
// land, deletes the directory. Track before writing index files so that a
// build failing half way leaves nothing behind.
func (s *StagedOverwrite) TrackIndexDir(indexUUID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.indexDirs, indexUUID) {
		s.indexDirs = append(s.indexDirs, indexUUID)
	}
}

func (s *StagedOverwrite) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return invalidf("staged overwrite of version %d already committed or aborted", s.view.Version())
	}
	s.done = true
	return nil
}

// removeIndexDirs deletes the tracked index directories (best effort, on a
// context that outlives a cancelled caller).
func (s *StagedOverwrite) removeIndexDirs(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []error
	for _, id := range s.indexDirs {
		if _, err := s.base.store.DeletePrefix(cctx, joinPath(s.base.dir, indicesDir, id)+"/"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Abort deletes the staged data files and tracked index directories.
func (s *StagedOverwrite) Abort(ctx context.Context) error {
	if err := s.finish(); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []error
	for _, p := range s.files {
		if err := s.base.store.Delete(cctx, p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.removeIndexDirs(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Commit commits the staged version with indices in its index section (an
// Overwrite transaction; the index files must be under
// _indices/<uuid>/ already). Like OverwriteWith it never rebases: a
// concurrent commit of the version is an ErrCommitConflict, and the staged
// files are deleted. The indices' directories are tracked automatically.
func (s *StagedOverwrite) Commit(ctx context.Context, indices []*IndexMetadata) (*Dataset, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	staged := slices.Clone(s.files)
	for _, ix := range indices {
		if err := s.checkIndex(ix); err != nil {
			_ = s.abortFiles(ctx, staged)
			return nil, err
		}
		s.TrackIndexDir(ix.UUID)
		for _, f := range ix.Files {
			staged = append(staged, joinPath(s.base.dir, indicesDir, ix.UUID, f.Path))
		}
	}
	req := commitRequest{op: "Overwrite", staged: staged, written: s.opts.Sync, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		next := s.manifest(base, slices.Clone(indices))
		return next, overwriteTx(next, nil), nil
	}}
	out, err := commit(ctx, s.base.store, s.base.dir, s.base.loc.Scheme, s.base.manifest, req)
	if err != nil && !errors.Is(err, ErrCommitOutcomeUnknown) {
		// commit deleted the listed files; drop what else the tracked
		// directories hold (files of a half-built index).
		_ = s.removeIndexDirs(ctx)
	}
	return out, err
}

func (s *StagedOverwrite) abortFiles(ctx context.Context, files []string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, p := range files {
		_ = s.base.store.Delete(cctx, p)
	}
	return s.removeIndexDirs(ctx)
}

func (s *StagedOverwrite) checkIndex(ix *IndexMetadata) error {
	if ix == nil || ix.Name == "" {
		return invalidf("index without a name")
	}
	if _, err := uuid.Parse(ix.UUID); err != nil {
		return invalidf("index %q: uuid %q: %v", ix.Name, ix.UUID, err)
	}
	for _, id := range ix.Fields {
		if s.schema.FieldByID(id) == nil {
			return invalidf("index %q: no field id %d", ix.Name, id)
		}
	}
	for _, f := range ix.Files {
		if f.Path == "" || f.Path != cleanRel(f.Path) {
			return invalidf("index %q: bad file name %q", ix.Name, f.Path)
		}
	}
	return nil
}

// cleanRel returns p when it is a plain relative name without "." or ".."
// segments, otherwise "" (so a comparison with p fails).
func cleanRel(p string) string {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			seg := p[start:i]
			if seg == "" || seg == "." || seg == ".." {
				return ""
			}
			start = i + 1
		}
	}
	return p
}
