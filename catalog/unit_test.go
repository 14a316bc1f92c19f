package catalog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/storage"
)

func TestErrorSentinelsMatchWrappedErrorsOfTheirCode(t *testing.T) {
	err := fmt.Errorf("outer: %w", newErr(CodeTableNotFound, errors.New("io"), "table %q", "t"))
	if !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("errors.Is(%v, ErrTableNotFound) = false", err)
	}
	if errors.Is(err, ErrNamespaceNotFound) {
		t.Fatalf("a TableNotFound error matched ErrNamespaceNotFound")
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeTableNotFound || int(e.Code) != 4 {
		t.Fatalf("errors.As: %+v", e)
	}
	if code, _ := CodeOf(errors.New("plain")); code != CodeInternal {
		t.Fatalf("CodeOf(plain) = %v", code)
	}
	if CodeThrottling != 21 || CodeConcurrentModification != 14 || CodeInvalidInput != 13 || CodeUnsupported != 0 {
		t.Fatal("error codes differ from the specification")
	}
	if got := err.Error(); !strings.Contains(got, "TableNotFound") || !strings.Contains(got, "io") {
		t.Fatalf("message %q lacks code name or cause", got)
	}
}

func TestPaginateFollowsTheReference(t *testing.T) {
	names := func(s ...string) []string { return s }
	tests := []struct {
		name      string
		in        []string
		opts      ListOptions
		want      []string
		wantToken string
	}{
		{"no token no limit sorts", names("b", "a", "c"), ListOptions{}, names("a", "b", "c"), ""},
		{"limit truncates and returns token", names("c", "a", "b"), ListOptions{Limit: Limit(2)}, names("a", "b"), "b"},
		{"limit zero returns nothing and no token", names("a", "b", "c"), ListOptions{Limit: Limit(0)}, names(), ""},
		{"limit equal to size has no token", names("a", "b"), ListOptions{Limit: Limit(2)}, names("a", "b"), ""},
		{"token in list starts strictly after", names("a", "b", "c", "d"), ListOptions{PageToken: "b"}, names("c", "d"), ""},
		{"token not in list", names("a", "c", "e"), ListOptions{PageToken: "b"}, names("c", "e"), ""},
		{"token past all items", names("a", "b", "c"), ListOptions{PageToken: "z"}, names(), ""},
		{"token and limit combined", names("a", "b", "c", "d", "e"), ListOptions{PageToken: "b", Limit: Limit(2)}, names("c", "d"), "d"},
		{"negative limit is no limit", names("b", "a"), ListOptions{Limit: Limit(-1)}, names("a", "b"), ""},
		{"duplicates collapse", names("a", "a", "b"), ListOptions{}, names("a", "b"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := paginate(append([]string(nil), tt.in...), tt.opts)
			if p.Names == nil || !(len(p.Names) == 0 && len(tt.want) == 0 || reflect.DeepEqual(p.Names, tt.want)) || p.NextPageToken != tt.wantToken {
				t.Fatalf("got %q token %q, want %q token %q", p.Names, p.NextPageToken, tt.want, tt.wantToken)
			}
		})
	}
}

