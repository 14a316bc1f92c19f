package catalog

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Delimiter joins the parts of an object id in the `__manifest` table.
const Delimiter = "$"

// Ident names a namespace or a table: the namespace path, followed (for a
// table) by the table name. The empty Ident is the root namespace.
type Ident []string

// ObjectID joins the parts with "$", as stored in `__manifest`.
func (id Ident) ObjectID() string { return strings.Join(id, Delimiter) }

// Namespace returns all parts but the last (the namespace of a table).
func (id Ident) Namespace() Ident {
	if len(id) == 0 {
		return nil
	}
	return id[:len(id)-1]
}

// Name returns the last part.
func (id Ident) Name() string {
	if len(id) == 0 {
		return ""
	}
	return id[len(id)-1]
}

// Child returns id extended by name.
func (id Ident) Child(name string) Ident {
	out := make(Ident, 0, len(id)+1)
	out = append(out, id...)
	return append(out, name)
}

func (id Ident) String() string { return strings.Join(id, ".") }

// ParseObjectID splits an object id at every "$", as the reference
// implementation does.
func ParseObjectID(objectID string) Ident { return Ident(strings.Split(objectID, Delimiter)) }

// childPrefix is the object_id prefix of the children of namespace ns.
func childPrefix(ns Ident) string {
	if len(ns) == 0 {
		return ""
	}
	return ns.ObjectID() + Delimiter
}

// Name limits. A table's directory is "<8 hex>_<object id>" (or
// "<name>.lance" for a root table): one path segment, which file systems
// refuse beyond 255 bytes.
const (
	// MaxNameBytes bounds one namespace or table name, in bytes of UTF-8.
	MaxNameBytes = 128
	// MaxObjectIDBytes bounds a whole object id (names joined by "$").
	MaxObjectIDBytes = 240
)

