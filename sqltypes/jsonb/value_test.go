package jsonb

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestFormat: Parse then Format gives MySQL 8's normalized text (keys by
// length then bytewise, the last duplicate wins, ", " and ": " spacing,
// doubles with ".0").
func TestFormat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":[1,2],"a":1}`, `{"a": 1, "b": [1, 2]}`},
		{` {"bb":1, "a" : 2, "c":3, "a":4} `, `{"a": 4, "c": 3, "bb": 1}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`null`, `null`},
		{`"a\"b\\c\n\u0001\u00e9/"`, `"a\"b\\c\n\u0001é/"`},
		{`1e2`, `100.0`},
		{`1.0`, `1.0`},
		{`0.1`, `0.1`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`1e15`, `1e15`},
		{`1.5e-16`, `1.5e-16`},
		{`123456789012345678901234567890`, `1.2345678901234568e29`},
		{`18446744073709551615`, `18446744073709551615`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`[true,false,null,{"x":[{}]}]`, `[true, false, null, {"x": [{}]}]`},
	} {
		v, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := Format(v); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
		b, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeText(b)
		if err != nil || back != c.want {
			t.Errorf("%s: JSONB round trip %q, %v", c.in, back, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in  string
		pos int
	}{
		{``, 0}, {`{`, 1}, {`[1,]`, 3}, {`{"a"}`, 4}, {`{"a":1,}`, 7}, {`tru`, 0}, {`01`, 1},
		{`"abc`, 0}, {`1.`, 2}, {`1e`, 2}, {`"\x"`, 1}, {`"\ud800"`, 7}, {"\"\x01\"", 1},
		{`1 2`, 2}, {`1e400`, 0}, {`"` + "\xff" + `"`, 1}, {`nul`, 0},
	} {
		_, err := Parse(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: got %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Offset != c.pos {
			t.Errorf("%q: error at %d (%s), want %d", c.in, se.Offset, se.Msg, c.pos)
		}
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse(deep); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Parse("[" + deep + "]"); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth %d: %v, want ErrTooDeep", MaxDepth+1, err)
	}
}

// TestDecodeCorrupt: every truncation and many byte flips of valid JSONB
// give a typed error or a value, never a panic; hostile counts are refused
// before allocation.
func TestDecodeCorrupt(t *testing.T) {
	b, err := EncodeText(`{"a":[1,-2,"x",{"b":null}],"bb":1.5,"c":18446744073709551615}`)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrInvalid) {
			t.Errorf("truncated to %d: %v", n, err)
		}
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0xff
		Decode(c)
	}
	for _, h := range [][]byte{
		{0x9f, 0xff, 0xff, 0xff},             // array of 2^29-1 entries
		{0x5f, 0xff, 0xff, 0xff, 0, 0, 0, 0}, // object of 2^29-1 members
		{0x20, 0, 0, 0, 0x1f, 0xff, 0xff, 0xff},
		{0x20, 0, 0, 0, 0x20, 0, 0, 2, 0x40, 1},    // signed number of 1 byte: valid
		{0x20, 0, 0, 0, 0x20, 0, 0, 3, 0x40, 1, 2}, // signed number of 2 bytes: valid
		{0x20, 0, 0, 0, 0x20, 0, 0, 4, 0x40, 1, 2, 3},
		{0x20, 0, 0, 0, 0x10, 0, 0, 1, 0xff},
		{0x20, 0, 0, 0, 0x60, 0, 0, 0},
		{0x20, 0, 0, 0, 0x00, 0, 0, 0, 0},
	} {
		v, err := Decode(h)
		if len(h) >= 10 && len(h) <= 11 {
			if err != nil {
				t.Errorf("%x: %v", h, err)
			}
			continue
		}
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Errorf("%x: got %v, %v; want a CorruptError", h, v, err)
		}
	}
	// Depth: a document nested past MaxDecodeDepth is refused, not recursed.
	var nest []byte
	for i := 0; i < MaxDecodeDepth+5; i++ {
		nest = append(nest, 0x80, 0, 0, 1, 0x50, 0, 0, 0)
	}
	if _, err := Decode(nest); !errors.Is(err, ErrInvalid) {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestEncodeSpecial(t *testing.T) {
	for _, f := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		b, err := Encode([]any{f})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if g := v.([]any)[0].(float64); !(math.IsNaN(f) && math.IsNaN(g)) && g != f {
			t.Errorf("%v decodes to %v", f, g)
		}
		if Format(v) != "[null]" {
			t.Errorf("%v prints %s", f, Format(v))
		}
	}
	if _, err := Encode(struct{}{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a struct: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`null`, `[1,"a",{"b":[]}]`, `{"a":1.5,"bb":-3}`, `"x"`, `18446744073709551615`} {
		b, _ := EncodeText(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// What decodes re-encodes, and the re-encoding decodes to the same text.
		e, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		if Format(v) != Format(w) {
			t.Fatalf("%s != %s", Format(v), Format(w))
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`null`, `[1,"a",{"b":[]}]`, `{"a":1.5,"bb":-3,"a":2}`, `"\ud83d\ude00"`, `-0.0e-5`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		text := Format(v)
		w, err := Parse(text)
		if err != nil {
			t.Fatalf("%q formats to %q, which does not parse: %v", s, text, err)
		}
		if Format(w) != text {
			t.Fatalf("%q: %s then %s", s, text, Format(w))
		}
		b, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := DecodeText(b); err != nil || back != text {
			t.Fatalf("%q: JSONB gives %q, %v; want %q", s, back, err, text)
		}
	})
}
