package sqltypes

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/sqltypes/jsonb"
)

// ErrInvalidJSON marks text that is not a JSON document where one is
// needed: MySQL's error 3140 (ER_INVALID_JSON_TEXT). It also matches
// jsonb.ErrInvalid.
var ErrInvalidJSON = fmt.Errorf("invalid JSON text (MySQL error 3140, ER_INVALID_JSON_TEXT): %w", jsonb.ErrInvalid)

// JSONError is invalid JSON text: where it was given, MySQL's reason and
// position. It matches ErrInvalidJSON and jsonb.ErrInvalid.
type JSONError struct {
	Where  string // "column j", "argument 1 to function json_extract"
	Reason string
	Offset int
}

func (e *JSONError) Error() string {
	if col, ok := strings.CutPrefix(e.Where, "column "); ok {
		return fmt.Sprintf("Invalid JSON text: %q at position %d in value for column '%s' (MySQL error 3140, ER_INVALID_JSON_TEXT)", e.Reason, e.Offset, col)
	}
	return fmt.Sprintf("Invalid JSON text in %s: %q at position %d (MySQL error 3140, ER_INVALID_JSON_TEXT)", e.Where, e.Reason, e.Offset)
}

// Is makes a JSONError match ErrInvalidJSON and jsonb.ErrInvalid.
func (e *JSONError) Is(target error) bool {
	return target == ErrInvalidJSON || target == jsonb.ErrInvalid
}

// ParseJSON parses JSON text for where (a column, a function argument),
// with MySQL's error 3140 (a *JSONError) for invalid text and 3157 for a
// document nested too deep.
func ParseJSON(text, where string) (any, error) {
	v, err := jsonb.Parse(text)
	if err == nil {
		return v, nil
	}
	var se *jsonb.SyntaxError
	if errors.As(err, &se) {
		return nil, &JSONError{Where: where, Reason: se.Msg, Offset: se.Offset}
	}
	if errors.Is(err, jsonb.ErrTooDeep) {
		return nil, fmt.Errorf("%w in %s (MySQL error 3157, ER_JSON_DOCUMENT_TOO_DEEP)", err, where)
	}
	return nil, fmt.Errorf("%s: %w", where, err)
}

// JSONScalar converts a SQL number or boolean to its JSON value (as MySQL
// does when it casts one to JSON); ok false for other values.
func JSONScalar(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case bool:
		return x, true
	case int64, uint64:
		return x, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		return x, true
	case Decimal:
		if i, ok := new(big.Int).SetString(string(x), 10); ok {
			if i.IsInt64() {
				return i.Int64(), true
			}
			if i.IsUint64() {
				return i.Uint64(), true
			}
		}
		if f, _, err := big.ParseFloat(string(x), 10, 64, big.ToNearestEven); err == nil {
			g, _ := f.Float64()
			return g, true
		}
	}
	return nil, false
}

// jsonReader reads a JSON column: JSONB (lance.json) or text (arrow.json),
// printed as MySQL 8's normalized text.
func jsonReader(f arrow.Field, arr arrow.Array) (ValueReader, error) {
	switch a := arr.(type) {
	case *array.LargeBinary:
		return binaryJSON(f, a)
	case *array.Binary:
		return binaryJSON(f, a)
	case *array.String:
		return textJSON(f, a)
	case *array.LargeString:
		return textJSON(f, a)
	}
	return nil, fmt.Errorf("%w: reading JSON column %s stored as %s", ErrUnsupportedValue, f.Name, arr.DataType())
}

func binaryJSON(f arrow.Field, a interface {
	IsNull(int) bool
	Value(int) []byte
}) (ValueReader, error) {
	return func(i int) (any, error) {
		if a.IsNull(i) {
			return nil, nil
		}
		s, err := jsonb.DecodeText(a.Value(i))
		if err != nil {
			return nil, fmt.Errorf("reading JSON column %s: %w", f.Name, err)
		}
		return s, nil
	}, nil
}

func textJSON(f arrow.Field, a interface {
	IsNull(int) bool
	Value(int) string
}) (ValueReader, error) {
	return func(i int) (any, error) {
		if a.IsNull(i) {
			return nil, nil
		}
		v, err := jsonb.Parse(a.Value(i))
		if err != nil {
			return nil, fmt.Errorf("reading JSON column %s: %w", f.Name, err)
		}
		return jsonb.Format(v), nil
	}, nil
}

// appendJSONColumn writes v (not nil) to a JSON column.
func appendJSONColumn(fb array.Builder, f arrow.Field, v any) error {
	var doc any
	switch x := v.(type) {
	case string:
		d, err := ParseJSON(x, "column "+f.Name)
		if err != nil {
			return err
		}
		doc = d
	case []byte:
		d, err := ParseJSON(string(x), "column "+f.Name)
		if err != nil {
			return err
		}
		doc = d
	default:
		// A number or boolean is not JSON text: MySQL asks for a CAST.
		return &JSONError{Where: "column " + f.Name, Reason: "not a JSON text, may need CAST", Offset: 0}
	}
	switch b := fb.(type) {
	case *array.BinaryBuilder: // large_binary too
		enc, err := jsonb.Encode(doc)
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		b.Append(enc)
		return nil
	case *array.StringBuilder:
		b.Append(jsonb.Format(doc))
		return nil
	case *array.LargeStringBuilder:
		b.Append(jsonb.Format(doc))
		return nil
	}
	return fmt.Errorf("%w: writing JSON column %s stored as %s", ErrUnsupportedValue, f.Name, fb.Type())
}
