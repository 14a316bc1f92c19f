package exec

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/lancecat/lancecat/sqltypes"
)

func readAllRecords(t testing.TB, b []byte) []joinRec {
	t.Helper()
	rr := &recordReader{r: bufio.NewReader(bytes.NewReader(b))}
	var out []joinRec
	for {
		r, err := rr.read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("read record %d: %v", len(out), err)
		}
		out = append(out, r)
	}
}

// gobRoundTrip is what the join's files gave back before the spill layout:
// the reference for records the layout hands to gob.
func gobRoundTrip(t *testing.T, r joinRec) joinRec {
	t.Helper()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&r); err != nil {
		t.Fatal(err)
	}
	var out joinRec
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

type spillTestStruct struct{ A int }

func init() { gob.Register(spillTestStruct{}) }

// TestSpillRecordRoundTrip: every value type of a row comes back from a
// spill file with its type and value (times with their offset); a value
// outside the layout's types comes back as gob gave it.
func TestSpillRecordRoundTrip(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.FixedZone("", 3600))
	fast := []joinRec{
		{Row: []any{}, Key: []any{}},
		{Row: []any{nil, true, false, int64(-1), int64(math.MinInt64), uint64(math.MaxUint64), 1.5, math.Inf(-1),
			float32(2.25), "", "héllo", sqltypes.Decimal("-12.340"), []byte{}, []byte{0, 1}, ts},
			Key: []any{int64(7), "k"}},
		{Row: []any{[]any{int64(1), []any{"x", nil}}, map[string]any{"a": int64(1), "b": []any{2.5}}, []float32{1, -2, 3.5}},
			Key: []any{nil}, Null: true},
	}
	var b []byte
	for i := range fast {
		var err error
		if b, err = appendRecord(b, &fast[i]); err != nil {
			t.Fatal(err)
		}
		if b[len(b)-1] == recordGob {
			t.Fatalf("record %d went through gob", i)
		}
	}
	got := readAllRecords(t, b)
	if !reflect.DeepEqual(got, fast) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, fast)
	}

	slow := joinRec{Row: []any{int64(1), spillTestStruct{A: 3}, []byte(nil)}, Key: []any{int64(1)}}
	b, err := appendRecord(nil, &slow)
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != recordGob {
		t.Fatalf("record of an unknown type has kind %d, want gob", b[0])
	}
	if got, want := readAllRecords(t, b), gobRoundTrip(t, slow); !reflect.DeepEqual(got[0], want) {
		t.Fatalf("gob record: got %#v, want %#v", got[0], want)
	}

	// A value gob cannot carry fails at write, not at read.
	if _, err := appendRecord(nil, &joinRec{Row: []any{make(chan int)}}); err == nil {
		t.Fatal("a channel value encoded")
	}
}

// FuzzSpillRecordReader: the reader of spill files fails cleanly on any
// bytes (a torn or corrupted temporary file), never panics nor allocates
// past its bounds.
func FuzzSpillRecordReader(f *testing.F) {
	r := joinRec{Row: []any{int64(1), "a", []any{map[string]any{"k": 1.5}}, []float32{1}}, Key: []any{sqltypes.Decimal("1.0")}}
	seed, _ := appendRecord(nil, &r)
	f.Add(seed)
	f.Add([]byte{recordFast, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{recordGob, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		rr := &recordReader{r: bufio.NewReader(bytes.NewReader(b))}
		for range 64 {
			rec, err := rr.read()
			if err != nil {
				return
			}
			// What was read writes back to the same record.
			again, err := appendRecord(nil, &rec)
			if err != nil {
				t.Fatalf("re-encode %#v: %v", rec, err)
			}
			back := readAllRecords(t, again)
			// (%#v, not DeepEqual: a NaN read back equals itself here; gob
			// gives back an empty row or key as nil, the layout as empty.)
			if len(back) != 1 || recString(back[0]) != recString(rec) {
				t.Fatalf("re-read %#v, want %#v", back, rec)
			}
		}
	})
}

func recString(r joinRec) string {
	if r.Row == nil {
		r.Row = []any{}
	}
	if r.Key == nil {
		r.Key = []any{}
	}
	return fmt.Sprintf("%#v", r)
}
