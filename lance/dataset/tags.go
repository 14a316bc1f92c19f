package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/lancecat/lancecat/storage"
)

// Tags are Lance's named references to versions: one JSON file per tag,
// _refs/tags/<name>.json, holding {"branch", "version", "createdAt",
// "updatedAt", "manifestSize", "metadata"} (camelCase, as Lance's
// TagContents serializes; branch null is the main branch). Lance creates a
// tag with a put-if-absent, replaces it on update and deletes the file on
// delete; its cleanup never removes a tagged version.

// Errors of tag operations. Match them with errors.Is.
var (
	ErrTagNotFound = errors.New("dataset: tag not found")
	ErrTagExists   = errors.New("dataset: tag already exists")
	ErrInvalidTag  = fmt.Errorf("%w: invalid tag name", ErrInvalidArgument)
)

const (
	refsDir = "_refs"
	tagsDir = "tags"
	// maxTagFileSize bounds a tag file we read.
	maxTagFileSize = 1 << 20
)

// Tag is one tag of a dataset.
type Tag struct {
	Name         string
	Branch       *string // nil: the main branch
	Version      uint64
	CreatedAt    *time.Time
	UpdatedAt    *time.Time
	ManifestSize uint64
	Metadata     map[string]string
}

// tagFile is the JSON layout of a tag file, fields in Lance's order.
type tagFile struct {
	Branch       *string           `json:"branch"`
	Version      uint64            `json:"version"`
	CreatedAt    *time.Time        `json:"createdAt,omitempty"`
	UpdatedAt    *time.Time        `json:"updatedAt,omitempty"`
	ManifestSize uint64            `json:"manifestSize"`
	Metadata     map[string]string `json:"metadata"`
}

// CheckTagName applies Lance's rules for a tag name: letters, digits, '.',
// '-' and '_'; not starting or ending with '.', no "..", not ending with
// ".lock".
func CheckTagName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: a tag name cannot be empty", ErrInvalidTag)
	case strings.HasPrefix(name, "."), strings.HasSuffix(name, "."):
		return fmt.Errorf("%w: %q cannot begin or end with a dot", ErrInvalidTag, name)
	case strings.HasSuffix(name, ".lock"):
		return fmt.Errorf("%w: %q cannot end with .lock", ErrInvalidTag, name)
	case strings.Contains(name, ".."):
		return fmt.Errorf("%w: %q cannot have two consecutive dots", ErrInvalidTag, name)
	case len(name) > 255:
		return fmt.Errorf("%w: %q is longer than 255 bytes", ErrInvalidTag, name)
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_') {
			return fmt.Errorf("%w: %q: characters must be letters, digits, '.', '-' or '_'", ErrInvalidTag, name)
		}
	}
	return nil
}

func tagPath(dir, name string) string { return joinPath(dir, refsDir, tagsDir, name+".json") }

// ListTags lists the tags of the dataset under dir, by name.
func ListTags(ctx context.Context, store storage.Store, dir string) ([]Tag, error) {
	prefix := joinPath(dir, refsDir, tagsDir) + "/"
	objs, err := store.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("dataset: list tags of %s: %w", store.Location(dir), err)
	}
	var out []Tag
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Path, prefix)
		name, ok := strings.CutSuffix(rel, ".json")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		t, err := readTag(ctx, store, o.Path, name, o.Size)
		if errors.Is(err, ErrTagNotFound) {
			continue // deleted concurrently
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GetTag reads one tag.
func GetTag(ctx context.Context, store storage.Store, dir, name string) (Tag, error) {
	if err := CheckTagName(name); err != nil {
		return Tag{}, err
	}
	p := tagPath(dir, name)
	info, err := store.Stat(ctx, p)
	if errors.Is(err, storage.ErrNotFound) {
		return Tag{}, fmt.Errorf("%w: tag %s of %s", ErrTagNotFound, name, store.Location(dir))
	}
	if err != nil {
		return Tag{}, err
	}
	return readTag(ctx, store, p, name, info.Size)
}

func readTag(ctx context.Context, store storage.Store, p, name string, size int64) (Tag, error) {
	if size > maxTagFileSize {
		return Tag{}, corruptf("tag file %s of %d bytes exceeds the limit", store.Location(p), size)
	}
	b, err := store.Read(ctx, p)
	if errors.Is(err, storage.ErrNotFound) {
		return Tag{}, fmt.Errorf("%w: tag %s", ErrTagNotFound, name)
	}
	if err != nil {
		return Tag{}, err
	}
	return decodeTag(name, b)
}

func decodeTag(name string, b []byte) (Tag, error) {
	if len(b) > maxTagFileSize {
		return Tag{}, corruptf("tag file of %d bytes exceeds the limit", len(b))
	}
	var f tagFile
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return Tag{}, corruptf("tag %s: %v", name, err)
	}
	if f.Version == 0 {
		return Tag{}, corruptf("tag %s: version 0", name)
	}
	return Tag{Name: name, Branch: f.Branch, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt, ManifestSize: f.ManifestSize, Metadata: f.Metadata}, nil
}

