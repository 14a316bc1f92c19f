package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runSQLCLI runs the program with stdin as standard input.
func runSQLCLI(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runWithInput(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// goldenScript exercises a result with NULLs, a 64-bit integer, strings
// needing CSV quoting, the empty string, several result sets and statements
// without a result set.
const goldenScript = `CREATE SCHEMA a COMMENT 'first, "quoted"';
CREATE SCHEMA b;
CREATE TABLE a.t (id BIGINT NOT NULL, note TEXT, PRIMARY KEY (id));
SELECT SCHEMA_NAME, SCHEMA_COMMENT FROM information_schema.schemata ORDER BY SCHEMA_NAME;
SELECT 9223372036854775807 AS big, -42 AS neg, NULL AS n, 2.5 AS f, '' AS e, 'x y' AS s
  FROM information_schema.schemata WHERE SCHEMA_NAME = 'a';
DESCRIBE a.t;
`

var goldenOutputs = map[string]string{
	"table": `OK
OK
OK

SCHEMA_NAME | SCHEMA_COMMENT
------------+----------------
$root       | NULL
a           | first, "quoted"
b           | NULL
(3 rows)

big                 | neg | n    | f   | e | s
--------------------+-----+------+-----+---+----
9223372036854775807 | -42 | NULL | 2.5 |   | x y
(1 row)

Field | Type   | Null | Key | Default | Extra
------+--------+------+-----+---------+------
id    | BIGINT | NO   | PRI | NULL    |
note  | TEXT   | YES  |     | NULL    |
(2 rows)
`,
	"csv": `SCHEMA_NAME,SCHEMA_COMMENT
$root,
a,"first, ""quoted"""
b,
big,neg,n,f,e,s
9223372036854775807,-42,,2.5,"",x y
Field,Type,Null,Key,Default,Extra
id,BIGINT,NO,PRI,,""
note,TEXT,YES,"",,""
`,
	"jsonl": `{"SCHEMA_NAME":"$root","SCHEMA_COMMENT":null}
{"SCHEMA_NAME":"a","SCHEMA_COMMENT":"first, \"quoted\""}
{"SCHEMA_NAME":"b","SCHEMA_COMMENT":null}
{"big":9223372036854775807,"neg":-42,"n":null,"f":"2.5","e":"","s":"x y"}
{"Field":"id","Type":"BIGINT","Null":"NO","Key":"PRI","Default":null,"Extra":""}
{"Field":"note","Type":"TEXT","Null":"YES","Key":"","Default":null,"Extra":""}
`,
}

func TestSQLFormatsGolden(t *testing.T) {
	for _, format := range []string{"table", "csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			uri := filepath.Join(t.TempDir(), "lake")
			args := []string{"--uri", uri, "-c", goldenScript}
			if format != "table" {
				args = append(args, "--format", format)
			}
			code, out, stderr := runSQLCLI("", args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if out != goldenOutputs[format] {
				t.Errorf("output:\n%s\nwant:\n%s", out, goldenOutputs[format])
			}
		})
	}
}

// TestSQLSources runs the golden script from -f, -f - and stdin (no -c or
// -f, stdin not a terminal), with --flag=value spellings.
func TestSQLSources(t *testing.T) {
	script := filepath.Join(t.TempDir(), "golden.sql")
	if err := os.WriteFile(script, []byte(goldenScript), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{"-f", script}},
		{"file-stdin", goldenScript, []string{"-f", "-"}},
		{"stdin", goldenScript, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			uri := filepath.Join(t.TempDir(), "lake")
			args := append([]string{"--uri=" + uri, "--format=csv"}, c.args...)
			code, out, stderr := runSQLCLI(c.stdin, args...)
			if code != 0 || stderr != "" || out != goldenOutputs["csv"] {
				t.Errorf("exit %d, stderr %q, output:\n%s", code, stderr, out)
			}
		})
	}
}

