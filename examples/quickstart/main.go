// Command quickstart opens a lancecat catalog in a local directory, creates a
// namespace and a table, and shows them.
//
//	go run ./examples/quickstart                # a new temporary directory
//	go run ./examples/quickstart -uri ./lancecat-data
//	go run ./examples/quickstart -uri memory://demo
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	_ "github.com/lancecat/lancecat/driver"
)

func main() {
	uri := flag.String("uri", "", "catalog URI (default: a new temporary directory)")
	flag.Parse()
	if *uri == "" {
		dir, err := os.MkdirTemp("", "lancecat-quickstart-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		*uri = dir
	}
	if err := run(context.Background(), os.Stdout, *uri); err != nil {
		log.Fatal(err)
	}
}

// run is the whole example: open, create, show, describe.
func run(ctx context.Context, w io.Writer, uri string) error {
	db, err := sql.Open("lancecat", uri)
	if err != nil {
		return err
	}
	defer db.Close()

	// One Exec may hold a script; it stops at the first failing statement.
	_, err = db.ExecContext(ctx, `
		CREATE SCHEMA IF NOT EXISTS demo COMMENT 'quickstart';
		CREATE TABLE IF NOT EXISTS demo.events (
			id BIGINT NOT NULL COMMENT 'event id',
			kind VARCHAR(32) NOT NULL,
			payload JSON,
			embedding VECTOR(4),
			at TIMESTAMP(6),
			PRIMARY KEY (id)
		) COMMENT 'what happened'`)
	if err != nil {
		return err
	}
	for _, q := range []string{"SHOW SCHEMAS", "SHOW TABLES FROM demo", "DESCRIBE demo.events"} {
		if err := show(ctx, w, db, q); err != nil {
			return err
		}
	}
	// Values bind as literals; identifiers cannot be bound.
	var rows int64
	err = db.QueryRowContext(ctx,
		"SELECT TABLE_ROWS FROM information_schema.tables WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", "demo", "events").Scan(&rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "demo.events has %d rows\n", rows)
	return nil
}

func show(ctx context.Context, w io.Writer, db *sql.DB, q string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "> %s\n%s\n", q, strings.Join(cols, "\t"))
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		cells := make([]string, len(cols))
		for i, v := range vals {
			cells[i] = v.String
			if !v.Valid {
				cells[i] = "NULL"
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return rows.Err()
}
