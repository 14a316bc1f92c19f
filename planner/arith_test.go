package planner

import (
	"cmp"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// TestArithmetic: integer results stay exact and fail outside their MySQL
// type (BIGINT for two signed operands, BIGINT UNSIGNED when one is: MariaDB
// agrees, conformance/mariadb TestReliabilityAnswersMatchMariaDB), floats and strings divide as float64,
// division and modulo by zero are NULL, NULL propagates.
func TestArithmetic(t *testing.T) {
	for _, c := range []struct {
		op   sqlparse.BinaryOp
		l, r any
		want any
	}{
		{sqlparse.OpAdd, int64(2), int64(3), int64(5)},
		{sqlparse.OpSub, int64(2), int64(3), int64(-1)},
		{sqlparse.OpMul, int64(-4), int64(3), int64(-12)},
		{sqlparse.OpAdd, uint64(math.MaxInt64), int64(1), uint64(math.MaxInt64) + 1},
		{sqlparse.OpSub, uint64(5), int64(-3), int64(8)},
		{sqlparse.OpMod, int64(math.MinInt64), int64(-1), int64(0)},
		{sqlparse.OpSub, uint64(math.MaxUint64), uint64(1), uint64(math.MaxUint64 - 1)},
		{sqlparse.OpDiv, int64(7), int64(2), 3.5},
		{sqlparse.OpIntDiv, int64(-7), int64(2), int64(-3)},
		{sqlparse.OpMod, int64(-7), int64(2), int64(-1)},
		{sqlparse.OpDiv, int64(1), int64(0), nil},
		{sqlparse.OpIntDiv, int64(1), int64(0), nil},
		{sqlparse.OpMod, 1.5, 0.0, nil},
		{sqlparse.OpAdd, nil, int64(1), nil},
		{sqlparse.OpAdd, 1.5, int64(1), 2.5},
		{sqlparse.OpMul, "10.50", int64(2), 21.0},
		{sqlparse.OpAdd, "3abc", int64(1), 4.0},
		{sqlparse.OpAdd, "abc", int64(1), 1.0},
	} {
		got, err := arithmetic(c.op, c.l, c.r)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v %s %v = %v (%T), %v; want %v (%T)", c.l, c.op, c.r, got, got, err, c.want, c.want)
		}
	}
	for _, c := range []struct {
		op   sqlparse.BinaryOp
		l, r any
	}{
		{sqlparse.OpMul, int64(math.MaxInt64), int64(3)},
		{sqlparse.OpSub, int64(math.MinInt64), int64(1)},
		{sqlparse.OpAdd, uint64(math.MaxUint64), int64(1)},
		{sqlparse.OpAdd, int64(math.MaxInt64), int64(1)},      // BIGINT + BIGINT stays BIGINT
		{sqlparse.OpIntDiv, int64(math.MinInt64), int64(-1)},  // -2^63 DIV -1
		{sqlparse.OpSub, uint64(5), int64(10)},                // BIGINT UNSIGNED below 0
		{sqlparse.OpMul, uint64(1), int64(-1)},                // likewise
		{sqlparse.OpSub, int64(0), uint64(math.MaxInt64) + 2}, // 0 - 9223372036854775809
	} {
		_, err := arithmetic(c.op, c.l, c.r)
		var ce *catalog.Error
		if !errors.As(err, &ce) || ce.Code != catalog.CodeInvalidInput {
			t.Errorf("%v %s %v: err %v, want InvalidInput out of range", c.l, c.op, c.r, err)
		}
	}
}

