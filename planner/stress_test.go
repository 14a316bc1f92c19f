package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// The stress and limits suite (issue 19): statements built to exhaust the
// stack, the CPU or memory. Each case must give MySQL's answer (checked by
// hand against MariaDB) or a typed error, within bounded memory, and must
// end within a second of its context's cancellation. Each case runs in a
// child process of the test binary, so the peak RSS printed (rusage
// Maxrss) is the case's own. It runs when LANCECAT_STRESS=1
// (scripts/test runs it so, with its table):
//
//	LANCECAT_STRESS=1 go test -count=1 -run '^TestStress$' -v ./planner/

type stressCase struct {
	name  string
	maxMB int64 // peak RSS bound of the child process
	// cancelWithin bounds the time from cancellation to return (0: one
	// second).
	cancelWithin time.Duration
	// setup prepares the fixture (not under the cancellable context).
	setup func(f *fixture)
	// query builds the statement (parsed before the clock starts), which
	// runs under ctx; check judges its rows or error.
	query func() string
	check func(rows [][]any, err error) error
}

func wantRows(want ...[]any) func([][]any, error) error {
	return func(rows [][]any, err error) error {
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(rows, want) {
			return fmt.Errorf("rows %v, want %v", rows, want)
		}
		return nil
	}
}

func wantErr(target error, code catalog.Code) func([][]any, error) error {
	return func(rows [][]any, err error) error {
		if !errors.Is(err, target) {
			return fmt.Errorf("err %v, want %v", err, target)
		}
		if code >= 0 {
			if c, _ := catalog.CodeOf(err); c != code {
				return fmt.Errorf("err %v has code %v, want %v", err, c, code)
			}
		}
		return nil
	}
}

