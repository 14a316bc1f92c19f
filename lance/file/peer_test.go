package lancefile

// Reader conformance against the reference peer (Rust Lance via LanceDB, conformance/peer): every
// row of the peer-written fixtures, read with this package, must equal the peer's own read of the
// same dataset (conformance/peer/JSONL.md), compared line by line.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testenv"
	"github.com/lancecat/lancecat/lance/internal/pb/tablepb"
)

// ---------------------------------------------------------------- datasets

// rdManifestFile returns the newest manifest of a dataset and the raw bytes of its file.
func rdManifestFile(t testing.TB, dir string) (*tablepb.Manifest, []byte) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "_versions"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".manifest") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatalf("no manifests in %s", dir)
	}
	// V2 naming: u64::MAX - version, zero padded: the smallest name is the newest.
	sort.Strings(names)
	b, err := os.ReadFile(filepath.Join(dir, "_versions", names[0]))
	if err != nil {
		t.Fatal(err)
	}
	pos := binary.LittleEndian.Uint64(b[len(b)-16:])
	n := binary.LittleEndian.Uint32(b[pos:])
	var m tablepb.Manifest
	if err := proto.Unmarshal(b[pos+4:pos+4+uint64(n)], &m); err != nil {
		t.Fatal(err)
	}
	return &m, b
}

func rdLatestManifest(t testing.TB, dir string) *tablepb.Manifest {
	t.Helper()
	m, _ := rdManifestFile(t, dir)
	return m
}

func rdOpenFile(t testing.TB, path string) *Reader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), BytesSource(b))
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return r
}

// rdDataset is every row of a dataset as read by this package: per fragment, one arrow.Array per
// top-level column (nil when no data file of the fragment holds the column).
type rdDataset struct {
	names []string
	frags []rdFragment
}

type rdFragment struct {
	rows int
	cols []arrow.Array
}

func (d *rdDataset) numRows() int {
	n := 0
	for _, f := range d.frags {
		n += f.rows
	}
	return n
}

// rdReadDataset reads every data file of the newest version of the dataset at dir, all fields.
func rdReadDataset(t testing.TB, dir string) *rdDataset {
	t.Helper()
	m := rdLatestManifest(t, dir)
	d := &rdDataset{}
	for _, f := range m.Fields {
		if f.ParentId == -1 {
			d.names = append(d.names, f.Name)
		}
	}
	for _, frag := range m.Fragments {
		if frag.DeletionFile != nil {
			// Deletion vectors belong to the dataset layer (lance/dataset), not to this package.
			t.Fatalf("%s: fragment %d has a deletion file: not a fixture for the file reader", dir, frag.Id)
		}
		byName := map[string]arrow.Array{}
		for _, df := range frag.Files {
			r := rdOpenFile(t, filepath.Join(dir, "data", df.Path))
			if r.NumRows() != frag.PhysicalRows {
				t.Fatalf("%s: %d rows, manifest says %d", df.Path, r.NumRows(), frag.PhysicalRows)
			}
			var ids []int32
			for _, f := range r.Schema().Fields {
				ids = append(ids, f.ID)
			}
			rec, err := r.ReadRange(context.Background(), ids, 0, r.NumRows())
			if err != nil {
				t.Fatalf("%s: ReadRange: %v", df.Path, err)
			}
			t.Cleanup(rec.Release)
			if uint64(rec.NumRows()) != r.NumRows() {
				t.Fatalf("%s: read %d rows of %d", df.Path, rec.NumRows(), r.NumRows())
			}
			for i, f := range rec.Schema().Fields() {
				byName[f.Name] = rec.Column(i)
			}
		}
		fr := rdFragment{rows: int(frag.PhysicalRows)}
		for _, n := range d.names {
			fr.cols = append(fr.cols, byName[n])
		}
		d.frags = append(d.frags, fr)
	}
	return d
}

// appendRow renders row i of fragment f as a JSON Lines row of the columns cols (indices into
// d.names), like dump.mjs (or, with floatBits, like testdata/floatbits.mjs).
func (d *rdDataset) appendRow(b []byte, f, i int, cols []int, floatBits bool) []byte {
	b = append(b, '{')
	for k, c := range cols {
		if k > 0 {
			b = append(b, ',')
		}
		b = rdAppendString(b, d.names[c])
		b = append(b, ':')
		if a := d.frags[f].cols[c]; a == nil {
			b = append(b, "null"...)
		} else {
			b = rdAppendValue(b, a, i, floatBits)
		}
	}
	return append(b, '}')
}