// ValidateName checks a name lancecat is about to create: not empty, valid
// UTF-8 in Unicode normalization form C (so that NFC/NFD look-alike twins
// cannot both be created), at most MaxNameBytes bytes, no "$" (the object id
// delimiter), no "/" or backslash (path separators in table directory names),
// no control characters and no invisible format characters (Unicode category
// Cf: U+200B, U+202E, ...). Names other clients created are never validated:
// they are listed, described and dropped as they are.
func ValidateName(kind, name string) error {
	switch {
	case name == "":
		return newErr(CodeInvalidInput, nil, "%s name must not be empty", kind)
	case !utf8.ValidString(name):
		return newErr(CodeInvalidInput, nil, "%s name %q is not valid UTF-8", kind, name)
	case len(name) > MaxNameBytes:
		return newErr(CodeInvalidInput, nil, "%s name of %d bytes exceeds the limit of %d bytes", kind, len(name), MaxNameBytes)
	case !norm.NFC.IsNormalString(name):
		return newErr(CodeInvalidInput, nil, "%s name %q is not in Unicode normalization form C (write it as %q)", kind, name, norm.NFC.String(name))
	case strings.Contains(name, Delimiter):
		return newErr(CodeInvalidInput, nil, "%s name %q must not contain %q", kind, name, Delimiter)
	case strings.ContainsAny(name, `/\`):
		return newErr(CodeInvalidInput, nil, "%s name %q must not contain \"/\" or \"\\\"", kind, name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return newErr(CodeInvalidInput, nil, "%s name %q must not contain control characters", kind, name)
		}
		if unicode.Is(unicode.Cf, r) {
			return newErr(CodeInvalidInput, nil, "%s name %q must not contain the invisible format character %U", kind, name, r)
		}
	}
	return nil
}

func validateIdent(kind string, id Ident) error {
	if n := len(id.ObjectID()); n > MaxObjectIDBytes {
		return newErr(CodeInvalidInput, nil, "%s %q: object id of %d bytes exceeds the limit of %d bytes", kind, id.String(), n, MaxObjectIDBytes)
	}
	for i, part := range id {
		k := "namespace"
		if i == len(id)-1 {
			k = kind
		}
		if err := ValidateName(k, part); err != nil {
			return err
		}
	}
	return nil
}

// newTableDirName returns a fresh hash-named table directory
// "<8 lowercase hex>_<object_id>". The reference hashes a random u64 with the
// object id and keeps the low 32 bits: the prefix is random, only there for
// object-store key spreading and to keep a recreated table out of its
// predecessor's directory. Nobody recomputes it (the location is stored in
// the manifest), so 32 random bits are equivalent.
func newTableDirName(objectID string) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return fmt.Sprintf("%08x_%s", binary.BigEndian.Uint32(b[:]), objectID)
}

// v1DirName is the compatibility-mode directory of root table name.
func v1DirName(name string) string { return name + ".lance" }

// ListOptions pages a listing. Names are sorted bytewise; PageToken is the
// last name of the previous page (listing resumes strictly after it).
type ListOptions struct {
	PageToken string
	// Limit, when not nil, is an inclusive upper bound on the number of
	// names returned; *Limit == 0 returns no names and no token (as the
	// reference does). nil means no limit.
	Limit *int
}

// Limit returns a pointer to n, for ListOptions.Limit.
func Limit(n int) *int { return &n }

// Page is one page of a listing. NextPageToken is empty on the last page.
type Page struct {
	Names         []string
	NextPageToken string
}

// paginate sorts and deduplicates names and applies token and limit the way
// the reference does: start strictly after the token; with a positive limit
// smaller than what is left, return limit names and the last one as token.
func paginate(names []string, opts ListOptions) Page {
	names = sortMostlySorted(names)
	names = dedupSorted(names)
	if opts.PageToken != "" {
		i := sort.SearchStrings(names, opts.PageToken)
		for i < len(names) && names[i] <= opts.PageToken {
			i++
		}
		names = names[i:]
	}
	p := Page{Names: names}
	if opts.Limit != nil && *opts.Limit >= 0 && len(names) > *opts.Limit {
		n := *opts.Limit
		p.Names = names[:n]
		if n > 0 {
			p.NextPageToken = names[n-1]
		}
	}
	if p.Names == nil {
		p.Names = []string{}
	}
	return p
}

// sortMostlySorted sorts names, which usually arrive nearly sorted: a
// `__manifest` rewrite stores rows in object_id order and later commits
// append a few rows after them. The ascending run kept greedily from the
// front is merged with the sorted stragglers, O(n + k log k) for k
// stragglers instead of a full sort; with many stragglers it sorts.
func sortMostlySorted(names []string) []string {
	var kept, strays []string
	for i, v := range names {
		if len(kept) > 0 && v < kept[len(kept)-1] {
			strays = append(strays, v)
			if len(strays) > len(names)/16 {
				// kept was compacted into names' front: put the strays
				// back behind it, so names holds every name again.
				copy(names[len(kept):i+1], strays)
				sort.Strings(names)
				return names
			}
			continue
		}
		if len(strays) == 0 {
			kept = names[:i+1] // still a prefix of names: no copy yet
		} else {
			kept = append(kept, v)
		}
	}
	if len(strays) == 0 {
		return names
	}
	sort.Strings(strays)
	out := make([]string, 0, len(names))
	i, j := 0, 0
	for i < len(kept) && j < len(strays) {
		if strays[j] < kept[i] {
			out = append(out, strays[j])
			j++
		} else {
			out = append(out, kept[i])
			i++
		}
	}
	out = append(out, kept[i:]...)
	return append(out, strays[j:]...)
}

func dedupSorted(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// encodeProperties serializes properties as the JSON object text of the
// metadata column; empty or nil properties are NULL (as the reference
// writes them).
func encodeProperties(props map[string]string) (*string, error) {
	if len(props) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(props)
	if err != nil {
		return nil, newErr(CodeInternal, err, "encode properties")
	}
	s := string(b)
	return &s, nil
}

// decodeProperties parses the metadata column. NULL gives an empty map.
func decodeProperties(objectID string, metadata *string) (map[string]string, error) {
	props := map[string]string{}
	if metadata == nil || *metadata == "" {
		return props, nil
	}
	if err := json.Unmarshal([]byte(*metadata), &props); err != nil {
		return nil, newErr(CodeInternal, err, "metadata of %q is not a JSON object of strings", objectID)
	}
	return props, nil
}

func copyProps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
