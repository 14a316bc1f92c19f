package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/internal/arrowjson"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/storage"
)

type datasetFlags struct {
	uri     string
	version uint64
	columns []string
	limit   uint64
	// limitSet distinguishes --limit 0 (print nothing) from no limit.
	limitSet bool
}

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

func parseDatasetFlags(args []string, allowColumns bool) (datasetFlags, error) {
	var f datasetFlags
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
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
		switch {
		case name == "--version":
			v, err := value()
			if err != nil {
				return f, err
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return f, fmt.Errorf("%w: bad --version %q", errUsage, v)
			}
			f.version = n
		case name == "--columns" && allowColumns:
			v, err := value()
			if err != nil {
				return f, err
			}
			f.columns = []string{}
			for _, c := range strings.Split(v, ",") {
				if c != "" {
					f.columns = append(f.columns, c)
				}
			}
		case name == "--limit" && allowColumns:
			v, err := value()
			if err != nil {
				return f, err
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return f, fmt.Errorf("%w: bad --limit %q", errUsage, v)
			}
			f.limit, f.limitSet = n, true
		case strings.HasPrefix(a, "-"):
			return f, fmt.Errorf("%w: unknown flag %s", errUsage, a)
		case f.uri == "":
			f.uri = a
		default:
			return f, fmt.Errorf("%w: more than one dataset URI", errUsage)
		}
	}
	if f.uri == "" {
		return f, fmt.Errorf("%w: missing dataset URI", errUsage)
	}
	return f, nil
}

func runDataset(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch args[0] {
	case "inspect":
		var f datasetFlags
		if f, err = parseDatasetFlags(args[1:], false); err == nil {
			err = inspect(ctx, f, stdout)
		}
	case "cat":
		var f datasetFlags
		if f, err = parseDatasetFlags(args[1:], true); err == nil {
			err = cat(ctx, f, stdout)
		}
	case "lookup":
		var f lookupFlags
		if f, err = parseLookupFlags(args[1:]); err == nil {
			err = lookup(ctx, f, stdout)
		}
	default:
		err = fmt.Errorf("%w: unknown dataset command %q", errUsage, args[0])
	}
	if err == nil {
		return 0
	}
	msg := storage.Redact(strings.ReplaceAll(err.Error(), "\n", " "))
	fmt.Fprintf(stderr, "lancecat: %s\n", msg)
	if errors.Is(err, errUsage) {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	return 1
}

func openDataset(ctx context.Context, f datasetFlags) (*dataset.Dataset, error) {
	store, err := storage.Open(ctx, f.uri, storage.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	d, err := dataset.Open(ctx, store, "", dataset.OpenOptions{Version: f.version})
	if err != nil {
		store.Close()
		return nil, err
	}
	return d, nil
}

func cat(ctx context.Context, f datasetFlags, stdout io.Writer) error {
	d, err := openDataset(ctx, f)
	if err != nil {
		return err
	}
	defer d.Store().Close()
	if f.limitSet && f.limit == 0 {
		return nil
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	err = d.Scan(ctx, dataset.ScanOptions{Columns: f.columns, Limit: f.limit}, func(rec arrow.RecordBatch) error {
		return arrowjson.WriteLines(w, rec)
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func inspect(ctx context.Context, f datasetFlags, stdout io.Writer) error {
	d, err := openDataset(ctx, f)
	if err != nil {
		return err
	}
	defer d.Store().Close()
	doc, err := describe(ctx, d)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