// TestSQLCombinedScripts: -c and -f run in command-line order on one
// connection (USE lasts into the next script).
func TestSQLCombinedScripts(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "two.sql")
	os.WriteFile(script, []byte("USE a;\nCREATE TABLE t2 (x INT);\n"), 0o644)
	code, out, stderr := runSQLCLI("", "--uri", filepath.Join(dir, "lake"), "--format", "csv",
		"-c", "CREATE SCHEMA a; CREATE TABLE a.t1 (x INT)", "-f", script, "-c", "SHOW TABLES")
	want := "Tables_in_a\nt1\nt2\n"
	if code != 0 || stderr != "" || out != want {
		t.Errorf("exit %d, stderr %q, output %q, want %q", code, stderr, out, want)
	}
}

func TestSQLErrors(t *testing.T) {
	dir := t.TempDir()
	badFile := filepath.Join(dir, "bad.sql")
	os.WriteFile(badFile, []byte("SHOW SCHEMAS;\n\n  SHOW TABLES FROM nope;\n"), 0o644)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		out    string // exact stdout
		stderr string // exact first line of stderr
	}{
		{
			name:   "catalog error on line 3",
			args:   []string{"--format", "csv", "-c", "CREATE SCHEMA a;\nSHOW SCHEMAS;\nDROP TABLE a.nope;\nCREATE SCHEMA never"},
			code:   1,
			out:    "Database\na\n",
			stderr: `lancecat: TableNotFound at line 3 column 1: table "a$nope" does not exist`,
		},
		{
			name:   "error inside a statement that starts mid-line",
			args:   []string{"--format", "csv", "-c", "SHOW SCHEMAS; CREATE TABLE t (\n  x INT,\n  y FOO)"},
			code:   1,
			out:    "Database\n",
			stderr: "lancecat: Unsupported at line 3 column 5: unsupported type FOO",
		},
		{
			name:   "syntax error after good statements",
			args:   []string{"--format", "jsonl", "-c", "CREATE SCHEMA s; SHOW SCHEMAS;\n  SELEC 1; CREATE SCHEMA never"},
			code:   1,
			out:    "{\"Database\":\"s\"}\n",
			stderr: `lancecat: InvalidInput at line 2 column 3: syntax error near "SELEC 1; CREATE SCHEMA never"`,
		},
		{
			name:   "file error names the file",
			args:   []string{"-f", badFile},
			code:   1,
			out:    "Database\n--------\n(0 rows)\n",
			stderr: "lancecat: " + badFile + ": NamespaceNotFound at line 3 column 3: ",
		},
		{
			name:   "missing file",
			args:   []string{"-f", filepath.Join(dir, "missing.sql")},
			code:   1,
			stderr: "lancecat: open " + filepath.Join(dir, "missing.sql") + ": no such file or directory",
		},
		{name: "bad format", args: []string{"--format", "xml", "-c", "SHOW SCHEMAS"}, code: 2, stderr: `lancecat: usage: bad --format "xml" (table, csv or jsonl)`},
		{name: "-c without text", args: []string{"-c"}, code: 2, stderr: "lancecat: usage: -c needs a value"},
		{name: "command word", args: []string{"select"}, code: 2, stderr: `lancecat: usage: unknown command "select"`},
		{name: "unknown flag", args: []string{"--nope"}, code: 2, stderr: "lancecat: usage: unknown flag --nope"},
		{name: "bad uri option", args: []string{"--uri", filepath.Join(dir, "x") + "?bogus=1", "-c", "SHOW SCHEMAS"}, code: 1, stderr: "lancecat: InvalidInput: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.code != 2 && !strings.Contains(strings.Join(args, " "), "--uri") {
				args = append([]string{"--uri", filepath.Join(t.TempDir(), "lake")}, args...)
			}
			code, out, stderr := runSQLCLI("", args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != c.code || out != c.out || !strings.HasPrefix(first, c.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %q\nwant   %q\nstderr %q\nwant prefix %q", code, c.code, out, c.out, stderr, c.stderr)
			}
			if c.code == 1 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("want one line on stderr, got %q", stderr)
			}
			if c.code == 2 && !strings.Contains(stderr, "usage:") {
				t.Errorf("usage error without usage text: %q", stderr)
			}
			if strings.Contains(strings.Join(args, " "), "never") {
				// The statements after the error did not run.
				uri := args[1]
				_, out, _ := runSQLCLI("", "--uri", uri, "--format", "csv", "-c", "SHOW SCHEMAS LIKE 'never'")
				if out != "Database\n" {
					t.Errorf("a statement after the error ran: %q", out)
				}
			}
		})
	}
}

func TestSQLHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"--uri", "x", "-h"}, {"help"}} {
		code, out, stderr := runSQLCLI("", args...)
		if code != 0 || out != usageText || stderr != "" {
			t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, stderr)
		}
	}
}

// TestSQLDefaultURI: without --uri the catalog is ./lancecat-data, which
// reading does not create and the first write does.
func TestSQLDefaultURI(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	data := filepath.Join(dir, "lancecat-data")
	code, out, stderr := runSQLCLI("", "--format", "csv", "-c", "SHOW SCHEMAS; SHOW TABLES; SELECT * FROM information_schema.tables")
	if code != 0 || stderr != "" || out != "Database\nTables\n"+
		"TABLE_CATALOG,TABLE_SCHEMA,TABLE_NAME,TABLE_TYPE,ENGINE,TABLE_ROWS,AUTO_INCREMENT,TABLE_COLLATION,CREATE_OPTIONS,LANCE_VERSION,LOCATION,DECLARED,TABLE_COMMENT,PROPERTIES\n" {
		t.Fatalf("read: exit %d, stderr %q, out %q", code, stderr, out)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading created %s (stat: %v)", data, err)
	}
	code, _, stderr = runSQLCLI("", "-c", "CREATE SCHEMA first")
	if code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
		t.Fatalf("first write did not create %s: %v", data, err)
	}
	// A later run reads what the first wrote, through the same default.
	code, out, _ = runSQLCLI("", "--format", "csv", "-c", "SHOW SCHEMAS")
	if code != 0 || out != "Database\nfirst\n" {
		t.Errorf("reopen: exit %d, out %q", code, out)
	}
}

// TestSQLTableOK: statements without a result set print "OK" in table
// mode and nothing in csv and jsonl; transactions span statements.
func TestSQLTableOK(t *testing.T) {
	for format, want := range map[string]string{
		"table": "OK\nOK\nOK\nOK\n\nDatabase\n--------\nx\ny\n(2 rows)\n",
		"csv":   "Database\nx\ny\n",
		"jsonl": "{\"Database\":\"x\"}\n{\"Database\":\"y\"}\n",
	} {
		uri := filepath.Join(t.TempDir(), "lake")
		code, out, stderr := runSQLCLI("", "--uri", uri, "--format", format,
			"-c", "BEGIN; CREATE SCHEMA x; CREATE SCHEMA y; COMMIT; SHOW SCHEMAS")
		if code != 0 || stderr != "" || out != want {
			t.Errorf("%s: exit %d, stderr %q, out %q, want %q", format, code, stderr, out, want)
		}
	}
}

