package lancefile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/proto"

	"github.com/lancecat/lancecat/manifest/internal/pb/tablepb"
)

// ---------------------------------------------------------------- fixtures

// fixtureDir finds a peer-written dataset: the committed fixtures, or
// $LANCEFILE_FIXTURES/<name> (e.g. a directory filled by gen-fixtures.mjs).
func rdFixtureDir(t testing.TB, name string) string {
	t.Helper()
	var cands []string
	if d := os.Getenv("LANCEFILE_FIXTURES"); d != "" {
		cands = append(cands, filepath.Join(d, name))
	}
	cands = append(cands, filepath.Join("..", "..", "conformance", "testdata", "fixtures", name), filepath.Join("/tmp/lfx", name))
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
	}
	t.Skipf("fixture %s not found (set LANCEFILE_FIXTURES)", name)
	return ""
}

func rdLatestManifest(t testing.TB, dir string) *tablepb.Manifest {
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
	return &m
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

// ourDump reads every row of a dataset's data files with this package and
// renders it with the JSONL conventions of conformance/peer/JSONL.md.
func rdOurDump(t testing.TB, dir string) []map[string]any {
	t.Helper()
	m := rdLatestManifest(t, dir)
	var order []string
	for _, f := range m.Fields {
		if f.ParentId == -1 {
			order = append(order, f.Name)
		}
	}
	var rows []map[string]any
	for _, frag := range m.Fragments {
		if frag.DeletionFile != nil {
			t.Skipf("fragment %d has a deletion file", frag.Id)
		}
		cols := map[string]arrow.Array{}
		var n int64 = -1
		for _, df := range frag.Files {
			r := rdOpenFile(t, filepath.Join(dir, "data", df.Path))
			var ids []int32
			for _, f := range r.Schema().Fields {
				ids = append(ids, f.ID)
			}
			rec, err := r.ReadRange(context.Background(), ids, 0, r.NumRows())
			if err != nil {
				t.Fatalf("%s: ReadRange: %v", df.Path, err)
			}
			defer rec.Release()
			for i, f := range rec.Schema().Fields() {
				cols[f.Name] = rec.Column(i)
			}
			n = rec.NumRows()
		}
		for i := 0; i < int(n); i++ {
			row := map[string]any{}
			for _, name := range order {
				c, ok := cols[name]
				if !ok {
					row[name] = nil
					continue
				}
				row[name] = rdRenderValue(c, i)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func rdPeerDump(t testing.TB, dir string, extra ...string) []map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not available")
	}
	peerDir := filepath.Join("..", "..", "conformance", "peer")
	abs, _ := filepath.Abs(dir)
	cmd := exec.Command(node, append([]string{"dump.mjs", abs}, extra...)...)
	cmd.Dir = peerDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("peer dump failed: %v: %s", err, stderr.String())
	}
	var rows []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var row map[string]any
		if err := d.Decode(&row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	return rows
}

func rdCanon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func rdCompareDumps(t *testing.T, ours, peer []map[string]any) {
	t.Helper()
	if len(ours) != len(peer) {
		t.Fatalf("%d rows, peer %d", len(ours), len(peer))
	}
	bad := 0
	for i := range peer {
		for k, pv := range peer[i] {
			ov, ok := ours[i][k]
			if !ok {
				t.Errorf("row %d: column %q missing", i, k)
				bad++
			} else if a, b := rdCanon(ov), rdCanon(pv); a != b {
				t.Errorf("row %d column %q:\n ours %s\n peer %s", i, k, rdTrunc(a), rdTrunc(b))
				bad++
			}
			if bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
}

func rdTrunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// ---------------------------------------------------------------- rendering

func rdRenderValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
	case *array.Boolean:
		return c.Value(i)
	case *array.Int8:
		return json.Number(strconv.FormatInt(int64(c.Value(i)), 10))
	case *array.Int16:
		return json.Number(strconv.FormatInt(int64(c.Value(i)), 10))
	case *array.Int32:
		return json.Number(strconv.FormatInt(int64(c.Value(i)), 10))
	case *array.Int64:
		return json.Number(strconv.FormatInt(c.Value(i), 10))
	case *array.Uint8:
		return json.Number(strconv.FormatUint(uint64(c.Value(i)), 10))
	case *array.Uint16:
		return json.Number(strconv.FormatUint(uint64(c.Value(i)), 10))
	case *array.Uint32:
		return json.Number(strconv.FormatUint(uint64(c.Value(i)), 10))
	case *array.Uint64:
		return json.Number(strconv.FormatUint(c.Value(i), 10))
	case *array.Float16:
		return rdFloatJSON(rdHalfToFloat(c.Value(i).Uint16()), 16)
	case *array.Float32:
		return rdFloatJSON(float64(c.Value(i)), 32)
	case *array.Float64:
		return rdFloatJSON(c.Value(i), 64)
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.Binary:
		return base64.StdEncoding.EncodeToString(c.Value(i))
	case *array.LargeBinary:
		return base64.StdEncoding.EncodeToString(c.Value(i))
	case *array.Date32:
		return time.Unix(int64(c.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Timestamp:
		tt := c.DataType().(*arrow.TimestampType)
		return rdTsText(int64(c.Value(i)), tt.Unit, tt.TimeZone != "")
	case *array.Decimal128:
		tt := c.DataType().(*arrow.Decimal128Type)
		return rdDecText(c.Value(i).BigInt(), int(tt.Scale))
	case *array.List:
		s, e := c.ValueOffsets(i)
		return rdRenderRange(c.ListValues(), int(s), int(e))
	case *array.LargeList:
		s, e := c.ValueOffsets(i)
		return rdRenderRange(c.ListValues(), int(s), int(e))
	case *array.FixedSizeList:
		n := int(c.DataType().(*arrow.FixedSizeListType).Len())
		return rdRenderRange(c.ListValues(), i*n, (i+1)*n)
	case *array.Struct:
		m := map[string]any{}
		st := c.DataType().(*arrow.StructType)
		for j := 0; j < c.NumField(); j++ {
			m[st.Field(j).Name] = rdRenderValue(c.Field(j), i)
		}
		return m
	}
	return fmt.Sprintf("<unrendered %s>", a.DataType())
}

func rdRenderRange(a arrow.Array, s, e int) []any {
	out := make([]any, 0, e-s)
	for j := s; j < e; j++ {
		out = append(out, rdRenderValue(a, j))
	}
	return out
}

func rdFloatJSON(x float64, width int) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	if x == 0 {
		if math.Signbit(x) {
			return json.Number("-0")
		}
		return json.Number("0")
	}
	var b []byte
	if width == 64 {
		b, _ = json.Marshal(x)
		return json.Number(string(b))
	}
	round := func(y float64) float64 { return float64(float32(y)) }
	if width == 16 {
		round = func(y float64) float64 { return rdHalfToFloat(rdFloatToHalf(y)) }
	}
	// The peer's algorithm (arrowjson.mjs floatText): for p = 1.. digits take
	// the half-up rounded p-digit decimal and its neighbours, keep the closest
	// that rounds back to x (first wins a tie).
	exact := strconv.FormatFloat(x, 'e', 800, 64)
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
			b, _ = json.Marshal(best)
			return json.Number(string(b))
		}
	}
	b, _ = json.Marshal(x)
	return json.Number(string(b))
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

// ---------------------------------------------------------------- tests

func rdPeerCompare(t *testing.T, dir string) {
	ours := rdOurDump(t, dir)
	peer := rdPeerDump(t, dir)
	rdCompareDumps(t, ours, peer)
	t.Logf("%d rows equal", len(peer))
}

func TestReaderPeerCatalog3(t *testing.T) {
	rdPeerCompare(t, filepath.Join(rdFixtureDir(t, "catalog-3"), "__manifest"))
}

func TestReaderPeerCatalog5000(t *testing.T) {
	rdPeerCompare(t, filepath.Join(rdFixtureDir(t, "catalog-5000"), "__manifest"))
}

func TestReaderPeerCatalog100000(t *testing.T) {
	if testing.Short() {
		t.Skip("large fixture")
	}
	rdPeerCompare(t, filepath.Join(rdFixtureDir(t, "catalog-100000"), "__manifest"))
}

func TestReaderPeerTypes1000(t *testing.T) {
	rdPeerCompare(t, rdFixtureDir(t, "types-1000"))
}

func TestReaderPeerTypes100000(t *testing.T) {
	if testing.Short() || os.Getenv("LANCEFILE_LARGE") == "" {
		t.Skip("large fixture (minutes, mostly the peer dump and JSON rendering): set LANCEFILE_LARGE=1")
	}
	rdPeerCompare(t, rdFixtureDir(t, "types-100000"))
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
	// Find the spacing of float16 values around x.
	e := math.Floor(math.Log2(x))
	if x == 0 {
		return sign
	}
	if e < -14 {
		e = -14
	}
	ulp := math.Pow(2, e-10)
	q := x / ulp
	r := math.RoundToEven(q)
	v := r * ulp
	// encode v
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