func encodeTag(t Tag) ([]byte, error) {
	md := t.Metadata
	if md == nil {
		md = map[string]string{}
	}
	b, err := json.MarshalIndent(tagFile{Branch: t.Branch, Version: t.Version, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, ManifestSize: t.ManifestSize, Metadata: md}, "", "  ")
	if err != nil {
		return nil, err
	}
	return b, nil
}

// tagTarget resolves the manifest a new tag points at: version (0: the
// latest).
func tagTarget(ctx context.Context, store storage.Store, dir string, version uint64) (VersionInfo, error) {
	if version == 0 {
		return LatestVersion(ctx, store, dir)
	}
	vi, err := findVersion(ctx, store, dir, version)
	if err != nil {
		if _, err2 := OpenVersion(ctx, store, dir, version); err2 != nil {
			return VersionInfo{}, err2
		}
		return VersionInfo{}, err
	}
	return vi, nil
}

// CreateTag tags version (0: the latest) of the dataset as name. A tag of
// that name already there fails with ErrTagExists (put-if-absent, as Lance).
func CreateTag(ctx context.Context, store storage.Store, dir, name string, version uint64) (Tag, error) {
	if err := CheckTagName(name); err != nil {
		return Tag{}, err
	}
	vi, err := tagTarget(ctx, store, dir, version)
	if err != nil {
		return Tag{}, err
	}
	now := time.Now().UTC()
	t := Tag{Name: name, Version: vi.Version, CreatedAt: &now, UpdatedAt: &now, ManifestSize: uint64(vi.Size)}
	b, err := encodeTag(t)
	if err != nil {
		return Tag{}, err
	}
	if err := store.PutIfAbsent(ctx, tagPath(dir, name), b); err != nil {
		if errors.Is(err, storage.ErrAlreadyExists) {
			return Tag{}, fmt.Errorf("%w: tag %s of %s", ErrTagExists, name, store.Location(dir))
		}
		return Tag{}, fmt.Errorf("dataset: create tag %s: %w", name, err)
	}
	return t, nil
}

// UpdateTag points an existing tag at version (0: the latest), keeping its
// creation time and metadata.
func UpdateTag(ctx context.Context, store storage.Store, dir, name string, version uint64) (Tag, error) {
	old, err := GetTag(ctx, store, dir, name)
	if err != nil {
		return Tag{}, err
	}
	vi, err := tagTarget(ctx, store, dir, version)
	if err != nil {
		return Tag{}, err
	}
	now := time.Now().UTC()
	t := old
	t.Branch, t.Version, t.ManifestSize, t.UpdatedAt = nil, vi.Version, uint64(vi.Size), &now
	b, err := encodeTag(t)
	if err != nil {
		return Tag{}, err
	}
	if err := store.Put(ctx, tagPath(dir, name), b); err != nil {
		return Tag{}, fmt.Errorf("dataset: update tag %s: %w", name, err)
	}
	return t, nil
}

// DeleteTag removes a tag; a missing one is ErrTagNotFound.
func DeleteTag(ctx context.Context, store storage.Store, dir, name string) error {
	if _, err := GetTag(ctx, store, dir, name); err != nil {
		return err
	}
	if err := store.Delete(ctx, tagPath(dir, name)); err != nil {
		return fmt.Errorf("dataset: delete tag %s: %w", name, err)
	}
	return nil
}

// OpenTag opens the version a tag of the main branch points at.
func OpenTag(ctx context.Context, store storage.Store, dir, name string) (*Dataset, error) {
	t, err := GetTag(ctx, store, dir, name)
	if err != nil {
		return nil, err
	}
	if t.Branch != nil && *t.Branch != "main" {
		return nil, fmt.Errorf("%w: tag %s points at branch %q (branches are not supported)", ErrUnsupported, name, *t.Branch)
	}
	return OpenVersion(ctx, store, dir, t.Version)
}
