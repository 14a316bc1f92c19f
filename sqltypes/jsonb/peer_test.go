package jsonb_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqltypes/jsonb"
	"github.com/lancecat/lancecat/storage"
)

// peerCases are JSON texts whose JSONB the peer writes; the generated
// documents of randomDoc follow them.
var peerCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `127`, `128`, `255`, `256`, `-128`, `-129`,
	`65535`, `65536`, `-32768`, `-32769`, `4294967295`, `4294967296`, `-2147483648`,
	`-2147483649`, `9223372036854775807`, `9223372036854775808`, `18446744073709551615`,
	`-9223372036854775808`, `-9223372036854775809`, `18446744073709551616`, `1e-7`, `123456.789e3`, `0.0`, `-0.0`, `1.0`, `1e2`, `0.1`, `-1.5e-10`, `1e300`,
	`123456789012345678901234567890`, `""`, `"x"`, `"a\u00e9\n\ud83d\ude00\"\\"`,
	`[]`, `{}`, `[[],{},[{}]]`, `[1,"a",null,true,false,1.5]`,
	`{"b":1,"aa":2,"a":3,"B":4,"é":5,"":6}`, `{"a":{"b":{"c":[1,{"d":null}]}}}`,
	`"` + strings.Repeat("long string ", 100) + `"`,
}

func randomDoc(r *rand.Rand, depth int) any {
	k := r.Intn(9)
	if depth > 4 && k >= 7 {
		k = r.Intn(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return r.Int63() >> uint(r.Intn(63))
	case 3:
		return -(r.Int63() >> uint(r.Intn(63))) - 1
	case 4:
		return (r.Float64() - 0.5) * float64(int64(1)<<uint(r.Intn(60)))
	case 5:
		return r.Uint64() | 1<<63
	case 6:
		runes := []rune("abcé€😀\"\\\n\t\x01 ")
		var b strings.Builder
		for n := r.Intn(12); n > 0; n-- {
			b.WriteRune(runes[r.Intn(len(runes))])
		}
		return b.String()
	case 7:
		a := []any{}
		for n := r.Intn(5); n > 0; n-- {
			a = append(a, randomDoc(r, depth+1))
		}
		return a
	}
	o := &jsonb.Object{}
	for n := r.Intn(6); n > 0; n-- {
		o.Set(fmt.Sprintf("%c%d", 'a'+r.Intn(26), r.Intn(200)), randomDoc(r, depth+1))
	}
	return o
}

// peerJSONB has the peer write texts into a lance.json column (an Arrow
// utf8 field tagged arrow.json, which Lance stores as JSONB) and returns
// the stored bytes as lancecat's Lance reader sees them (nil: NULL).
func peerJSONB(t *testing.T, texts []any) [][]byte {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	rows := make([]map[string]any, len(texts))
	for i, s := range texts {
		rows[i] = map[string]any{"id": i, "j": s}
	}
	args := map[string]any{
		"uri": dir, "name": "t", "dataStorageVersion": "2.1",
		"schema": map[string]any{"fields": []any{
			map[string]any{"name": "id", "type": "int64"},
			map[string]any{"name": "j", "type": "utf8", "metadata": map[string]string{"ARROW:extension:name": "arrow.json"}},
		}},
		"rows": rows,
	}
	if err := peer.Op(ctx, t, "createTable", args, nil); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(ctx, dir+"/t.lance", storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := dataset.Open(ctx, st, "", dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := d.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	if f := sch.Field(1); f.Type.ID() != arrow.LARGE_BINARY || !f.HasMetadata() {
		t.Fatalf("the peer stored %v, not large_binary tagged lance.json", f)
	} else if v, _ := f.Metadata.GetValue("ARROW:extension:name"); v != "lance.json" {
		t.Fatalf("the peer tagged the column %q", v)
	}
	var out [][]byte
	err = d.Scan(ctx, dataset.ScanOptions{Columns: []string{"j"}}, func(b arrow.RecordBatch) error {
		c := b.Column(0).(*array.LargeBinary)
		for i := 0; i < c.Len(); i++ {
			if c.IsNull(i) {
				out = append(out, nil)
				continue
			}
			out = append(out, bytes.Clone(c.Value(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(texts) {
		t.Fatalf("read %d rows, wrote %d", len(out), len(texts))
	}
	return out
}

// TestPeerBytes: for every document, lancecat's encoding is byte for byte
// the peer's, and lancecat decodes the peer's bytes to the same value.
func TestPeerBytes(t *testing.T) {
	peer.Require(t)
	texts := []any{}
	for _, s := range peerCases {
		texts = append(texts, s)
	}
	r := rand.New(rand.NewSource(15))
	for i := 0; i < 300; i++ {
		texts = append(texts, jsonb.Format(randomDoc(r, 0)))
	}
	texts = append(texts, nil)
	got := peerJSONB(t, texts)
	for i, s := range texts {
		if s == nil {
			if got[i] != nil {
				t.Errorf("NULL row read as %x", got[i])
			}
			continue
		}
		text := s.(string)
		v, err := jsonb.Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		enc, err := jsonb.Encode(v)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !bytes.Equal(enc, got[i]) {
			t.Errorf("%s:\n lancecat %s\n peer     %s", text, hex.EncodeToString(enc), hex.EncodeToString(got[i]))
		}
		dec, err := jsonb.Decode(got[i])
		if err != nil {
			t.Errorf("%s: decoding the peer's bytes: %v", text, err)
			continue
		}
		if a, b := jsonb.Format(dec), jsonb.Format(v); a != b {
			t.Errorf("peer's bytes of %s decode to %s, want %s", text, a, b)
		}
	}
}
