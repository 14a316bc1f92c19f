package planner

import (
	"strconv"
	"strings"
	"sync"

	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// x IN (list) over a long list of constants looks x up in a hash set built
// once per statement, instead of comparing with every item on every row
// (a 1M-item list over 2M rows took more than 11 minutes). The set holds
// one class of items, exact numbers (integers and decimals, keyed by their
// normalised decimal text) or strings (keyed by their bytes), so that a set
// hit is exactly compare(x, item) == 0; an x of another kind (a DOUBLE, a
// string against numbers) takes the item-by-item loop, as does a list with
// mixed kinds or non-constant items.

// inListSetMin is the list length from which a set pays.
const inListSetMin = 16

// inSet is a list's constant items as a set.
type inSet struct {
	strs    bool // the keys are strings (else exact numbers)
	keys    map[string]struct{}
	sawNull bool
}

type inSetCache struct {
	inMu   sync.Mutex
	inSets map[*sqlparse.InList]*inSet // nil value: the list cannot be a set
}

// inSetOf returns n's set, or nil when the list must be walked.
func (env *rowEnv) inSetOf(n *sqlparse.InList) *inSet {
	if len(n.List) < inListSetMin {
		return nil
	}
	env.inMu.Lock()
	defer env.inMu.Unlock()
	if s, ok := env.inSets[n]; ok {
		return s
	}
	if env.inSets == nil {
		env.inSets = map[*sqlparse.InList]*inSet{}
	}
	s := env.buildInSet(n)
	env.inSets[n] = s
	return s
}

func (env *rowEnv) buildInSet(n *sqlparse.InList) *inSet {
	s := &inSet{keys: make(map[string]struct{}, len(n.List))}
	kinds := 0 // 1 numbers, 2 strings
	for i, item := range n.List {
		if i&4095 == 4095 && env.cancelled() {
			return nil // the caller's loop reports the cancellation
		}
		if !literalArithmetic(item) {
			return nil
		}
		v, err := env.eval(item, nil)
		if err != nil {
			return nil
		}
		var key string
		var kind int
		switch x := v.(type) {
		case nil:
			s.sawNull = true
			continue
		case string:
			key, kind = x, 2
		case []byte:
			key, kind = string(x), 2
		default:
			k, ok := exactKey(v, false)
			if !ok {
				return nil // a DOUBLE item compares as float64
			}
			key, kind = k, 1
		}
		if kinds != 0 && kinds != kind {
			return nil
		}
		kinds = kind
		s.keys[key] = struct{}{}
	}
	s.strs = kinds == 2
	return s
}

// lookup reports x's membership: found, or ok false when x's kind needs
// the item-by-item comparison.
func (s *inSet) lookup(x any) (found, ok bool) {
	var key string
	switch v := x.(type) {
	case string:
		if s.strs {
			key = v
			break
		}
		k, isNum := exactKey(v, true) // a DECIMAL column's text
		if !isNum {
			return false, false
		}
		key = k
	case []byte:
		if !s.strs {
			return false, false
		}
		key = string(v)
	default:
		if s.strs {
			return false, false
		}
		k, isNum := exactKey(v, false)
		if !isNum {
			return false, false
		}
		key = k
	}
	_, found = s.keys[key]
	return found, true
}

// exactKey is an exact number's normalised decimal text ("-12.5", "0"),
// the same for every spelling of one value (5, 5.00, uint64 5).
func exactKey(v any, plainText bool) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case bool:
		if x {
			return "1", true
		}
		return "0", true
	case sqltypes.Decimal:
		return normDecimalText(string(x))
	case string:
		if plainText {
			return normDecimalText(x)
		}
	}
	return "", false
}

// normDecimalText normalises plain decimal text: no '+', no leading zeros
// of the integer part, no trailing zeros of the fraction, no "-0".
func normDecimalText(s string) (string, bool) {
	if !isDecimalText(s) {
		return "", false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	ip, fp, _ := strings.Cut(s, ".")
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	if ip == "" {
		ip = "0"
	}
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}
