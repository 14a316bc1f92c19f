package jsonb

import (
	"strings"
	"testing"
)

// benchDoc is a 1.5 KB document of the shape JSON columns often hold.
var benchDoc = `{"user": {"id": 12345, "name": "Alice Example", "email": "alice@example.com", "tags": ["a", "b", "c"],` +
	` "score": 98.25, "active": true, "addr": {"city": "Paris", "zip": "75001", "geo": [48.85, 2.35]}}, "events": [` +
	strings.Repeat(`{"t": 1733443200, "kind": "click", "n": 3}, `, 20) + `null]}`

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	for i := 0; i < b.N; i++ {
		if _, err := Parse(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	v, _ := Parse(benchDoc)
	b.SetBytes(int64(len(benchDoc)))
	for i := 0; i < b.N; i++ {
		if _, err := Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeText(b *testing.B) {
	enc, _ := EncodeText(benchDoc)
	b.SetBytes(int64(len(enc)))
	for i := 0; i < b.N; i++ {
		if _, err := DecodeText(enc); err != nil {
			b.Fatal(err)
		}
	}
}