func TestJoinLocation(t *testing.T) {
	tests := []struct{ root, rel, want string }{
		{"s3://bucket/path/subdir", "table.lance", "s3://bucket/path/subdir/table.lance"},
		{"az://container/path/subdir", "table.lance", "az://container/path/subdir/table.lance"},
		{"gs://bucket/path/subdir", "table.lance", "gs://bucket/path/subdir/table.lance"},
		{"s3://bucket/a/b/c/d", "my_table.lance", "s3://bucket/a/b/c/d/my_table.lance"},
		{"s3://bucket", "table.lance", "s3://bucket/table.lance"},
		{"s3://bucket/path/subdir/", "table.lance", "s3://bucket/path/subdir/table.lance"},
		{"s3://bucket/path?", "table.lance", "s3://bucket/path/table.lance"},
		{"s3://bucket/path?param=value", "table.lance", "s3://bucket/path/table.lance"},
		{"/tmp/root", "hash_workspace$test_table", "file:///tmp/root/hash_workspace$test_table"},
		{"/tmp/root", "workspace/physical_table.lance", "file:///tmp/root/workspace/physical_table.lance"},
		{"file:///tmp/root", "1a2b3c4d_ns$t", "file:///tmp/root/1a2b3c4d_ns$t"},
		{"memory://lake", "t.lance", "memory://lake/t.lance"},
		{"s3://b/p", "0000abcd_ns$q'uote", "s3://b/p/0000abcd_ns$q'uote"},
		{"s3://b/p", "sp ace#?%.lance", "s3://b/p/sp%20ace%23%3F%25.lance"},
		{"s3://b/p", "ü.lance", "s3://b/p/%C3%BC.lance"},
		{"s3://b/p", "/a//b/", "s3://b/p/a/b"},
	}
	for _, tt := range tests {
		if got := JoinLocation(tt.root, tt.rel); got != tt.want {
			t.Errorf("JoinLocation(%q, %q) = %q, want %q", tt.root, tt.rel, got, tt.want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for _, bad := range []string{"", "a$b", "a/b", `a\b`, "tab\there", "nl\n", "\x00", "\x7f", string([]byte{0xff})} {
		if err := ValidateName("table", bad); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("ValidateName(%q) = %v, want InvalidInput", bad, err)
		}
	}
	for _, good := range []string{"t", "q'uote", `d"q`, "ünï", "sp ace", "a.b", "a-b_c", "日本"} {
		if err := ValidateName("table", good); err != nil {
			t.Errorf("ValidateName(%q) = %v", good, err)
		}
	}
}

func TestNewTableDirName(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}_ns\$t$`)
	a, b := newTableDirName("ns$t"), newTableDirName("ns$t")
	if !re.MatchString(a) || !re.MatchString(b) {
		t.Fatalf("dir names %q %q", a, b)
	}
	if a == b {
		// 1 in 2^32: a repeat means the prefix is not random.
		t.Fatalf("two fresh dir names are equal: %q", a)
	}
}

func TestRowFilterMatch(t *testing.T) {
	row := func(id, typ string, base ...string) Row { return Row{ObjectID: id, ObjectType: typ, BaseObjects: base} }
	tests := []struct {
		f    RowFilter
		r    Row
		want bool
	}{
		{RowFilter{IDPrefix: "", DirectOnly: true}, row("t", "table"), true},
		{RowFilter{IDPrefix: "", DirectOnly: true}, row("ns$t", "table"), false},
		{RowFilter{IDPrefix: "ns$", DirectOnly: true}, row("ns$t", "table"), true},
		{RowFilter{IDPrefix: "ns$", DirectOnly: true}, row("ns$a$t", "table"), false},
		{RowFilter{IDPrefix: "ns$"}, row("ns$a$t", "table"), true},
		{RowFilter{IDPrefix: "ns$"}, row("nsx$t", "table"), false},
		{RowFilter{IDPrefix: "q'uote$", DirectOnly: true}, row("q'uote$t", "table"), true},
		{RowFilter{Types: []string{"namespace"}}, row("t", "table"), false},
		{RowFilter{Types: []string{"namespace", "table"}}, row("t", "table"), true},
		{RowFilter{BaseObject: "b"}, row("v", "table", "a", "b"), true},
		{RowFilter{BaseObject: "c"}, row("v", "table", "a", "b"), false},
	}
	for i, tt := range tests {
		if got := tt.f.Match(tt.r); got != tt.want {
			t.Errorf("%d: %+v.Match(%+v) = %v", i, tt.f, tt.r, got)
		}
	}
}

// TestSortMostlySorted: the merge of the ascending run with the sorted
// stragglers equals a full sort, on sorted input, on rows appended after a
// sorted rewrite (the usual listing), and on shuffled input.
func TestSortMostlySorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sorted := make([]string, 2000)
	for i := range sorted {
		sorted[i] = fmt.Sprintf("t%05d", i*3)
	}
	cases := map[string][]string{
		"empty":     {},
		"sorted":    slices.Clone(sorted),
		"appended":  append(slices.Clone(sorted), "new2", "a", "t00004", "zz", "new1", "t00004"),
		"prepended": append([]string{"zzz"}, sorted...),
		"shuffled": func() []string {
			s := slices.Clone(sorted)
			rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
			return s
		}(),
	}
	for name, in := range cases {
		want := slices.Clone(in)
		slices.Sort(want)
		if got := sortMostlySorted(slices.Clone(in)); !slices.Equal(got, want) {
			t.Errorf("%s: got %d names %v..., want %d", name, len(got), got[:min(len(got), 5)], len(want))
		}
	}
}

// TestDirRemovedIsConcurrentModification: a put-if-absent that lost its table
// directory to a concurrent DROP (storage.ErrDirRemoved, as the local store
// reports a link failing with ENOENT) is ConcurrentModification, not Internal,
// on both the dataset-create and the reservation paths.
func TestDirRemovedIsConcurrentModification(t *testing.T) {
	cause := fmt.Errorf("write manifest: put-if-absent %q: %w: %w", "t.lance/_versions/1.manifest", storage.ErrDirRemoved, errors.New("link: no such file or directory"))
	for name, err := range map[string]error{
		"dataset": mapDatasetErr(cause, Ident{"t"}, "t.lance"),
		"reserve": asCatalogError(cause, "reserve %s", "t.lance"),
	} {
		if code, _ := CodeOf(err); code != CodeConcurrentModification {
			t.Errorf("%s: code %v (%v), want ConcurrentModification", name, code, err)
		}
		if !errors.Is(err, ErrConcurrentModification) {
			t.Errorf("%s: %v does not match ErrConcurrentModification", name, err)
		}
	}
}
