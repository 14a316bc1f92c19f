// Command lancecat is lancecat's command-line tool.
//
//	lancecat dataset inspect <dataset-uri> [--version N]
//	lancecat dataset cat <dataset-uri> [--columns a,b] [--limit N] [--version N]
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
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `usage:
  lancecat dataset inspect <dataset-uri> [--version N]
  lancecat dataset cat <dataset-uri> [--columns a,b] [--limit N] [--version N]
`

// run is the whole program; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	switch args[0] {
	case "dataset":
		return runDataset(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return 0
	}
	// Other commands (the SQL shell) are added here.
	fmt.Fprintf(stderr, "lancecat: unknown command %q\n%s", args[0], usageText)
	return 2
}
