package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// Compaction as Lance's compact_files plans and commits it.
//
// Planning (PlanCompaction): a fragment is a candidate when it has fewer
// physical rows than the target (Lance's target_rows_per_fragment, default
// 1,048,576) or more than MaterializeDeletionsThreshold (default 10%) of
// its rows deleted. Runs of adjacent candidates whose fragments the same
// indices cover form groups (Lance never mixes index coverage in a group),
// cut once a group's live rows reach the target; a group of one fragment is
// rewritten only when it has deletions to materialize.
//
// Committing (StageCompaction, then StagedCompaction.Commit): the new
// fragments take ids reserved by a ReserveFragments version first, so that
// indices can be rebuilt for the new row addresses before the Rewrite
// lands and a concurrent append cannot take those ids. The Rewrite version
// replaces every index covering a rewritten fragment with its rebuilt
// version (rewritten_indices), rebases over concurrent commits that left the
// rewritten fragments alone, and conflicts otherwise.

// CompactOptions tunes compaction planning.
type CompactOptions struct {
	// TargetRowsPerFragment: 0 is Lance's default, 1,048,576.
	TargetRowsPerFragment uint64
	// MaterializeDeletionsThreshold is the fraction of deleted rows that
	// makes a fragment a candidate on its own; 0 is Lance's default 0.1.
	MaterializeDeletionsThreshold float64
}

// DefaultTargetRowsPerFragment is Lance's target_rows_per_fragment.
const DefaultTargetRowsPerFragment = 1 << 20

// PlanCompaction returns the groups of fragment ids (in manifest order) a
// compaction of this version would rewrite.
func (d *Dataset) PlanCompaction(ctx context.Context, opts CompactOptions) ([][]uint64, error) {
	target := opts.TargetRowsPerFragment
	if target == 0 {
		target = DefaultTargetRowsPerFragment
	}
	thr := opts.MaterializeDeletionsThreshold
	if thr <= 0 {
		thr = 0.1
	}
	coverage := func(f *Fragment) string {
		var key []byte
		for _, ix := range d.manifest.Indices {
			if ix.FragmentBitmap != nil && f.ID <= uint64(^uint32(0)) && ix.FragmentBitmap.Contains(uint32(f.ID)) {
				key = append(key, ix.UUID...)
				key = append(key, 0)
			}
		}
		return string(key)
	}
	var groups [][]uint64
	var cur []uint64
	var curRows uint64
	curDel := false
	curKey := ""
	flush := func() {
		if len(cur) > 1 || (len(cur) == 1 && curDel) {
			groups = append(groups, cur)
		}
		cur, curRows, curDel = nil, 0, false
	}
	for _, f := range d.manifest.Fragments {
		if f.HasRowIDs || f.HasOverlays {
			flush()
			continue
		}
		live, ok := f.LiveRows()
		if !ok {
			n, err := d.FragmentLiveRows(ctx, f)
			if err != nil {
				return nil, err
			}
			live = n
		}
		deleted := f.PhysicalRows - min(live, f.PhysicalRows)
		hasDel := deleted > 0
		candidate := f.PhysicalRows < target || (f.PhysicalRows > 0 && float64(deleted)/float64(f.PhysicalRows) > thr)
		if !candidate {
			flush()
			continue
		}
		key := coverage(f)
		if len(cur) > 0 && (key != curKey || curRows >= target) {
			flush()
		}
		curKey = key
		cur = append(cur, f.ID)
		curRows += live
		curDel = curDel || hasDel
	}
	flush()
	return groups, nil
}

// StagedCompaction is a compaction whose new fragments are written (with
// reserved ids) but not committed. View is the dataset as it will be after
// the rewrite, for building the indices the rewrite invalidates.
type StagedCompaction struct {
	base   *Dataset
	view   *Dataset
	groups [][]uint64
	fresh  [][]*Fragment // per group
	files  []string
	done   bool
}