func (d *rdDataset) columnIndices(t testing.TB, names []string) []int {
	t.Helper()
	var out []int
	for _, n := range names {
		i := indexOf(d.names, n)
		if i < 0 {
			t.Fatalf("no column %q in %v", n, d.names)
		}
		out = append(out, i)
	}
	return out
}

func indexOf(names []string, n string) int {
	for i, x := range names {
		if x == n {
			return i
		}
	}
	return -1
}

// ---------------------------------------------------------------- comparison

// rdCompareLines compares our rendering of the columns cols of every row with the peer's lines:
// byte-equal lines are equal; other lines are parsed (numbers kept as text) and compared as values,
// so that only string escaping may differ.
func rdCompareLines(t *testing.T, ours *rdDataset, cols []string, floatBits bool, peerLines []string) {
	t.Helper()
	if n := ours.numRows(); n != len(peerLines) {
		t.Fatalf("we read %d rows, the peer %d", n, len(peerLines))
	}
	idx := ours.columnIndices(t, cols)
	var buf []byte
	k, bad := 0, 0
	for f := range ours.frags {
		for i := 0; i < ours.frags[f].rows; i++ {
			buf = ours.appendRow(buf[:0], f, i, idx, floatBits)
			if p := peerLines[k]; string(buf) != p {
				if diff := rdLineDiff(buf, p); diff != "" {
					t.Errorf("row %d: %s", k, diff)
					if bad++; bad >= 10 {
						t.Fatalf("too many differences")
					}
				}
			}
			k++
		}
	}
}

