package planner

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/lancecat/lancecat/sqlparse"
)

func loadOpts() *sqlparse.LoadData {
	return &sqlparse.LoadData{FieldsTerminated: ",", FieldsTerminatedSet: true, Enclosed: `"`, EnclosedSet: true}
}

// TestLoadReader: fields, enclosed fields (doubled quotes, separators and newlines inside),
// escapes, \N, and the line a record starts on.
func TestLoadReader(t *testing.T) {
	lr := newLoadReader(bytes.NewReader([]byte("a,\"b,\"\"c\"\"\"\n\\N,\"x\ny\"\n1\\t2,\n")), loadOpts())
	var got [][]loadField
	var lines []int
	for {
		rec, err := lr.record()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
		lines = append(lines, lr.recLine)
	}
	want := [][]loadField{{{text: "a"}, {text: `b,"c"`}}, {{null: true}, {text: "x\ny"}}, {{text: "1\t2"}, {text: ""}}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(lines, []int{1, 2, 4}) {
		t.Fatalf("records %+v lines %v", got, lines)
	}
	if _, err := newLoadReader(bytes.NewReader([]byte("\"open")), loadOpts()).record(); err == nil {
		t.Fatal("an unclosed quote parsed")
	}
}

// FuzzLoadReader: any bytes split into records or fail with an error, never a panic or a
// record past the length bound.
func FuzzLoadReader(f *testing.F) {
	f.Add([]byte("a,\"b,\"\"c\"\"\"\n\\N,\"x\ny\"\n"))
	f.Add([]byte("\"\"\"\n\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lr := newLoadReader(bytes.NewReader(b), loadOpts())
		for i := 0; i <= len(b)+1; i++ {
			rec, err := lr.record()
			if err != nil {
				return
			}
			n := 0
			for _, f := range rec {
				n += len(f.text)
			}
			if n > len(b) {
				t.Fatalf("record of %d bytes from %d", n, len(b))
			}
		}
		t.Fatal("more records than bytes")
	})
}
