package catalog

import (
	"net/url"
	"path/filepath"
	"strings"
)

// JoinLocation returns the full URI of relative location rel under the
// catalog root URI, the way the reference builds the `location` of a
// DescribeTable answer:
//
//   - a root without a scheme is a local path and becomes file:///abs/path;
//   - the root's query string and fragment are dropped;
//   - rel is split at "/" (empty segments dropped) and each segment is
//     appended percent-encoded with the URL path-segment set (controls,
//     space, `"`, `#`, `<`, `>`, `?`, backquote, `{`, `}`, `%`, `/` and
//     non-ASCII bytes); "$", quotes and the other sub-delimiters stay as
//     they are.
//
// The relative location itself (as stored in `__manifest`) is what Go code
// should hand to the storage layer; the URI is for display and for other
// implementations.
func JoinLocation(root, rel string) string {
	base := root
	if !hasScheme(root) {
		p := root
		if abs, err := filepath.Abs(root); err == nil {
			p = abs
		}
		p = filepath.ToSlash(p)
		var b strings.Builder
		b.WriteString("file://")
		for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			b.WriteByte('/')
			b.WriteString(escapeSegment(seg))
		}
		base = b.String()
	} else {
		if i := strings.IndexAny(base, "?#"); i >= 0 {
			base = base[:i]
		}
	}
	base = strings.TrimRight(base, "/")
	// A scheme-only root such as "memory://" keeps its "//".
	if strings.HasSuffix(base, ":") {
		base += "//"
	}
	var b strings.Builder
	b.WriteString(base)
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		b.WriteString(escapeSegment(seg))
	}
	return b.String()
}

func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	u, err := url.Parse(s[:i+3])
	return err == nil && u.Scheme != ""
}

const upperHex = "0123456789ABCDEF"

// escapeSegment percent-encodes a path segment with the URL specification's
// path-segment encode set.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte("\"#<>?`{}%/", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