// TestSQLCancelled: a cancelled context stops the script with the driver's
// interruption error, positioned at the statement.
func TestSQLCancelled(t *testing.T) {
	db, err := sql.Open("lancecat", "memory://")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out bytes.Buffer
	ex := &executor{conn: conn, out: newFormatter("table", &out)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = ex.runScript(ctx, "\n  SHOW SCHEMAS")
	var se *scriptError
	if !errors.As(err, &se) || se.Code != "ServiceUnavailable" || se.Line != 2 || se.Column != 3 || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %#v (%v)", se, err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
}

// TestJSONLValues checks the Go-value form of the dataset cat conventions
// on values the SQL front end cannot produce yet.
func TestJSONLValues(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 4, 5, 120000000, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		v      any
		dbType string
		json   string
		text   string
	}{
		{int64(math.MinInt64), "BIGINT", "-9223372036854775808", "-9223372036854775808"},
		{uint64(math.MaxUint64), "BIGINT UNSIGNED", "18446744073709551615", "18446744073709551615"},
		{int32(-7), "INT", "-7", "-7"},
		{float64(0.1), "DOUBLE", "0.1", "0.1"},
		{float32(0.1), "FLOAT", "0.1", "0.1"},
		{1e21, "DOUBLE", "1e+21", "1e+21"},
		{math.Copysign(0, -1), "DOUBLE", "-0", "-0"},
		{math.NaN(), "DOUBLE", `"NaN"`, "NaN"},
		{math.Inf(1), "DOUBLE", `"Infinity"`, "Infinity"},
		{float32(math.Inf(-1)), "FLOAT", `"-Infinity"`, "-Infinity"},
		{true, "BOOLEAN", "true", "true"},
		{"a\"<b>\n", "VARCHAR", `"a\"\u003cb\u003e\n"`, "a\"<b>\n"},
		{[]byte{0, 1, 0xfe, 0xff}, "BLOB", `"AAH+/w=="`, "AAH+/w=="},
		{[]byte{}, "BLOB", `""`, ""},
		{ts, "TIMESTAMP", `"2024-02-29T12:04:05.120000000Z"`, "2024-02-29T12:04:05.120000000Z"},
		{time.Date(2024, 2, 29, 13, 4, 5, 1, time.UTC), "DATETIME", `"2024-02-29T13:04:05.000000001"`, "2024-02-29T13:04:05.000000001"},
		{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), "DATE", `"1969-12-31"`, "1969-12-31"},
		{[]any{int64(1), nil, "x"}, "LIST<TEXT>", `[1,null,"x"]`, `[1,null,"x"]`},
		{nil, "TEXT", "null", ""},
	} {
		if got := string(appendJSON(nil, c.v, c.dbType)); got != c.json {
			t.Errorf("%#v (%s): json %s, want %s", c.v, c.dbType, got, c.json)
		}
		if c.v == nil {
			continue
		}
		if got := textValue(c.v, c.dbType); got != c.text {
			t.Errorf("%#v (%s): text %q, want %q", c.v, c.dbType, got, c.text)
		}
	}
	// A whole row, keys in column order, CSV of the same row.
	cols := []resultColumn{{"b", "BLOB"}, {"n", "BIGINT"}, {"s", "VARCHAR"}}
	vals := []any{[]byte("hi"), nil, "x,\"y\"\r\nz"}
	var jb, cb bytes.Buffer
	for _, c := range []struct {
		f    formatter
		buf  *bytes.Buffer
		want string
	}{
		{newFormatter("jsonl", &jb), &jb, "{\"b\":\"aGk=\",\"n\":null,\"s\":\"x,\\\"y\\\"\\r\\nz\"}\n"},
		{newFormatter("csv", &cb), &cb, "b,n,s\naGk=,,\"x,\"\"y\"\"\r\nz\"\n"},
	} {
		c.f.begin(cols)
		c.f.row(vals)
		c.f.end()
		c.f.flush()
		if c.buf.String() != c.want {
			t.Errorf("got %q, want %q", c.buf.String(), c.want)
		}
	}
}