func stressCases() []stressCase {
	a20k := strings.Repeat("a", 20_000)
	segments := strings.Repeat("%a", 1000) + "%b"
	slowPattern := "%" + strings.Repeat("a_", 500) + "b" // 1,002 elements: the automaton, not a fast path
	evens := func() string {
		var b strings.Builder
		for k := range 1_000_000 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, 2*k)
		}
		return b.String()
	}
	return []stressCase{
		{name: "SELECT 1+1+... (1M terms)", maxMB: 700,
			query: func() string { return "SELECT 1" + strings.Repeat("+1", 1_000_000) }, check: wantErr(sqlparse.ErrLimit, -1)},
		{name: "SELECT 0 OR 0 OR ... (1M terms)", maxMB: 700,
			query: func() string { return "SELECT 0" + strings.Repeat(" OR 0", 1_000_000) }, check: wantErr(sqlparse.ErrLimit, -1)},
		{name: "SELECT 1+1+... (9,999 terms)", maxMB: 300,
			query: func() string { return "SELECT 1" + strings.Repeat("+1", 9_999) }, check: wantRows([]any{int64(10_000)})},
		{name: "100,000 nested brackets", maxMB: 300,
			query: func() string { return "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000) }, check: wantErr(sqlparse.ErrLimit, -1)},
		{name: "'<8M a>' LIKE '%b'", maxMB: 400,
			query: func() string { return "SELECT '" + strings.Repeat("a", 8_000_000) + "' LIKE '%b'" }, check: wantRows([]any{int64(0)})},
		{name: "8 MB row, WHERE body LIKE '%needle'", maxMB: 600,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE big (id BIGINT, body VARCHAR(10000000))")
				f.exec("INSERT INTO big VALUES (1, '" + strings.Repeat("a", 8_000_000) + "'), (2, 'needle')")
			},
			query: func() string { return "SELECT id FROM big WHERE body LIKE '%needle' AND body NOT LIKE '%_b%'" }, check: wantRows([]any{int64(2)})},
		{name: "'<20,000 a>' LIKE '<1,000 %>b'", maxMB: 300,
			query: func() string { return "SELECT '" + a20k + "' LIKE '" + strings.Repeat("%", 1000) + "b'" }, check: wantRows([]any{int64(0)})},
		{name: "'<20,000 a>' LIKE '%a%a...(1,000)%b'", maxMB: 300,
			query: func() string { return "SELECT '" + a20k + "' LIKE '" + segments + "'" }, check: wantRows([]any{int64(0)})},
		{name: "LIKE, 1,002-element pattern over 4 x 4 MB (cancel)", maxMB: 800,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE slow (body VARCHAR(2000000))")
				row := "('" + strings.Repeat("ab", 500_000) + "')"
				f.exec("INSERT INTO slow VALUES " + strings.TrimSuffix(strings.Repeat(row+",", 4), ","))
			},
			query: func() string {
				return "SELECT COUNT(*) FROM slow WHERE CONCAT(body, body, body, body) LIKE '" + slowPattern + "'"
			},
			check: wantRows([]any{int64(0)})},
		{name: "x IN (1M items) over 20,000 rows", maxMB: 1500,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE ids (id BIGINT)")
				var rows []string
				for k := range 20_000 {
					rows = append(rows, fmt.Sprintf("(%d)", k))
				}
				f.exec("INSERT INTO ids VALUES " + strings.Join(rows, ","))
			},
			query: func() string { return "SELECT COUNT(*) FROM ids WHERE id IN (" + evens() + ")" },
			check: wantRows([]any{int64(10_000)})},
		{name: "'1<10M x>' + 0", maxMB: 300,
			query: func() string { return "SELECT '1" + strings.Repeat("x", 10_000_000) + "' + 0" }, check: wantRows([]any{1.0})},
		{name: "CONCAT(body x 100) over a 1 MB body", maxMB: 400,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE b (body VARCHAR(2000000))")
				f.exec("INSERT INTO b VALUES ('" + strings.Repeat("x", 1_000_000) + "')")
			},
			query: func() string {
				return "SELECT LENGTH(CONCAT(" + strings.TrimSuffix(strings.Repeat("body, ", 100), ", ") + ")) FROM b"
			},
			check: wantErr(ErrValueTooLarge, catalog.CodeInvalidInput)},
		// 256 MiB of rows (a NULL vector still takes 4n bytes), built and
		// written in chunks of insertChunkBytes: about 235 MB peak (600 MB
		// when built at once); the cancellation is checked per row batch
		// and between chunk writes.
		{name: "1,000 NULL VECTOR(65536) INSERT", maxMB: 400, cancelWithin: 4 * time.Second,
			setup: func(f *fixture) { f.exec("CREATE TABLE vv (v VECTOR(65536))") },
			query: func() string { return "INSERT INTO vv VALUES (NULL)" + strings.Repeat(", (NULL)", 999) },
			check: func(_ [][]any, err error) error { return err }},
		// 1,000 rows of 2 x VECTOR(65536) are 512 MiB of new rows (a NULL
		// vector still takes 4n bytes): the UPDATE writes them in chunks
		// charged to its row-change budget instead of building them at once.
		{name: "UPDATE SET v = NULL, 1,000 rows of 2 x VECTOR(65536)", maxMB: 700, cancelWithin: 4 * time.Second,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE vv (id INT, v VECTOR(65536), w VECTOR(65536))")
				for b := range 10 {
					var rows []string
					for k := range 100 {
						rows = append(rows, fmt.Sprintf("(%d, NULL, NULL)", b*100+k))
					}
					f.exec("INSERT INTO vv VALUES " + strings.Join(rows, ","))
				}
			},
			query: func() string { return "UPDATE vv SET v = NULL" },
			check: func(_ [][]any, err error) error { return err }},
		{name: "1e308 * 10", maxMB: 200,
			query: func() string { return "SELECT 1e308 * 10" }, check: wantErr(ErrOutOfRange, catalog.CodeInvalidInput)},
		{name: "exact 64-bit literals", maxMB: 200,
			query: func() string {
				return "SELECT 18446744073709551615, -9223372036854775808, -9223372036854775808 % -1, 18446744073709551615 = 18446744073709551614"
			},
			check: wantRows([]any{uint64(18446744073709551615), int64(-9223372036854775808), int64(0), int64(0)})},
		{name: "DECIMAL(38,10) neighbours, DELETE one", maxMB: 200,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE d (x DECIMAL(38,10))")
				f.exec("INSERT INTO d VALUES (9999999999999999999999999999.9999999999), (9999999999999999999999999999.9999999998)")
				f.exec("DELETE FROM d WHERE x = 9999999999999999999999999999.9999999999")
			},
			query: func() string { return "SELECT x FROM d" }, check: wantRows([]any{"9999999999999999999999999999.9999999998"})},
		{name: "BIGINT neighbours with an index, DELETE one", maxMB: 200,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE s (x BIGINT)")
				f.exec("INSERT INTO s VALUES (-9223372036854775808), (-9223372036854775807)")
				f.exec("CREATE INDEX x_idx ON s (x)")
				f.exec("DELETE FROM s WHERE x = -9223372036854775808")
			},
			query: func() string { return "SELECT x FROM s" }, check: wantRows([]any{int64(-9223372036854775807)})},
		{name: "ORDER BY over 200,000 rows (cancel)", maxMB: 900,
			setup: func(f *fixture) {
				f.exec("CREATE TABLE o (x BIGINT, s VARCHAR(40))")
				for b := range 2 {
					var rows []string
					for k := range 100_000 {
						rows = append(rows, fmt.Sprintf("(%d, 'row %d')", (k*7919+b)%200_000, k))
					}
					f.exec("INSERT INTO o VALUES " + strings.Join(rows, ","))
				}
			},
			query: func() string { return "SELECT COUNT(*) FROM (SELECT x FROM o ORDER BY s DESC, x) AS t" },
			check: wantRows([]any{int64(200_000)})},
	}
}

