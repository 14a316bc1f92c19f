// Package sqlgolden runs SQL golden tests: a script (testdata/*.sql) goes in
// through database/sql, and the transcript (each statement echoed, then its
// result as an aligned table, or its error code, position and message) is
// compared with testdata/*.out. Run `go test ./conformance/sqlgolden -update`
// to rewrite the expected transcripts after checking the differences.
//
// Script conventions: a statement ends with a line whose last non-blank
// character is ';'. Lines starting with "--" between statements are copied to
// the transcript. Each statement is sent alone on one connection (so USE and
// transactions carry over to the next statement), padded so that the
// positions the driver reports are positions in the script file.
package sqlgolden

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	lancecat "github.com/lancecat/lancecat/driver"
)

// Statement is one statement of a script with its position.
type Statement struct {
	Line int    // 1-based line of the first line of the statement
	Text string // the statement's lines, ending with ';'
}

// Item is a statement or a comment line of a script.
type Item struct {
	Comment string // a "--" line; empty for a statement
	Stmt    Statement
}

// Split splits a golden script into comments and statements.
func Split(script string) ([]Item, error) {
	var items []Item
	lines := strings.Split(script, "\n")
	var cur []string
	start := 0
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if len(cur) == 0 {
			if trimmed == "" {
				continue
			}
			if strings.HasPrefix(trimmed, "--") {
				items = append(items, Item{Comment: trimmed})
				continue
			}
			start = i + 1
		}
		cur = append(cur, l)
		if strings.HasSuffix(trimmed, ";") {
			items = append(items, Item{Stmt: Statement{Line: start, Text: strings.Join(cur, "\n")}})
			cur = nil
		}
	}
	if len(cur) > 0 {
		return items, fmt.Errorf("script ends inside a statement starting at line %d (missing ';')", start)
	}
	return items, nil
}

// Run runs a script on conn and returns its transcript.
//
// root is the catalog root URI as locations show it; it is replaced by
// "<root>" in the transcript, so one transcript serves every storage.
func Run(ctx context.Context, conn *sql.Conn, script, root string) (string, error) {
	items, err := Split(script)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, it := range items {
		if it.Comment != "" {
			b.WriteString(it.Comment + "\n")
			continue
		}
		for i, l := range strings.Split(it.Stmt.Text, "\n") {
			if i == 0 {
				b.WriteString("> " + l + "\n")
			} else {
				b.WriteString("  " + l + "\n")
			}
		}
		padded := strings.Repeat("\n", it.Stmt.Line-1) + it.Stmt.Text
		b.WriteString(runOne(ctx, conn, padded, root))
		b.WriteString("\n")
	}
	return b.String(), nil
}

func runOne(ctx context.Context, conn *sql.Conn, text, root string) string {
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return formatError(err, root)
	}
	defer rows.Close()
	var b strings.Builder
	n := 0
	for {
		cols, err := rows.ColumnTypes()
		if err != nil {
			return b.String() + formatError(err, root)
		}
		if len(cols) > 0 {
			if n > 0 {
				b.WriteString("\n")
			}
			s, err := formatResult(rows, cols, root)
			if err != nil {
				return b.String() + formatError(err, root)
			}
			b.WriteString(s)
			n++
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return b.String() + formatError(err, root)
	}
	if n == 0 {
		return "OK\n"
	}
	return b.String()
}

// formatError renders an error: its code, position and message.
func formatError(err error, root string) string {
	var e *lancecat.Error
	if errors.As(err, &e) {
		pos := ""
		if e.Line > 0 {
			pos = fmt.Sprintf(" at line %d column %d", e.Line, e.Column)
		}
		return fmt.Sprintf("ERROR %s%s: %s\n", e.Code, pos, mask(e.Message, root))
	}
	return fmt.Sprintf("ERROR (not a driver error, %T): %s\n", err, mask(err.Error(), root))
}

// hashDir matches the random 8-hex prefix of hash-named table directories.
var hashDir = regexp.MustCompile(`\b[0-9a-f]{8}_`)

// mask replaces the parts of a value that differ between runs: the catalog
// root URI and the random prefix of table directories.
func mask(s, root string) string {
	if root != "" {
		s = strings.ReplaceAll(s, root, "<root>")
	}
	return hashDir.ReplaceAllString(s, "xxxxxxxx_")
}

func formatResult(rows *sql.Rows, cols []*sql.ColumnType, root string) (string, error) {
	header := make([]string, len(cols))
	types := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Name()
		types[i] = c.DatabaseTypeName()
		if nullable, ok := c.Nullable(); ok && nullable {
			types[i] += " NULL"
		}
	}
	var data [][]string
	multiline := false
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v.Valid {
				row[i] = mask(v.String, root)
			} else {
				row[i] = "NULL"
			}
			if strings.Contains(row[i], "\n") {
				multiline = true
			}
		}
		data = append(data, row)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	var b strings.Builder
	if multiline {
		width := 0
		for _, h := range header {
			width = max(width, utf8.RuneCountInString(h))
		}
		fmt.Fprintf(&b, "(columns: %s)\n", strings.Join(types, ", "))
		for r, row := range data {
			fmt.Fprintf(&b, "*** row %d ***\n", r+1)
			for i, v := range row {
				fmt.Fprintf(&b, "%*s: %s\n", width, header[i], strings.ReplaceAll(v, "\n", "\n"+strings.Repeat(" ", width+2)))
			}
		}
	} else {
		widths := make([]int, len(cols))
		for i := range cols {
			widths[i] = max(utf8.RuneCountInString(header[i]), utf8.RuneCountInString(types[i]))
			for _, row := range data {
				widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
			}
		}
		sep := "+"
		for _, w := range widths {
			sep += strings.Repeat("-", w+2) + "+"
		}
		line := func(cells []string) {
			b.WriteString("|")
			for i, c := range cells {
				b.WriteString(" " + c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString(sep + "\n")
		line(header)
		line(types)
		b.WriteString(sep + "\n")
		for _, row := range data {
			line(row)
		}
		b.WriteString(sep + "\n")
	}
	if len(data) == 1 {
		b.WriteString("(1 row)\n")
	} else {
		fmt.Fprintf(&b, "(%d rows)\n", len(data))
	}
	return b.String(), nil
}
