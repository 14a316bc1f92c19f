package planner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
)

// INSERT [IGNORE] INTO t [(cols)] SELECT ... and REPLACE INTO t SELECT ...
//
// The query runs first, to the end, on the snapshot it opens, and its rows
// become the statement's VALUES; then the INSERT runs exactly as INSERT ...
// VALUES does (DEFAULTs, NOT NULL, ranges, AUTO_INCREMENT, UNIQUE, ON
// DUPLICATE KEY UPDATE, REPLACE and IGNORE; one Lance commit; nothing is
// written on error). So a query over the target table itself reads the rows
// the table had before the statement, as in MySQL, and an INSERT ... SELECT
// into a table the open transaction creates is deferred to COMMIT like an
// INSERT ... VALUES. The rows are held in memory within MaxInsertBytes,
// counted as they arrive, so a query larger than an INSERT may write fails
// before it is all read.

// insertQueryValues runs the query of an INSERT ... SELECT and returns the
// same INSERT with the query's rows as VALUES literals.
func (s *Session) insertQueryValues(ctx context.Context, ins *sqlparse.Insert) (*sqlparse.Insert, error) {
	p, err := s.planQuery(ctx, ins.Query)
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, s)
	if err != nil {
		return nil, err
	}
	rows, err := collectBounded(ctx, res, MaxInsertBytes)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		// Nothing to insert: MySQL reports 0 rows affected.
		return nil, nil
	}
	decimal := make([]bool, len(res.Columns))
	for k, c := range res.Columns {
		decimal[k] = strings.HasPrefix(c.DatabaseType, "DECIMAL")
	}
	out := *ins
	out.Query = nil
	out.FromQuery = true
	out.Rows = make([][]sqlparse.Expr, len(rows))
	for r, row := range rows {
		list := make([]sqlparse.Expr, len(row))
		for k, v := range row {
			list[k] = valueLiteral(v, decimal[k]) // correlate.go
		}
		out.Rows[r] = list
	}
	return &out, nil
}

// collectBounded reads a result to the end, failing once its values take
// more than limit bytes (each row counted by the size of its values).
func collectBounded(ctx context.Context, res *Result, limit int64) ([][]any, error) {
	c := res.Cursor()
	defer c.Close()
	var rows [][]any
	var bytes int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := c.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range batch {
			for _, v := range row {
				bytes += 16 + valueBytes(v)
			}
			if bytes > limit {
				return nil, errorf(catalog.CodeInvalidInput, "INSERT ... SELECT: the query's rows exceed the limit of %d MiB per statement; insert them in several statements (add a WHERE range or LIMIT)", limit>>20)
			}
			rows = append(rows, append([]any(nil), row...))
		}
	}
}

func valueBytes(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	}
	return 8
}
