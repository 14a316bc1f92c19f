package main

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/planner"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

// defaultURI is the catalog used without --uri: a directory in the working
// directory, which the driver creates on the first write (not on open).
const defaultURI = "lancecat-data"

// errHelp is -h or --help among the flags.
var errHelp = errors.New("help")

// sqlScript is one -c or -f argument, in command-line order.
type sqlScript struct {
	name string // "" for -c, the file name for -f ("-" is stdin)
	text string // -c text; read from name for -f
	file bool
}

type sqlFlags struct {
	uri     string
	format  string
	scripts []sqlScript
	// progress: 1 is --progress, -1 --no-progress, 0 on when stderr is
	// a terminal.
	progress int
}

func parseSQLFlags(args []string) (sqlFlags, error) {
	f := sqlFlags{uri: defaultURI, format: "table"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			// Single-dash flags take their value from the next argument
			// ("-c 'SQL'"): SQL text may contain '='.
			name, val, hasVal = a, "", false
		}
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%w: %s needs a value", errUsage, name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--uri":
			f.uri, err = value()
			if err == nil && f.uri == "" {
				err = fmt.Errorf("%w: empty --uri", errUsage)
			}
		case "--format":
			f.format, err = value()
			if err == nil && f.format != "table" && f.format != "csv" && f.format != "jsonl" {
				err = fmt.Errorf("%w: bad --format %q (table, csv or jsonl)", errUsage, f.format)
			}
		case "-c", "--command":
			var text string
			text, err = value()
			f.scripts = append(f.scripts, sqlScript{text: text})
		case "--progress":
			f.progress = 1
		case "--no-progress":
			f.progress = -1
		case "-h", "--help":
			return f, errHelp
		case "-f", "--file":
			var file string
			file, err = value()
			f.scripts = append(f.scripts, sqlScript{name: file, file: true})
		default:
			if strings.HasPrefix(a, "-") {
				err = fmt.Errorf("%w: unknown flag %s", errUsage, a)
			} else {
				err = fmt.Errorf("%w: unknown command %q", errUsage, a)
			}
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// runSQL is the SQL mode: `lancecat [--uri URI] [-c SQL] [-f FILE] [--format F]`.
func runSQL(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseSQLFlags(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, usageText)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "lancecat: %s\n%s", storage.Redact(err.Error()), usageText)
		return 2
	}
	db, err := sql.Open("lancecat", f.uri)
	if err != nil {
		fmt.Fprintf(stderr, "lancecat: %s\n", errorText(err))
		return 1
	}
	defer db.Close()

	if len(f.scripts) == 0 {
		if in, ok := stdin.(*os.File); ok && term.IsTerminal(int(in.Fd())) {
			if out, ok := stdout.(*os.File); ok && term.IsTerminal(int(out.Fd())) {
				return runShell(db, f, in, out, stderr)
			}
		}
		f.scripts = []sqlScript{{name: "-", file: true}}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	conn, err := db.Conn(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "lancecat: %s\n", errorText(err))
		return 1
	}
	defer conn.Close()
	ex := &executor{conn: conn, out: newFormatter(f.format, stdout), progress: newProgressPrinter(f.progress, stderr)}
	for _, s := range f.scripts {
		text := s.text
		if s.file {
			var b []byte
			if s.name == "-" {
				b, err = io.ReadAll(stdin)
			} else {
				b, err = os.ReadFile(s.name)
			}
			if err != nil {
				fmt.Fprintf(stderr, "lancecat: %s\n", err)
				return 1
			}
			text = string(b)
		}
		if err := ex.runScript(ctx, text); err != nil {
			prefix := ""
			if s.file && s.name != "-" {
				prefix = s.name + ": "
			}
			fmt.Fprintf(stderr, "lancecat: %s%s\n", prefix, errorText(err))
			return 1
		}
	}
	return 0
}

// executor runs scripts statement by statement on one connection, so that
// USE and BEGIN ... COMMIT last across statements and scripts.
type executor struct {
	conn     *sql.Conn
	out      formatter
	progress *progressPrinter // nil: no load progress shown
}

// dmlKinds are the statements lancecat does not run yet (sqlparse.Unsupported
// kinds) that report rows affected; they run with Exec, as INSERT does. Every
// other statement runs with Query and prints its result set, or "OK" when it
// has none.
var dmlKinds = map[string]bool{"REPLACE": true, "UPDATE": true, "DELETE": true}

// isDML reports whether st reports rows affected rather than a result set.
func isDML(st sqlparse.Statement) bool {
	switch n := st.(type) {
	case *sqlparse.Insert:
		return true
	case *sqlparse.Unsupported:
		return dmlKinds[n.Kind]
	}
	return false
}

// runScript runs the statements of text in order and stops at the first
// error, which it returns as a *scriptError positioned in text. Cancelling
// ctx (Ctrl-C) interrupts the running statement; a statement that has
// completed still prints its result, and the next one does not start.
func (e *executor) runScript(ctx context.Context, text string) error {
	for st, perr := range sqlparse.Statements(text) {
		if perr != nil {
			return positioned(perr, sqlparse.Pos{})
		}
		if err := ctx.Err(); err != nil {
			return positioned(err, st.Position())
		}
		err := e.runStatement(ctx, st)
		if ferr := e.out.flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return positioned(err, st.Position())
		}
	}
	return nil
}

