package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/lancecat/lancecat/storage"
)

// NamingScheme is how a dataset names its version files.
type NamingScheme int

const (
	// NamingV2 names version v "{u64::MAX - v}.manifest", zero-padded to 20
	// digits, so that a lexically sorted listing starts with the latest.
	// Lance writes it for new datasets.
	NamingV2 NamingScheme = iota
	// NamingV1 names version v "{v}.manifest" (older datasets).
	NamingV1
)

func (s NamingScheme) String() string {
	if s == NamingV1 {
		return "v1"
	}
	return "v2"
}

const (
	versionsDir      = "_versions"
	transactionsDir  = "_transactions"
	deletionsDir     = "_deletions"
	dataDir          = "data"
	indicesDir       = "_indices"
	manifestExt      = ".manifest"
	versionHintName  = "latest_version_hint.json"
	v2ManifestDigits = 20
)

// manifestFileName is the file name (inside _versions) of a version.
func manifestFileName(s NamingScheme, version uint64) string {
	if s == NamingV1 {
		return strconv.FormatUint(version, 10) + manifestExt
	}
	return fmt.Sprintf("%020d", math.MaxUint64-version) + manifestExt
}

// parseManifestFileName recognizes a version file name of either scheme.
// Detached versions ("d..."), staging files and anything else are rejected.
func parseManifestFileName(name string) (uint64, NamingScheme, bool) {
	stem, ok := strings.CutSuffix(name, manifestExt)
	if !ok || stem == "" {
		return 0, 0, false
	}
	for _, c := range stem {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
	}
	n, err := strconv.ParseUint(stem, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if len(stem) == v2ManifestDigits {
		if n == math.MaxUint64 { // version 0 does not exist
			return 0, 0, false
		}
		return math.MaxUint64 - n, NamingV2, true
	}
	if n == 0 {
		return 0, 0, false
	}
	return n, NamingV1, true
}

// joinPath joins a dataset directory (possibly "") and a relative path.
func joinPath(dir string, elems ...string) string {
	parts := make([]string, 0, len(elems)+1)
	if d := strings.Trim(dir, "/"); d != "" {
		parts = append(parts, d)
	}
	parts = append(parts, elems...)
	return path.Join(parts...)
}

// VersionInfo describes one version file.
type VersionInfo struct {
	Version uint64
	Path    string // store path of the manifest file
	Size    int64
	Scheme  NamingScheme
}

// ListVersions lists every version of the dataset in dir, oldest first. A
// directory with no version files fails with ErrNotFound. A directory mixing
// both naming schemes is corrupt.
func ListVersions(ctx context.Context, store storage.Store, dir string) ([]VersionInfo, error) {
	objs, err := store.List(ctx, joinPath(dir, versionsDir)+"/")
	if err != nil {
		return nil, fmt.Errorf("dataset: list versions of %s: %w", store.Location(dir), err)
	}
	var out []VersionInfo
	var schemes [2]bool
	prefix := joinPath(dir, versionsDir) + "/"
	for _, o := range objs {
		name := strings.TrimPrefix(o.Path, prefix)
		if strings.Contains(name, "/") {
			continue
		}
		v, s, ok := parseManifestFileName(name)
		if !ok {
			continue
		}
		schemes[s] = true
		out = append(out, VersionInfo{Version: v, Path: o.Path, Size: o.Size, Scheme: s})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no version files under %s", ErrNotFound, store.Location(joinPath(dir, versionsDir)))
	}
	if schemes[NamingV1] && schemes[NamingV2] {
		return nil, corruptf("%s mixes V1 and V2 manifest names", store.Location(joinPath(dir, versionsDir)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// LatestVersion finds the newest version of the dataset at dir without
// reading its manifest (a version hint read and a probe for successors on
// most stores); ErrNotFound when there is none. A caller holding that
// version open already can skip re-opening it.
func LatestVersion(ctx context.Context, store storage.Store, dir string) (VersionInfo, error) {
	return latestVersion(ctx, store, dir)
}

// latestVersion finds the newest version. It probes upward from the version
// hint when there is one (the hint is only a starting point: the files
// decide), and falls back to listing _versions.
func latestVersion(ctx context.Context, store storage.Store, dir string) (VersionInfo, error) {
	if hint, ok := readVersionHint(ctx, store, dir); ok {
		if vi, ok, err := probeFrom(ctx, store, dir, hint); err != nil {
			return VersionInfo{}, err
		} else if ok {
			return vi, nil
		}
	}
	all, err := ListVersions(ctx, store, dir)
	if err != nil {
		return VersionInfo{}, err
	}
	return all[len(all)-1], nil
}

// probeFrom checks that version hint exists and walks upward while the next
// version exists. ok is false when the hinted version does not exist.
func probeFrom(ctx context.Context, store storage.Store, dir string, hint uint64) (VersionInfo, bool, error) {
	var found VersionInfo
	var scheme NamingScheme
	for _, s := range []NamingScheme{NamingV2, NamingV1} {
		vi, ok, err := statVersion(ctx, store, dir, s, hint)
		if err != nil {
			return VersionInfo{}, false, err
		}
		if ok {
			found, scheme = vi, s
			break
		}
	}
	if found.Path == "" {
		return VersionInfo{}, false, nil
	}
	for found.Version < math.MaxUint64-1 {
		vi, ok, err := statVersion(ctx, store, dir, scheme, found.Version+1)
		if err != nil {
			return VersionInfo{}, false, err
		}
		if !ok {
			break
		}
		found = vi
	}
	return found, true, nil
}

func statVersion(ctx context.Context, store storage.Store, dir string, s NamingScheme, v uint64) (VersionInfo, bool, error) {
	p := joinPath(dir, versionsDir, manifestFileName(s, v))
	info, err := store.Stat(ctx, p)
	if errors.Is(err, storage.ErrNotFound) {
		return VersionInfo{}, false, nil
	}
	if err != nil {
		return VersionInfo{}, false, fmt.Errorf("dataset: stat %s: %w", store.Location(p), err)
	}
	return VersionInfo{Version: v, Path: p, Size: info.Size, Scheme: s}, true, nil
}

// findVersion locates one version file, trying the V2 name first.
func findVersion(ctx context.Context, store storage.Store, dir string, v uint64) (VersionInfo, error) {
	if v == 0 || v >= math.MaxUint64 {
		return VersionInfo{}, fmt.Errorf("%w: version %d is out of range", ErrVersionNotFound, v)
	}
	for _, s := range []NamingScheme{NamingV2, NamingV1} {
		vi, ok, err := statVersion(ctx, store, dir, s, v)
		if err != nil {
			return VersionInfo{}, err
		}
		if ok {
			return vi, nil
		}
	}
	// Distinguish a missing version from a missing dataset.
	if _, err := latestVersion(ctx, store, dir); err != nil {
		return VersionInfo{}, err
	}
	return VersionInfo{}, fmt.Errorf("%w: version %d of %s", ErrVersionNotFound, v, store.Location(dir))
}

type versionHint struct {
	Version uint64 `json:"version"`
}

// readVersionHint reads _versions/latest_version_hint.json; any problem
// (missing, unreadable, malformed) just means "no hint".
func readVersionHint(ctx context.Context, store storage.Store, dir string) (uint64, bool) {
	p := joinPath(dir, versionsDir, versionHintName)
	info, err := store.Stat(ctx, p)
	if err != nil || info.Size > 4096 {
		return 0, false
	}
	b, err := store.Read(ctx, p)
	if err != nil {
		return 0, false
	}
	var h versionHint
	if err := json.Unmarshal(b, &h); err != nil || h.Version == 0 {
		return 0, false
	}
	return h.Version, true
}

// writeVersionHint records the latest version, best effort. It is never
// synced: readers treat the hint as a starting point and probe for newer
// versions, so losing it in a crash costs nothing.
func writeVersionHint(ctx context.Context, store storage.Store, dir string, v uint64) error {
	b, _ := json.Marshal(versionHint{Version: v})
	return storage.PutDeferred(ctx, store, joinPath(dir, versionsDir, versionHintName), b)
}