// TestTableMultiLineCells: a value with line breaks spans lines, aligned.
func TestTableMultiLineCells(t *testing.T) {
	var b bytes.Buffer
	f := newFormatter("table", &b)
	f.begin([]resultColumn{{"k", "VARCHAR"}, {"v", "VARCHAR"}, {"n", "BIGINT"}})
	f.row([]any{"a", "one\ntwo three", int64(5)})
	f.row([]any{"bb", "x", int64(12345)})
	f.end()
	f.ok(3, true)
	f.ok(1, true)
	f.ok(0, false)
	f.flush()
	want := `k  | v         | n
---+-----------+------
a  | one       |     5
   | two three |
bb | x         | 12345
(2 rows)

OK, 3 rows affected
OK, 1 row affected
OK
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestSQLTableData: INSERT reports rows affected; SELECT over table data
// prints the driver's values (64-bit integers exact, float32 shortest,
// bytes base64, TIMESTAMP in UTC with "Z", DATETIME without, DATE, NULLs)
// in every format.
func TestSQLTableData(t *testing.T) {
	uri := filepath.Join(t.TempDir(), "lake")
	code, out, stderr := runSQLCLI("", "--uri", uri, "-c", `CREATE SCHEMA a;
CREATE TABLE a.t (id BIGINT NOT NULL, name VARCHAR(10), f DOUBLE, b BLOB, ts TIMESTAMP(6),
  dt DATETIME, d DATE, u BIGINT UNSIGNED, fl FLOAT);
INSERT INTO a.t VALUES
  (-9223372036854775807, 'x,"y"', 0.1, X'00ff', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05', '2024-01-02', 18446744073709551615, 0.1),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`)
	if code != 0 && strings.Contains(stderr, "not supported: INSERT") {
		t.Skip("SKIP: this tree's planner has no INSERT yet")
	}
	if code != 0 || out != "OK\nOK\nOK, 2 rows affected\n" {
		t.Fatalf("exit %d, stderr %q, out %q", code, stderr, out)
	}
	for format, want := range map[string]string{
		"table": `id                   | name  | f    | b    | ts                             | dt                            | d          | u                    | fl
---------------------+-------+------+------+--------------------------------+-------------------------------+------------+----------------------+-----
-9223372036854775807 | x,"y" |  0.1 | AP8= | 2024-01-02T03:04:05.123456000Z | 2024-01-02T03:04:05.000000000 | 2024-01-02 | 18446744073709551615 |  0.1
                   2 | NULL  | NULL | NULL | NULL                           | NULL                          | NULL       |                 NULL | NULL
(2 rows)
`,
		"csv": `id,name,f,b,ts,dt,d,u,fl
-9223372036854775807,"x,""y""",0.1,AP8=,2024-01-02T03:04:05.123456000Z,2024-01-02T03:04:05.000000000,2024-01-02,18446744073709551615,0.1
2,,,,,,,,
`,
		"jsonl": `{"id":-9223372036854775807,"name":"x,\"y\"","f":0.1,"b":"AP8=","ts":"2024-01-02T03:04:05.123456000Z","dt":"2024-01-02T03:04:05.000000000","d":"2024-01-02","u":18446744073709551615,"fl":0.1}
{"id":2,"name":null,"f":null,"b":null,"ts":null,"dt":null,"d":null,"u":null,"fl":null}
`,
	} {
		code, out, stderr := runSQLCLI("", "--uri", uri, "--format", format, "-c", "SELECT * FROM a.t ORDER BY id")
		if code != 0 || stderr != "" || out != want {
			t.Errorf("%s: exit %d, stderr %q, output:\n%s\nwant:\n%s", format, code, stderr, out, want)
		}
	}
}

// TestJSONLNestsNestedValues: --format jsonl nests vector values (JSON text
// from the driver) instead of quoting them; csv keeps the text.
func TestJSONLNestsNestedValues(t *testing.T) {
	uri := t.TempDir()
	script := "CREATE TABLE v (id INT, e VECTOR(2), s VARCHAR(5)); INSERT INTO v VALUES (1, '[0.5, 1]', '[1]'), (2, NULL, NULL); SELECT id, e, s FROM v ORDER BY id"
	code, out, errs := runSQLCLI("", "--uri", uri, "--format", "jsonl", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "{\"id\":1,\"e\":[0.5,1],\"s\":\"[1]\"}\n{\"id\":2,\"e\":null,\"s\":null}\n"; out != want {
		t.Errorf("jsonl:\n%s\nwant\n%s", out, want)
	}
	code, out, errs = runSQLCLI("", "--uri", uri, "--format", "csv", "-c", "SELECT e FROM v WHERE id = 1")
	if code != 0 || out != "e\n\"[0.5,1]\"\n" {
		t.Errorf("csv (exit %d, %s):\n%s", code, errs, out)
	}
}

// TestSQLWarningCounts: the table output says how many warnings a
// statement raised, as the mysql client does, and nothing more without.
func TestSQLWarningCounts(t *testing.T) {
	code, out, errOut := runSQLCLI("", "--uri", "memory://", "-c",
		"SELECT 1/0, 'a' + 1; SELECT 1; CREATE TABLE t (a TINYINT PRIMARY KEY, b TINYINT UNIQUE); INSERT IGNORE INTO t VALUES (1, 300), (2, 7), (3, 7); INSERT INTO t VALUES (4, 4); SET @@session.max_error_count = 5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"(1 row, 2 warnings)\n", "OK, 2 rows affected, 2 warnings\n", "OK, 1 row affected\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "warning") != 2 {
		t.Errorf("warnings printed for statements without any:\n%s", out)
	}
}