// runStatement runs one statement and prints its result. It calls the
// lancecat driver's connection directly (sql.Conn.Raw): database/sql closes
// the rows of a query whose context is cancelled, and the result of a
// statement that has completed (and committed) before Ctrl-C must still be
// printed. ctx cancels the statement only while the driver runs it.
func (e *executor) runStatement(ctx context.Context, st sqlparse.Statement) error {
	stmtCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if verb := loadVerb(st); verb != "" && e.progress != nil {
		e.progress.start(verb)
		stmtCtx = planner.WithLoadProgress(stmtCtx, e.progress.report)
		defer e.progress.finish()
	}
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return e.conn.Raw(func(dc any) error {
		if isDML(st) {
			execer, ok := dc.(sqldriver.ExecerContext)
			if !ok {
				return fmt.Errorf("driver connection %T cannot Exec", dc)
			}
			res, err := execer.ExecContext(stmtCtx, st.Text(), nil)
			stop()
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			setWarnings(e.out, dc)
			return e.out.ok(n, true)
		}
		queryer, ok := dc.(sqldriver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot Query", dc)
		}
		rows, err := queryer.QueryContext(stmtCtx, st.Text(), nil)
		stop()
		if err != nil {
			return err
		}
		defer rows.Close()
		if err := e.writeResults(rows, dc); err != nil {
			return err
		}
		return rows.Close()
	})
}

// writeResults writes every result set of rows (a statement without one
// gives a single set without columns).
func (e *executor) writeResults(rows sqldriver.Rows, dc any) error {
	typed, _ := rows.(sqldriver.RowsColumnTypeDatabaseTypeName)
	for {
		names := rows.Columns()
		if len(names) == 0 {
			setWarnings(e.out, dc)
			if err := e.out.ok(0, false); err != nil {
				return err
			}
		} else {
			cols := make([]resultColumn, len(names))
			for i, name := range names {
				cols[i].name = name
				if typed != nil {
					cols[i].dbType = typed.ColumnTypeDatabaseTypeName(i)
				}
			}
			if err := e.out.begin(cols); err != nil {
				return err
			}
			dest := make([]sqldriver.Value, len(cols))
			vals := make([]any, len(cols))
			for {
				err := rows.Next(dest)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
				for i, v := range dest {
					vals[i] = v
				}
				if err := e.out.row(vals); err != nil {
					return err
				}
			}
			setWarnings(e.out, dc) // the rows' warnings are all raised now
			if err := e.out.end(); err != nil {
				return err
			}
		}
		next, ok := rows.(sqldriver.RowsNextResultSet)
		if !ok || !next.HasNextResultSet() {
			return nil
		}
		if err := next.NextResultSet(); err != nil {
			return err
		}
	}
}

// setWarnings tells a formatter that prints them how many warnings the
// statement raised (the lancecat driver's Conn.WarningCount), as the mysql
// client prints "1 row in set, 1 warning".
func setWarnings(out formatter, dc any) {
	wf, ok := out.(interface{ setWarnings(int) })
	if !ok {
		return
	}
	n := 0
	if wc, ok := dc.(interface{ WarningCount() int }); ok {
		n = wc.WarningCount()
	}
	wf.setWarnings(n)
}

// scriptError is an error of a script: the Lance namespace error code name,
// the position in the script (Line 0 when there is none) and the message.
type scriptError struct {
	Code         string
	Line, Column int
	Message      string
	Err          error
}

func (e *scriptError) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d column %d", e.Line, e.Column)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

func (e *scriptError) Unwrap() error { return e.Err }

// positioned converts an error of the driver (positioned in the text of one
// statement, which starts at start in the script) or of the script parser
// (positioned in the script) to a *scriptError positioned in the script.
func positioned(err error, start sqlparse.Pos) error {
	se := &scriptError{Err: err}
	var de *driver.Error
	var pe *sqlparse.Error
	var ce *catalog.Error
	switch {
	case errors.As(err, &de):
		se.Code, se.Message = de.Code.String(), de.Message
		se.Line, se.Column = shiftPos(start, de.Line, de.Column)
	case errors.As(err, &pe):
		se.Code, se.Message = catalog.CodeInvalidInput.String(), pe.Msg
		if errors.Is(pe.Kind, sqlparse.ErrNotSupported) {
			se.Code = catalog.CodeUnsupported.String()
		}
		se.Line, se.Column = pe.Pos.Line, pe.Pos.Column
		if start.Line > 0 {
			se.Line, se.Column = shiftPos(start, pe.Pos.Line, pe.Pos.Column)
		}
	case errors.As(err, &ce):
		se.Code = ce.Code.String()
		se.Message = strings.TrimPrefix(err.Error(), se.Code+": ")
		se.Line, se.Column = start.Line, start.Column
	default:
		se.Code, se.Message = catalog.CodeInternal.String(), err.Error()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			// As the driver reports an interruption it notices itself.
			se.Code = catalog.CodeServiceUnavailable.String()
			se.Message = "statement interrupted: " + err.Error()
		}
		se.Line, se.Column = start.Line, start.Column
	}
	se.Message = strings.ReplaceAll(se.Message, "\n", " ")
	return se
}

// shiftPos maps a position in a statement's own text (line, column; line 0
// for none) to the script the statement starts in at start.
func shiftPos(start sqlparse.Pos, line, column int) (int, int) {
	switch {
	case start.Line == 0:
		return line, column
	case line == 0:
		return start.Line, start.Column
	case line == 1:
		return start.Line, start.Column + column - 1
	default:
		return start.Line + line - 1, column
	}
}

// errorText is the one-line text of an error after "lancecat: ".
func errorText(err error) string {
	return storage.Redact(rawErrorText(err))
}

func rawErrorText(err error) string {
	var se *scriptError
	if errors.As(err, &se) {
		return se.Error()
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return positioned(de, sqlparse.Pos{}).Error()
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