// StageCompaction reserves fragment ids (a ReserveFragments version) and
// writes the live rows of each group as new fragments.
func (d *Dataset) StageCompaction(ctx context.Context, groups [][]uint64) (*StagedCompaction, error) {
	if err := d.manifest.checkWritable(); err != nil {
		return nil, err
	}
	if err := checkWriteFormat(d.manifest.DataFormat.Version); err != nil {
		return nil, err
	}
	s := &StagedCompaction{base: d, groups: groups}
	fail := func(err error) (*StagedCompaction, error) {
		s.removeFiles(ctx)
		return nil, err
	}
	var total int
	for _, g := range groups {
		recs, err := d.ScanAll(ctx, ScanOptions{Fragments: g})
		if err != nil {
			return fail(err)
		}
		frags, staged, err := writeFragments(ctx, d.store, d.dir, d.manifest.Schema, d.manifest.DataFormat.Version, recs)
		for _, r := range recs {
			r.Release()
		}
		s.files = append(s.files, staged...)
		if err != nil {
			return fail(err)
		}
		s.fresh = append(s.fresh, frags)
		total += len(frags)
	}
	// Reserve the ids (a version of its own, as Lance's compaction does).
	reserved, first, err := d.reserveFragments(ctx, total)
	if err != nil {
		return fail(err)
	}
	id := first
	for _, g := range s.fresh {
		for _, f := range g {
			f.ID = id
			id++
		}
	}
	next := s.apply(reserved.manifest)
	next.Version = reserved.manifest.Version + 1
	next.Timestamp = time.Now().UTC()
	next.staged = true
	s.base = reserved
	s.view = &Dataset{store: d.store, dir: d.dir, manifest: next, loc: VersionInfo{Version: next.Version, Scheme: d.loc.Scheme}}
	return s, nil
}

// View is the dataset as the rewrite will leave it (read-only).
func (s *StagedCompaction) View() *Dataset { return s.view }

// Groups are the rewritten groups of fragment ids.
func (s *StagedCompaction) Groups() [][]uint64 { return s.groups }

// NewFragments is the number of fragments written.
func (s *StagedCompaction) NewFragments() int {
	n := 0
	for _, g := range s.fresh {
		n += len(g)
	}
	return n
}

func (s *StagedCompaction) removeFiles(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, p := range s.files {
		_ = s.base.store.Delete(cctx, p)
	}
}

// Abort deletes the staged data files.
func (s *StagedCompaction) Abort(ctx context.Context) {
	if !s.done {
		s.done = true
		s.removeFiles(ctx)
	}
}

// apply builds the manifest after the rewrite from base: every group's
// fragments replaced by its new ones, at the place of the group's first.
func (s *StagedCompaction) apply(base *Manifest) *Manifest {
	next := nextFrom(base)
	old := map[uint64]int{}
	for gi, g := range s.groups {
		for _, id := range g {
			old[id] = gi
		}
	}
	placed := map[int]bool{}
	var out []*Fragment
	for _, f := range next.Fragments {
		gi, ok := old[f.ID]
		if !ok {
			out = append(out, f)
			continue
		}
		if !placed[gi] {
			placed[gi] = true
			for _, nf := range s.fresh[gi] {
				out = append(out, nf.clone())
			}
		}
	}
	next.Fragments = out
	return next
}

// reserveFragments commits a ReserveFragments version taking n fragment
// ids, retrying on top of concurrent commits (a reservation depends on
// nothing but the counter). It returns that version and the first id.
func (d *Dataset) reserveFragments(ctx context.Context, n int) (*Dataset, uint64, error) {
	base := d
	for attempt := 1; ; attempt++ {
		var first uint64
		req := commitRequest{op: "ReserveFragments", exact: true, build: func(ctx context.Context, b *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
			next := nextFrom(b)
			first = b.NextFragmentID()
			if n > 0 {
				next.MaxFragmentID = proto.Uint32(uint32(first + uint64(n) - 1))
			}
			return next, &tablepb.Transaction{Operation: &tablepb.Transaction_ReserveFragments_{ReserveFragments: &tablepb.Transaction_ReserveFragments{NumFragments: uint32(n)}}}, nil
		}}
		ds, err := commit(ctx, base.store, base.dir, base.loc.Scheme, base.manifest, req)
		if err == nil {
			return ds, first, nil
		}
		if !errors.Is(err, ErrCommitConflict) || attempt >= maxRestoreAttempts {
			return nil, 0, err
		}
		if base, err = d.Latest(ctx); err != nil {
			return nil, 0, err
		}
	}
}

