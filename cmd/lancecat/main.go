// Command lancecat is lancecat's command-line tool: a SQL client of the
// lancecat database/sql driver, and tools for single Lance datasets.
//
//	lancecat [--uri URI] [-c SQL]... [-f FILE]... [--format table|csv|jsonl]
//	lancecat dataset inspect <dataset-uri> [--version N]
//	lancecat dataset cat <dataset-uri> [--columns a,b] [--limit N] [--version N]
//	lancecat dataset lookup <dataset-uri> --index NAME (--eq V | --prefix V | --in V1,V2) [--version N]
//
// # SQL
//
// The SQL mode runs statements through the "lancecat" driver (package
// driver; URIs and their options are documented there) on one connection,
// so USE and BEGIN ... COMMIT last from one statement to the next. --uri
// defaults to the local directory ./lancecat-data, which is created by the
// first write (opening and reading do not create it).
//
// -c SQL runs a script given on the command line; -f FILE runs a script
// file (-f - reads standard input). Both may be given, and repeated: the
// scripts run in command-line order and the first error stops everything.
// Without -c and -f, when standard input and standard output are both
// terminals, lancecat is an interactive shell (see below); otherwise the
// script is read from standard input.
//
// A script is statements separated by ';'. Output, by --format:
//
//	table   (the default, on a terminal or not) each result set as aligned
//	        columns under a header and a rule, then "(N rows)"; NULL prints
//	        as NULL; numbers are right-aligned; result sets are separated by
//	        an empty line. A statement without a result set prints "OK"
//	        ("OK, N rows affected" for INSERT/UPDATE/DELETE/REPLACE). A
//	        statement that raised warnings adds ", N warnings" to either
//	        line, as the mysql client does (SHOW WARNINGS lists them).
//	csv     per result set a header line, then one record per row, quoted as
//	        RFC 4180 says when a field holds a comma, a quote, CR or LF; NULL
//	        is an empty field and the empty string is "". Lines end in LF.
//	        Statements without a result set print nothing.
//	jsonl   each row of each result set as one JSON object keyed by column
//	        name, with the value conventions of `dataset cat`
//	        (conformance/peer/JSONL.md): integers with every digit, floats
//	        as the shortest round-tripping decimal with "NaN", "Infinity",
//	        "-Infinity" as strings, bytes as standard base64, timestamps as
//	        "YYYY-MM-DDTHH:MM:SS.fffffffff" (suffixed "Z", in UTC, unless the
//	        column is a DATETIME), NULL as null. Statements without a
//	        result set print nothing.
//
// In table and csv, bytes, floats and times are written as in jsonl
// (without JSON quotes).
//
// The first failing statement stops the run with exit status 1 and one line
// on standard error naming the error code (the Lance namespace error code
// name) and the position in the script, e.g.
//
//	lancecat: TableNotFound at line 3 column 1: table not found: a.t
//	lancecat: q.sql: InvalidInput at line 2 column 8: syntax error ...
//
// (the file name is given for -f scripts). Output of the statements before
// it has been written. Usage errors exit with status 2.
//
// # Interactive shell
//
// The prompt is "lancecat> " ("      -> " on continuation lines). A
// statement runs when a line ends with ';' outside quotes and comments, so
// statements may span lines; the whole statement is one history entry.
// Line editing and history are those of golang.org/x/term (arrows, Home/End,
// Ctrl-A/E/K/U/W, Up/Down or Ctrl-P/N for history). Ctrl-C discards the
// input typed so far, or cancels the running statement; \q, exit, quit or
// Ctrl-D on an empty line leave. History is kept in ~/.lancecat_history
// (best effort: a history file that cannot be read or written is ignored).
// Errors are printed and the shell goes on; it exits with status 0.
//
// # Datasets
//
// `dataset inspect` prints one JSON object describing a version of a Lance
// dataset (see inspect.go for its fields and the type spelling); `dataset
// cat` prints its live rows as JSON Lines (conformance/peer/JSONL.md).
// Errors print one line on stderr and exit 1; usage errors exit 2.
package main

import (
	"fmt"
	"io"
	"os"

	_ "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/storage"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `usage:
  lancecat [--uri URI] [-c SQL]... [-f FILE]... [--format table|csv|jsonl]
           [--progress | --no-progress]
      run SQL scripts (-f - reads stdin); with neither -c nor -f: an
      interactive shell on a terminal, else the script on stdin.
      --uri defaults to ./lancecat-data (created on first write).
      LOAD DATA and IMPORT INTO show rows and bytes read on stderr when
      it is a terminal or with --progress.
  lancecat dataset inspect <dataset-uri> [--version N]
  lancecat dataset cat <dataset-uri> [--columns a,b] [--limit N] [--version N]
  lancecat dataset lookup <dataset-uri> --index NAME (--eq V | --prefix V | --in V1,V2) [--version N]
`

// run is the whole program; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWithInput(args, os.Stdin, stdout, stderr)
}

// runWithInput is run with stdin given (tests give their own).
func runWithInput(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		// A bug must end in a message and a failure status, not a stack
		// dump of the user's data paths.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "lancecat: internal error (a bug, please report it): %s\n", storage.Redact(fmt.Sprint(r)))
			status = 70 // EX_SOFTWARE
		}
	}()
	if len(args) > 0 {
		switch args[0] {
		case "dataset":
			return runDataset(args[1:], stdout, stderr)
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usageText)
			return 0
		}
	}
	return runSQL(args, stdin, stdout, stderr)
}