// runCtx runs one parsed statement under ctx and collects its rows.
func runCtx(ctx context.Context, f *fixture, st sqlparse.Statement) ([][]any, error) {
	res, err := f.s.Exec(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := res.Collect(); err != nil {
		return nil, err
	}
	return res.Rows, nil
}

func TestStress(t *testing.T) {
	if name := os.Getenv("LANCECAT_STRESS_CASE"); name != "" {
		stressChild(t, name)
		return
	}
	if os.Getenv("LANCECAT_STRESS") != "1" {
		t.Skip("the stress suite runs with LANCECAT_STRESS=1 (scripts/test)")
	}
	var table []string
	table = append(table, fmt.Sprintf("%-55s %9s %9s %9s  %s", "case", "time", "cancel", "peak RSS", "result"))
	for _, c := range stressCases() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStress$", "-test.v")
		cmd.Env = append(os.Environ(), "LANCECAT_STRESS_CASE="+c.name)
		out, err := cmd.CombinedOutput()
		var rssMB int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rssMB = ru.Maxrss / 1024 // KiB on Linux
		}
		run, cancel, result := "?", "?", ""
		for _, line := range strings.Split(string(out), "\n") {
			if _, rest, ok := strings.Cut(line, "STRESS "); ok {
				fields := strings.SplitN(rest, " ", 3)
				if len(fields) == 3 {
					run, cancel, result = fields[0], fields[1], fields[2]
				}
			}
		}
		table = append(table, fmt.Sprintf("%-55s %9s %9s %6d MB  %s", c.name, run, cancel, rssMB, result))
		if err != nil {
			t.Errorf("%s: child failed: %v\n%s", c.name, err, out)
			continue
		}
		if rssMB > c.maxMB {
			t.Errorf("%s: peak RSS %d MB, bound %d MB", c.name, rssMB, c.maxMB)
		}
	}
	t.Log("stress and limits (each case in its own process):\n" + strings.Join(table, "\n"))
}

// stressChild runs one case: once to completion (its answer or typed
// error), then again with its context cancelled 100 ms in, which must
// either have finished correctly by then or end within a second of the
// cancellation with the context's error.
func stressChild(t *testing.T, name string) {
	var c *stressCase
	for _, sc := range stressCases() {
		if sc.name == name {
			c = &sc
			break
		}
	}
	if c == nil {
		t.Fatalf("no stress case %q", name)
	}
	f := newDataFixture(t, Options{})
	if c.setup != nil {
		c.setup(f)
	}
	start := time.Now()
	st, err := sqlparse.ParseOne(c.query())
	var rows [][]any
	if err == nil {
		rows, err = runCtx(context.Background(), f, st)
	}
	took := time.Since(start)
	if cerr := c.check(rows, err); cerr != nil {
		t.Fatalf("%s: %v", name, cerr)
	}
	result := "ok"
	if err != nil {
		result = "typed error: " + trimError(err)
	} else if len(rows) == 1 {
		result = "rows " + fmt.Sprint(rows)
		if len(result) > 70 {
			result = result[:70] + "..."
		}
	}

	if st == nil {
		fmt.Printf("STRESS %s %s %s\n", took.Round(time.Millisecond), "-", result)
		return // refused by the parser: nothing runs under a context
	}
	ctx, cancel := context.WithCancel(context.Background())
	var cancelledAt time.Time
	timer := time.AfterFunc(100*time.Millisecond, func() { cancelledAt = time.Now(); cancel() })
	rows, err = runCtx(ctx, f, st)
	end := time.Now()
	timer.Stop()
	cancelNote := "-"
	if ctx.Err() != nil && !cancelledAt.IsZero() {
		lag := end.Sub(cancelledAt)
		cancelNote = lag.Round(time.Millisecond).String()
		switch {
		case err == nil || c.check(rows, err) == nil:
			// finished (or failed as it should) before noticing the cancellation
			cancelNote += "*"
		case !errors.Is(err, context.Canceled):
			t.Fatalf("%s: cancelled run: %v, want context.Canceled or the answer", name, err)
		}
		bound := c.cancelWithin
		if bound == 0 {
			bound = time.Second
		}
		if lag > bound {
			t.Fatalf("%s: ended %v after its context was cancelled", name, lag)
		}
	} else if cerr := c.check(rows, err); cerr != nil {
		t.Fatalf("%s (second run): %v", name, cerr)
	}
	cancel()
	fmt.Printf("STRESS %s %s %s\n", took.Round(time.Millisecond), cancelNote, result)
}

func trimError(err error) string {
	s := err.Error()
	if len(s) > 70 {
		s = s[:70] + "..."
	}
	return s
}