// Commit commits the Rewrite. rebuilt maps the UUID of each index covering
// a rewritten fragment to its replacement built over View (files written
// under _indices/<new uuid>/); an index covering a rewritten fragment
// without a replacement keeps its data and loses those fragments from its
// bitmap (readers scan the new fragments).
func (s *StagedCompaction) Commit(ctx context.Context, rebuilt map[string]*IndexMetadata) (*Dataset, error) {
	if s.done {
		return nil, invalidf("staged compaction already committed or aborted")
	}
	s.done = true
	var modified []uint64
	for _, g := range s.groups {
		modified = append(modified, g...)
	}
	var written []string
	for _, ix := range rebuilt {
		for _, f := range ix.Files {
			written = append(written, joinPath(s.base.dir, indicesDir, ix.UUID, f.Path))
		}
	}
	req := commitRequest{op: "Rewrite", staged: s.files, modified: modified, written: written, build: func(ctx context.Context, base *Manifest, stage func(string)) (*Manifest, *tablepb.Transaction, error) {
		for _, id := range modified {
			if !slices.ContainsFunc(base.Fragments, func(f *Fragment) bool { return f.ID == id }) {
				return nil, nil, fmt.Errorf("%w: fragment %d of the compaction was removed concurrently", ErrCommitConflict, id)
			}
		}
		next := s.apply(base)
		rw := &tablepb.Transaction_Rewrite{}
		byID := map[uint64]*Fragment{}
		for _, f := range base.Fragments {
			byID[f.ID] = f
		}
		for gi, g := range s.groups {
			grp := &tablepb.Transaction_Rewrite_RewriteGroup{}
			for _, id := range g {
				grp.OldFragments = append(grp.OldFragments, byID[id].proto())
			}
			for _, f := range s.fresh[gi] {
				grp.NewFragments = append(grp.NewFragments, f.proto())
			}
			rw.Groups = append(rw.Groups, grp)
		}
		var indices []*IndexMetadata
		for _, ix := range next.Indices {
			if nix, ok := rebuilt[ix.UUID]; ok {
				oldID, err1 := uuid.Parse(ix.UUID)
				newID, err2 := uuid.Parse(nix.UUID)
				if err1 != nil || err2 != nil {
					return nil, nil, invalidf("index uuid %q / %q", ix.UUID, nix.UUID)
				}
				ri := &tablepb.Transaction_Rewrite_RewrittenIndex{OldId: &tablepb.UUID{Uuid: oldID[:]}, NewId: &tablepb.UUID{Uuid: newID[:]}}
				if nix.DetailsTypeURL != "" {
					// Lance requires the details of a rewritten index.
					ri.NewIndexDetails = &anypb.Any{TypeUrl: nix.DetailsTypeURL, Value: slices.Clone(nix.Details)}
				}
				if nix.IndexVersion != nil {
					ri.NewIndexVersion = uint32(*nix.IndexVersion)
				}
				rw.RewrittenIndices = append(rw.RewrittenIndices, ri)
				indices = append(indices, nix)
				continue
			}
			if ix.FragmentBitmap != nil {
				c := *ix
				c.FragmentBitmap = ix.FragmentBitmap.Clone()
				for _, id := range modified {
					if id <= uint64(^uint32(0)) {
						c.FragmentBitmap.Remove(uint32(id))
					}
				}
				indices = append(indices, &c)
				continue
			}
			indices = append(indices, ix)
		}
		next.Indices = indices
		return next, &tablepb.Transaction{Operation: &tablepb.Transaction_Rewrite_{Rewrite: rw}}, nil
	}}
	return commit(ctx, s.base.store, s.base.dir, s.base.loc.Scheme, s.base.manifest, req)
}