// rdLineDiff parses both lines and names the columns whose values differ ("" if none).
func rdLineDiff(ours []byte, theirs string) string {
	parse := func(s []byte) (map[string]any, error) {
		dec := json.NewDecoder(bytes.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		return m, dec.Decode(&m)
	}
	om, err := parse(ours)
	if err != nil {
		return fmt.Sprintf("our rendering is not JSON (%v): %s", err, rdTrunc(string(ours)))
	}
	pm, err := parse([]byte(theirs))
	if err != nil {
		return fmt.Sprintf("peer line is not JSON (%v): %s", err, rdTrunc(theirs))
	}
	var diffs []string
	for k, pv := range pm {
		ov, ok := om[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("column %q missing", k))
		} else if !reflect.DeepEqual(ov, pv) {
			o, _ := json.Marshal(ov)
			p, _ := json.Marshal(pv)
			diffs = append(diffs, fmt.Sprintf("column %q:\n ours %s\n peer %s", k, rdTrunc(string(o)), rdTrunc(string(p))))
		}
	}
	for k := range om {
		if _, ok := pm[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("column %q not in the peer's row", k))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

func rdTrunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// rdPeerLines is the peer's read (dump.mjs) of the dataset at dir. With the peer unavailable (and
// testenv.Strict false), a committed fixture compares with its stored peer read
// <expected>.expected.jsonl instead; without one the test is skipped (peer.Require).
func rdPeerLines(t *testing.T, dir, expected string, opts peer.DumpOptions) []string {
	t.Helper()
	if err := peer.Available(); err != nil && expected != "" && !testenv.Strict() {
		lines, lerr := peer.ExpectedLines(expected)
		if lerr != nil {
			t.Fatalf("stored peer read of %s: %v", expected, lerr)
		}
		t.Logf("PEER UNAVAILABLE (%v): comparing with the stored peer read %s.expected.jsonl", err, expected)
		return lines
	}
	peer.Require(t)
	lines, err := peer.DumpLines(context.Background(), t, dir, opts)
	if err != nil {
		t.Fatalf("peer dump of %s: %v", dir, err)
	}
	return lines
}

// rdPeerCompare compares every row and column of the dataset at dir with the peer's read.
func rdPeerCompare(t *testing.T, dir, expected string) {
	t.Helper()
	ours := rdReadDataset(t, dir)
	rdCompareLines(t, ours, ours.names, false, rdPeerLines(t, dir, expected, peer.DumpOptions{}))
	t.Logf("%d rows x %d columns equal", ours.numRows(), len(ours.names))
}

// ---------------------------------------------------------------- rendering (JSONL.md)

// rdAppendValue appends the JSON text of value i of a. With floatBits, floats are the hex strings
// of their IEEE bits (testdata/floatbits.mjs); otherwise the JSONL.md shortest decimals.
func rdAppendValue(b []byte, a arrow.Array, i int, floatBits bool) []byte {
	if a.IsNull(i) {
		return append(b, "null"...)
	}
	switch c := a.(type) {
	case *array.Boolean:
		return strconv.AppendBool(b, c.Value(i))
	case *array.Int8:
		return strconv.AppendInt(b, int64(c.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(b, int64(c.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(b, int64(c.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(b, c.Value(i), 10)
	case *array.Uint8:
		return strconv.AppendUint(b, uint64(c.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(b, uint64(c.Value(i)), 10)
	case *array.Uint32:
		return strconv.AppendUint(b, uint64(c.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(b, c.Value(i), 10)
	case *array.Float16:
		h := c.Value(i).Uint16()
		if floatBits {
			return rdAppendHex(b, uint64(h), 4)
		}
		return append(b, rdHalfText(h)...)
	case *array.Float32:
		if floatBits {
			return rdAppendHex(b, uint64(math.Float32bits(c.Value(i))), 8)
		}
		return append(b, rdPeerFloatText(float64(c.Value(i)), func(y float64) float64 { return float64(float32(y)) })...)
	case *array.Float64:
		if floatBits {
			return rdAppendHex(b, math.Float64bits(c.Value(i)), 16)
		}
		return rdAppendFloat(b, c.Value(i), 64)
	case *array.String:
		return rdAppendString(b, c.Value(i))
	case *array.LargeString:
		return rdAppendString(b, c.Value(i))
	case *array.Binary:
		return rdAppendBase64(b, c.Value(i))
	case *array.LargeBinary:
		return rdAppendBase64(b, c.Value(i))
	case *array.FixedSizeBinary:
		return rdAppendBase64(b, c.Value(i))
	case *array.Date32:
		return rdAppendString(b, time.Unix(int64(c.Value(i))*86400, 0).UTC().Format("2006-01-02"))
	case *array.Timestamp:
		tt := c.DataType().(*arrow.TimestampType)
		return rdAppendString(b, rdTsText(int64(c.Value(i)), tt.Unit, tt.TimeZone != ""))
	case *array.Decimal128:
		tt := c.DataType().(*arrow.Decimal128Type)
		return rdAppendString(b, rdDecText(c.Value(i).BigInt(), int(tt.Scale)))
	case *array.List:
		s, e := c.ValueOffsets(i)
		return rdAppendRange(b, c.ListValues(), int(s), int(e), floatBits)
	case *array.LargeList:
		s, e := c.ValueOffsets(i)
		return rdAppendRange(b, c.ListValues(), int(s), int(e), floatBits)
	case *array.FixedSizeList:
		s, e := c.ValueOffsets(i)
		return rdAppendRange(b, c.ListValues(), int(s), int(e), floatBits)
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		b = append(b, '{')
		for j := 0; j < c.NumField(); j++ {
			if j > 0 {
				b = append(b, ',')
			}
			b = rdAppendString(b, st.Field(j).Name)
			b = append(b, ':')
			b = rdAppendValue(b, c.Field(j), i, floatBits)
		}
		return append(b, '}')
	}
	// Not JSON: fails any comparison, naming the type.
	return fmt.Appendf(b, "<unrendered %s>", a.DataType())
}

func rdAppendRange(b []byte, a arrow.Array, s, e int, floatBits bool) []byte {
	b = append(b, '[')
	for j := s; j < e; j++ {
		if j > s {
			b = append(b, ',')
		}
		b = rdAppendValue(b, a, j, floatBits)
	}
	return append(b, ']')
}

func rdAppendHex(b []byte, v uint64, digits int) []byte {
	b = append(b, '"')
	s := strconv.FormatUint(v, 16)
	for n := len(s); n < digits; n++ {
		b = append(b, '0')
	}
	return append(append(b, s...), '"')
}

func rdAppendBase64(b, v []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

// rdAppendString quotes s the way JavaScript's JSON.stringify does (only '"', '\\' and control
// characters are escaped), so that most lines compare byte for byte.
func rdAppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// rdAppendFloat renders a float64 as JSONL.md says: the shortest decimal that rounds back, in
// ECMAScript Number layout (which is also encoding/json's).
func rdAppendFloat(b []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(x, -1):
		return append(b, `"-Infinity"`...)
	}
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	if bits == 32 && abs != 0 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, bits)
	if format == 'e' { // e-07 -> e-7, as ECMAScript prints it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

var (
	rdHalfMu    sync.Mutex
	rdHalfCache = map[uint16]string{}
)

// rdHalfText is the JSONL.md text of a float16, memoized (65536 possible values).
func rdHalfText(h uint16) string {
	rdHalfMu.Lock()
	defer rdHalfMu.Unlock()
	if s, ok := rdHalfCache[h]; ok {
		return s
	}
	s := rdHalfShortest(h)
	rdHalfCache[h] = s
	return s
}

// rdHalfShortest is the JSONL.md text of a float16.
func rdHalfShortest(h uint16) string {
	return rdPeerFloatText(rdHalfToFloat(h), func(y float64) float64 { return rdHalfToFloat(rdFloatToHalf(y)) })
}

// rdPeerFloatText follows the peer's algorithm for float32 and float16 (arrowjson.mjs floatText):
// for p = 1..17 digits take the half-up rounded p-digit decimal of x and its neighbours, keep the
// closest that rounds back to x (the rounded one wins a tie). It differs from Go's shortest
// formatting on ties: float32 -3337338.25 is "-3337338.3" here, "-3337338.2" in Go.
func rdPeerFloatText(x float64, round func(float64) float64) string {
	switch {
	case math.IsNaN(x):
		return `"NaN"`
	case math.IsInf(x, 1):
		return `"Infinity"`
	case math.IsInf(x, -1):
		return `"-Infinity"`
	case x == 0 && math.Signbit(x):
		return "-0"
	case x == 0:
		return "0"
	}
	exact := strconv.FormatFloat(x, 'e', 60, 64)
	neg := exact[0] == '-'
	if neg {
		exact = exact[1:]
	}
	ei := strings.IndexByte(exact, 'e')
	mant := strings.Replace(exact[:ei], ".", "", 1)
	exp10, _ := strconv.Atoi(exact[ei+1:])
	for p := 1; p <= 17; p++ {
		d := new(big.Int)
		d.SetString(mant[:p], 10)
		if mant[p] >= '5' {
			d.Add(d, big.NewInt(1))
		}
		e10 := exp10 - (p - 1)
		var best float64
		found := false
		bestDist := math.Inf(1)
		for _, delta := range []int64{0, -1, 1} {
			c := new(big.Int).Add(d, big.NewInt(delta))
			s := c.String() + "e" + strconv.Itoa(e10)
			if neg {
				s = "-" + s
			}
			y, _ := strconv.ParseFloat(s, 64)
			if round(y) == x {
				if dist := math.Abs(y - x); dist < bestDist {
					best, bestDist, found = y, dist, true
				}
			}
		}
		if found {
			return string(rdAppendFloat(nil, best, 64))
		}
	}
	return string(rdAppendFloat(nil, x, 64))
}

func rdTsText(v int64, unit arrow.TimeUnit, zoned bool) string {
	var per int64
	switch unit {
	case arrow.Second:
		per = 1
	case arrow.Millisecond:
		per = 1000
	case arrow.Microsecond:
		per = 1000000
	default:
		per = 1000000000
	}
	sec := v / per
	rem := v % per
	if rem < 0 {
		rem += per
		sec--
	}
	ns := rem * (1000000000 / per)
	s := time.Unix(sec, ns).UTC().Format("2006-01-02T15:04:05") + fmt.Sprintf(".%09d", ns)
	if zoned {
		s += "Z"
	}
	return s
}

func rdDecText(v *big.Int, scale int) string {
	neg := v.Sign() < 0
	s := new(big.Int).Abs(v).String()
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func rdHalfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * m * math.Pow(2, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * (1 + m/1024) * math.Pow(2, float64(e-15))
}

// rdFloatToHalf rounds to the nearest float16 (ties to even), returning its bits.
func rdFloatToHalf(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	if x >= 65520 {
		return sign | 0x7c00
	}
	if x == 0 {
		return sign
	}
	e := math.Floor(math.Log2(x))
	if e < -14 {
		e = -14
	}
	ulp := math.Pow(2, e-10)
	v := math.RoundToEven(x/ulp) * ulp
	if v == 0 {
		return sign
	}
	ev := math.Floor(math.Log2(v))
	if ev < -14 {
		return sign | uint16(v/math.Pow(2, -24))
	}
	m := v/math.Pow(2, ev) - 1
	return sign | uint16(ev+15)<<10 | uint16(math.Round(m*1024))
}

// ---------------------------------------------------------------- tests

func TestReaderPeerCatalog3(t *testing.T) {
	rdPeerCompare(t, filepath.Join(peer.Fixture(t, "catalog-3"), "__manifest"), "catalog-3")
}

func TestReaderPeerCatalog5000(t *testing.T) {
	rdPeerCompare(t, filepath.Join(peer.Fixture(t, "catalog-5000"), "__manifest"), "")
}

func TestReaderPeerCatalog100000(t *testing.T) {
	rdPeerCompare(t, filepath.Join(peer.Fixture(t, "catalog-100000"), "__manifest"), "")
}

// TestReaderPeerCatalogV1: the tables of a v1 directory catalog (one with data files, one empty)
// and its (empty) __manifest table.
func TestReaderPeerCatalogV1(t *testing.T) {
	root := peer.Fixture(t, "catalog-v1")
	for _, tc := range []struct{ table, expected string }{
		{"alpha.lance", "catalog-v1"}, {"beta.lance", ""}, {"gamma.lance", ""}, {"__manifest", ""},
	} {
		t.Run(tc.table, func(t *testing.T) { rdPeerCompare(t, filepath.Join(root, tc.table), tc.expected) })
	}
}

func TestReaderPeerIndexed(t *testing.T) {
	rdPeerCompare(t, peer.Fixture(t, "indexed"), "indexed")
}

func TestReaderPeerTypes1000(t *testing.T) {
	rdPeerCompare(t, peer.Fixture(t, "types-1000"), "types-1000")
}

// TestReaderPeerTypes100000 compares all 100,000 rows x 39 columns of the types-100000 fixture with
// the peer's read. The peer reads the non-float columns with dump.mjs and, in parallel, the columns
// holding floats with testdata/floatbits.mjs (floats as raw bits: exact, and fast where dump.mjs's
// shortest-decimal search takes the peer most of a minute); the float text convention itself is
// compared on types-1000.
func TestReaderPeerTypes100000(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 100,000-row comparison takes ~20 s (CI runs it: no -short there)")
	}
	rdPeerCompareLarge(t, peer.Fixture(t, "types-100000"))
}

// TestReaderPeerTypesV22 reads the peer's Lance 2.2 files (data_storage_version "2.2": mini-block
// chunk metadata and buffer sizes as u32 "large chunks", constant pages holding an inline value,
// with compressed levels where the constant has nulls or sits in a list) and compares every row and
// column with the peer's read; the layouts are counted so the test cannot pass on files that
// stopped using them. Strings and values wider than 32 bytes keep their constant in a value buffer
// in front of the level buffers.
func TestReaderPeerTypesV22(t *testing.T) {
	dir := peer.Fixture(t, "types-v2.2")
	rdPeerCompare(t, dir, "")
	got := rdLayoutCounts(t, dir)
	t.Logf("layouts: %v", got)
	for _, k := range []string{"mini-block large chunks", "constant inline", "constant inline with levels", "constant value buffer"} {
		if got[k] == 0 {
			t.Errorf("no %s page in the 2.2 fixture (layouts %v)", k, got)
		}
	}
}

// TestReaderPeerTypesV22100000: the 2.2 comparison over 100,000 rows (many chunks per page).
func TestReaderPeerTypesV22100000(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 100,000-row comparison takes ~20 s (CI runs it: no -short there)")
	}
	dir := peer.Fixture(t, "types-v2.2-100000")
	rdPeerCompareLarge(t, dir)
	if got := rdLayoutCounts(t, dir); got["mini-block large chunks"] == 0 {
		t.Errorf("no large-chunk mini-block page (layouts %v)", got)
	}
}

// rdLayoutCounts reads every column of the dataset's data files and counts their page layouts.
func rdLayoutCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, path := range rdDataFiles(t, dir) {
		r := rdOpenFile(t, path)
		var ids []int32
		for _, f := range r.Schema().Fields {
			ids = append(ids, f.ID)
		}
		rec, err := r.ReadRange(context.Background(), ids, 0, r.NumRows())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rec.Release()
		r.mu.Lock()
		for _, ci := range r.colMeta {
			for _, pg := range ci.pages {
				switch {
				case pg.layout == nil:
					counts["2.0"]++
				case pg.layout.GetMiniBlockLayout() != nil:
					if pg.layout.GetMiniBlockLayout().HasLargeChunk {
						counts["mini-block large chunks"]++
					} else {
						counts["mini-block"]++
					}
				case pg.layout.GetConstantLayout() != nil:
					l := pg.layout.GetConstantLayout()
					switch {
					case l.InlineValue == nil && (len(pg.bufs) == 1 || len(pg.bufs) == 3) && pg.bufs[0].Size > 0:
						counts["constant value buffer"]++
					case l.InlineValue != nil && len(pg.bufs) >= 2 && (pg.bufs[0].Size > 0 || pg.bufs[1].Size > 0):
						counts["constant inline with levels"]++
					case l.InlineValue != nil:
						counts["constant inline"]++
					default:
						counts["constant null"]++
					}
				case pg.layout.GetFullZipLayout() != nil:
					counts["full-zip"]++
				default:
					counts["other"]++
				}
			}
		}
		r.mu.Unlock()
	}
	return counts
}

// rdPeerCompareLarge compares every row and column of a large dataset with the peer's read. The
// peer reads the non-float columns with dump.mjs and, in parallel, the columns holding floats with
// testdata/floatbits.mjs (see TestReaderPeerTypes100000).
func rdPeerCompareLarge(t *testing.T, dir string) {
	t.Helper()
	peer.Require(t)
	t0 := time.Now()
	ours := rdReadDataset(t, dir)
	t.Logf("our read: %v", time.Since(t0))
	var floatCols, otherCols []string
	for i, n := range ours.names {
		var typ arrow.DataType
		for _, f := range ours.frags {
			if f.cols[i] != nil {
				typ = f.cols[i].DataType()
			}
		}
		if typ != nil && rdHasFloat(typ) {
			floatCols = append(floatCols, n)
		} else {
			otherCols = append(otherCols, n)
		}
	}
	if len(floatCols) == 0 || len(otherCols) == 0 {
		t.Fatalf("expected float and non-float columns, got %v / %v", floatCols, otherCols)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	var otherLines []string
	var floatOut []byte
	var otherErr, floatErr error
	wg.Add(2)
	t0 = time.Now()
	go func() {
		defer wg.Done()
		otherLines, otherErr = peer.DumpLines(ctx, t, dir, peer.DumpOptions{Columns: otherCols})
	}()
	go func() {
		defer wg.Done()
		floatOut, floatErr = peer.Run(ctx, t, "../../lance/file/testdata/floatbits.mjs", abs, strings.Join(floatCols, ","))
	}()
	wg.Wait()
	t.Logf("peer read: %v", time.Since(t0))
	if err := errors.Join(otherErr, floatErr); err != nil {
		t.Fatalf("peer read: %v", err)
	}
	t1 := time.Now()
	rdCompareLines(t, ours, otherCols, false, otherLines)
	rdCompareLines(t, ours, floatCols, true, strings.Split(strings.TrimSuffix(string(floatOut), "\n"), "\n"))
	t.Logf("compare: %v", time.Since(t1))
	t.Logf("%d rows equal: %d columns as text, %d float columns (%v) as bits", ours.numRows(), len(otherCols), len(floatCols), floatCols)
}

func rdHasFloat(t arrow.DataType) bool {
	switch x := t.(type) {
	case *arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type:
		return true
	case arrow.ListLikeType:
		return rdHasFloat(x.Elem())
	case *arrow.StructType:
		for _, f := range x.Fields() {
			if rdHasFloat(f.Type) {
				return true
			}
		}
	}
	return false
}

// TestReaderIndexFiles reads the scalar index files of the indexed fixture (Lance files the peer
// wrote under _indices/<uuid>/; the peer has no reader of its own for them) and checks them
// against the dataset, read separately: every column decodes with the row count of the file
// descriptor; a B-tree's page_data maps each value to a row that holds it, covering every row
// once; a bitmap (or label-list) index has one key per distinct value of its column.
func TestReaderIndexFiles(t *testing.T) {
	dir := peer.Fixture(t, "indexed")
	m, raw := rdManifestFile(t, dir)
	if m.IndexSection == nil {
		t.Fatal("indexed fixture has no index section")
	}
	pos := *m.IndexSection
	var sec tablepb.IndexSection
	if err := proto.Unmarshal(raw[pos+4:pos+4+uint64(binary.LittleEndian.Uint32(raw[pos:]))], &sec); err != nil {
		t.Fatal(err)
	}
	fieldName := map[int32]string{}
	for _, f := range m.Fields {
		fieldName[f.Id] = f.Name
	}
	ds := rdReadDataset(t, dir)
	if len(ds.frags) != 1 {
		t.Fatalf("%d fragments: row addresses below assume one fragment (id 0)", len(ds.frags))
	}
	column := func(name string) arrow.Array {
		i := indexOf(ds.names, name)
		if i < 0 {
			t.Fatalf("no column %s", name)
		}
		return ds.frags[0].cols[i]
	}
	render := func(a arrow.Array, i int) string { return string(rdAppendValue(nil, a, i, true)) }
	ctx := context.Background()
	checked := 0
	for _, im := range sec.Indices {
		u := im.GetUuid().GetUuid()
		if len(u) != 16 {
			t.Fatalf("index %s: uuid %x", im.Name, u)
		}
		id := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
		col := column(fieldName[im.Fields[0]])
		files, _ := filepath.Glob(filepath.Join(dir, "_indices", id, "*.lance"))
		if len(files) == 0 {
			t.Fatalf("index %s (%s): no files in _indices/%s", im.Name, id, id)
		}
		for _, path := range files {
			r := rdOpenFile(t, path)
			var ids []int32
			for _, f := range r.Schema().Fields {
				ids = append(ids, f.ID)
			}
			rec, err := r.ReadRange(ctx, ids, 0, r.NumRows())
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			defer rec.Release()
			for i, c := range rec.Columns() {
				if uint64(c.Len()) != r.NumRows() {
					t.Fatalf("%s column %d: %d values, file descriptor says %d rows", path, i, c.Len(), r.NumRows())
				}
			}
			checked++
			get := func(name string) arrow.Array {
				i := rec.Schema().FieldIndices(name)
				if len(i) != 1 {
					t.Fatalf("%s: no column %s in %v", path, name, rec.Schema())
				}
				return rec.Column(i[0])
			}
			switch filepath.Base(path) {
			case "page_data.lance": // B-tree leaf data: (values, ids) sorted by value
				vals, rowIDs := get("values"), get("ids").(*array.Uint64)
				seen := make([]bool, col.Len())
				for k := 0; k < rowIDs.Len(); k++ {
					row := rowIDs.Value(k)
					if row >= uint64(col.Len()) || seen[row] {
						t.Fatalf("%s row %d: row id %d out of range or repeated", path, k, row)
					}
					seen[row] = true
					if v, w := render(vals, k), render(col, int(row)); v != w {
						t.Fatalf("%s row %d: value %s, the dataset holds %s at row %d", path, k, v, w, row)
					}
				}
				if rowIDs.Len() != col.Len() {
					t.Fatalf("%s: %d row ids for %d rows", path, rowIDs.Len(), col.Len())
				}
			case "bitmap_page_lookup.lance": // bitmap / label-list: one key per distinct value
				want := map[string]bool{}
				if l, ok := col.(*array.List); ok {
					for i := 0; i < l.Len(); i++ {
						if l.IsNull(i) {
							continue
						}
						s, e := l.ValueOffsets(i)
						for j := s; j < e; j++ {
							want[render(l.ListValues(), int(j))] = true
						}
					}
				} else {
					for i := 0; i < col.Len(); i++ {
						want[render(col, i)] = true
					}
				}
				keys := get("keys")
				got := map[string]bool{}
				for k := 0; k < keys.Len(); k++ {
					if got[render(keys, k)] {
						t.Fatalf("%s: key %s repeated", path, render(keys, k))
					}
					got[render(keys, k)] = true
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: keys %v, distinct values of %s %v", path, got, fieldName[im.Fields[0]], want)
				}
			}
		}
	}
	if checked < 4 {
		t.Fatalf("checked %d index files", checked)
	}
	t.Logf("%d index files of %d indices checked", checked, len(sec.Indices))
}