// TestCompareFloatTotalOrder: the planner orders floats by IEEE totalOrder
// with -0 equal to 0: a NaN equals itself and sorts above +Inf (a NaN with
// the sign bit below -Inf), so no NaN equals an ordinary number.
func TestCompareFloatTotalOrder(t *testing.T) {
	nan, negNaN := math.NaN(), math.Float64frombits(0xfff8000000000000)
	negZero := math.Copysign(0, -1)
	ascending := []float64{negNaN, math.Inf(-1), -1.5, negZero, 0, 2, math.Inf(1), nan}
	for i, a := range ascending {
		for j, b := range ascending {
			want := cmp.Compare(i, j)
			if (i == 3 && j == 4) || (i == 4 && j == 3) {
				want = 0 // -0 = 0
			}
			if got := compare(a, b); got != want {
				t.Errorf("compare(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
	}
	if compare(nan, int64(5)) != 1 || compare(int64(5), nan) != -1 || compare(negZero, int64(0)) != 0 {
		t.Error("float against integer does not follow the same order")
	}
	env := newRowEnv([]Column{{Name: "f", DatabaseType: "DOUBLE"}})
	for expr, want := range map[string]any{"f = 1": false, "f > 1e308": true, "f <> 1": true, "f = f": true} {
		st, err := sqlparse.ParseOne("SELECT 1 FROM t WHERE " + expr)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := env.eval(st.(*sqlparse.Select).Where, []any{nan}); err != nil || got != want {
			t.Errorf("NaN: %s = %v (%v), want %v", expr, got, err, want)
		}
	}
}

// TestLeadingNumber: MySQL's string-to-number conversion, in one pass (it
// tried ParseFloat on every prefix: '1<100,000 x>' + 0 took 9.4 s).
func TestLeadingNumber(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
	}{
		{"", 0}, {"abc", 0}, {"  12abc", 12}, {"-3.5e2x", -350}, {"1e", 1}, {"1e+", 1},
		{".5", 0.5}, {"5.", 5}, {"-", 0}, {"+.e3", 0}, {"inf", 0}, {"NaN", 0}, {"0x10", 0},
		{"1e400", math.MaxFloat64}, {"-1e400", -math.MaxFloat64}, {"\t7", 7},
	} {
		if got := leadingNumber(c.s); got != c.want {
			t.Errorf("leadingNumber(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	long := "1" + strings.Repeat("x", 10_000_000)
	if got := leadingNumber(long); got != 1 {
		t.Errorf("leadingNumber(1 + 10M x) = %v", got)
	}
	long = strings.Repeat("9", 1_000_000) + "x"
	if got := leadingNumber(long); got != math.MaxFloat64 {
		t.Errorf("leadingNumber(1M nines) = %v", got)
	}
}

// TestFloatOutOfRange: arithmetic that overflows a DOUBLE or makes NaN is
// MySQL's error 1690, not an Infinity or NaN written into a DOUBLE column.
func TestFloatOutOfRange(t *testing.T) {
	f := newDataFixture(t, Options{})
	for _, q := range []string{"SELECT 1e308 * 10", "SELECT -1e308 - 1e308", "SELECT 1e308 + 1e308"} {
		_, err := f.try(q)
		if !errors.Is(err, ErrOutOfRange) || !errors.Is(err, catalog.ErrInvalidInput) {
			t.Errorf("%s: %v, want ErrOutOfRange", q, err)
		}
	}
	f.exec("CREATE TABLE d (x DOUBLE)")
	f.exec("INSERT INTO d VALUES (1e308), (2)")
	if _, err := f.try("UPDATE d SET x = x * 10"); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("UPDATE writing Infinity: %v", err)
	}
	if got := f.rows("SELECT x FROM d ORDER BY x"); !reflect.DeepEqual(got, [][]any{{2.0}, {1e308}}) {
		t.Errorf("after the failed UPDATE: %v", got)
	}
	for q, want := range map[string]any{
		"SELECT -9223372036854775808 % -1":  int64(0),
		"SELECT 1e308 * 1":                  1e308,
		"SELECT -9223372036854775808 DIV 1": int64(math.MinInt64),
	} {
		if got := f.rows(q); !reflect.DeepEqual(got[0][0], want) {
			t.Errorf("%s = %#v, want %#v", q, got[0][0], want)
		}
	}
	if got := f.rows("SELECT -9223372036854775808 % -1"); math.Signbit(float64(got[0][0].(int64))) {
		t.Error("-0")
	}
}

// TestSumUnsignedExact: SUM and AVG over BIGINT UNSIGNED are exact
// (DECIMALs, as MySQL's, AVG with 4 decimals), past 2^64 too; they became
// float64s that rounded silently.
func TestSumUnsignedExact(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE u (g BIGINT, x BIGINT UNSIGNED)")
	f.exec("INSERT INTO u VALUES (1, 18446744073709551615), (1, 18446744073709551615), (1, 1), (2, 9007199254740993), (2, 1), (3, NULL)")
	res := f.exec("SELECT g, SUM(x), AVG(x) FROM u GROUP BY g ORDER BY g")
	want := [][]any{{int64(1), "36893488147419103231", "12297829382473034410.3333"}, {int64(2), "9007199254740994", "4503599627370497.0000"}, {int64(3), nil, nil}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("SUM/AVG over BIGINT UNSIGNED = %v, want %v", res.Rows, want)
	}
	if !strings.HasPrefix(res.Columns[1].DatabaseType, "DECIMAL") {
		t.Errorf("SUM type %s, want DECIMAL", res.Columns[1].DatabaseType)
	}
}

// TestUnsupportedFunctionNamesNoClause: an unsupported function in a
// select list is not reported as being "in WHERE".
func TestUnsupportedFunctionNamesNoClause(t *testing.T) {
	f := newDataFixture(t, Options{})
	_, err := f.try("SELECT NOSUCHFN(1)")
	if err == nil || strings.Contains(err.Error(), "WHERE") || !strings.Contains(err.Error(), "NOSUCHFN") {
		t.Errorf("SELECT NOSUCHFN(1): %v", err)
	}
}

// TestTemporalInNumericContext: a DATE is YYYYMMDD and a DATETIME
// YYYYMMDDhhmmss (midnight included) in arithmetic, CAST to SIGNED and
// SUM/AVG, as MySQL reads them (values from MariaDB 10.11); ts + 0 was
// "not supported: arithmetic on time.Time values" and CAST of a DATETIME
// at midnight gave the date's 8 digits.
func TestTemporalInNumericContext(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE TABLE tn (id BIGINT, dt DATE, ts DATETIME)")
	f.exec("INSERT INTO tn VALUES (1, '2024-01-02', '2024-01-02 03:04:05'), (2, '2024-01-03', '2024-01-03 00:00:00'), (3, NULL, NULL)")
	res := f.exec("SELECT ts + 0, dt + 0, ts * 1, dt - 1, -ts, CAST(ts AS SIGNED), ts + 0.5 FROM tn ORDER BY id")
	want := [][]any{
		{int64(20240102030405), int64(20240102), int64(20240102030405), int64(20240101), int64(-20240102030405), int64(20240102030405), "20240102030405.5"},
		{int64(20240103000000), int64(20240103), int64(20240103000000), int64(20240102), int64(-20240103000000), int64(20240103000000), "20240103000000.5"},
		{nil, nil, nil, nil, nil, nil, nil},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("got  %v\nwant %v", res.Rows, want)
	}
	if typ := res.Columns[0].DatabaseType; typ != "BIGINT" {
		t.Errorf("ts + 0: type %s, want BIGINT", typ)
	}
	if got := f.rows("SELECT SUM(dt), AVG(dt), SUM(ts), AVG(ts) FROM tn"); !reflect.DeepEqual(got, [][]any{{"40480205", "20240102.5000", "40480205030405", "20240102515202.5000"}}) {
		t.Errorf("SUM/AVG over dates: %v", got)
	}
	// DATE_ADD over a string gives text, which MariaDB reads as the
	// DATETIME it spells in arithmetic and CAST to DOUBLE or DECIMAL (but
	// as text in CAST to SIGNED).
	got := f.rows("SELECT DATE_ADD('2024-01-01', INTERVAL 1 DAY) + 0, CAST(DATE_SUB('2024-01-01', INTERVAL 1 HOUR) AS DOUBLE), " +
		"CAST(DATE_ADD('2024-01-01', INTERVAL 1 DAY) AS DECIMAL(10,1)), CAST(DATE_ADD('2024-01-01', INTERVAL 1 DAY) AS SIGNED), DATE_ADD('2024-01-01', INTERVAL 1 DAY)")
	if w := [][]any{{int64(20240102), 20231231230000.0, "20240102.0", int64(2024), "2024-01-02"}}; !reflect.DeepEqual(got, w) {
		t.Errorf("DATE_ADD over a string: got %#v, want %#v", got, w)
	}
}
