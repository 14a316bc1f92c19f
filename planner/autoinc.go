package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// AUTO_INCREMENT values: where the counter lives and why it is safe.
//
// The next value of each AUTO_INCREMENT column is kept in the table's Lance
// table metadata (manifest table_metadata) under
//
//	lancecat:auto_increment_next.<field id> = "<next value>"
//
// An INSERT that needs k values first reserves them with an UpdateConfig
// commit that reads the counter from the version it commits on and writes
// counter+k (dataset.UpdateTableMetadataFunc), then appends its rows. Two
// lancecat writers reserving at once race for the same version file
// (put-if-absent): the loser either rebuilds on top of a concurrent Append,
// Delete or index change (re-reading the counter, unchanged by those) or
// fails with a commit conflict against the winner's UpdateConfig and
// retries from the latest version. So a range is handed out once. A peer
// (LanceDB) append does not touch the counter: its rows keep whatever ids
// it wrote. The counter starts at max(column)+1 when it is first created,
// and lancecat moves it past explicit values its own INSERTs and UPDATEs
// write (as MySQL 8 and MariaDB do); values the peer writes above the counter later are not seen,
// so a peer that writes ids itself should not share the column with
// lancecat's AUTO_INCREMENT. Reserved values an INSERT does not use (it
// failed after reserving) are skipped, as in MySQL.

// autoIncrementKeyPrefix prefixes the table metadata key of a counter.
const autoIncrementKeyPrefix = "lancecat:auto_increment_next."

func autoIncrementKey(fieldID int32) string {
	return autoIncrementKeyPrefix + strconv.Itoa(int(fieldID))
}

// maxReserveAttempts bounds the retries of a reservation that conflicts
// with concurrent reservations.
const maxReserveAttempts = 20

// errNoValue: a NOT NULL column without DEFAULT got no value.
var errNoValue = errors.New("NOT NULL and has no value")

// insertFill supplies the values an INSERT leaves to the table: DEFAULTs
// and AUTO_INCREMENT ids.
type insertFill struct {
	now      time.Time // CURRENT_TIMESTAMP of the statement
	defaults []*sqlparse.ColumnDefault
	auto     int // index of the AUTO_INCREMENT column, -1 if none
	// For the AUTO_INCREMENT column, per row: the explicit value or nil
	// (assign one).
	autoValues []*big.Int
	// assigned holds, per row, the id reserveAuto gave it (0 for a row
	// with an explicit value).
	assigned []uint64
	// numbering is how ids are handed out (numberRows): bulk for LOAD DATA,
	// IMPORT INTO and INSERT ... SELECT, carried across a load's batches.
	numbering autoNumbering
	// lenient adjusts refused values under IGNORE (ignore.go); nil fails.
	lenient *lenientValues
}

func newInsertFill(schema *arrow.Schema) (*insertFill, error) {
	fill := &insertFill{now: time.Now(), defaults: make([]*sqlparse.ColumnDefault, schema.NumFields()), auto: -1}
	for i, f := range schema.Fields() {
		d, err := columnDefault(f)
		if err != nil {
			return nil, err
		}
		fill.defaults[i] = d
		if isAutoIncrement(f) && isIntegerType(f.Type) {
			if fill.auto >= 0 {
				return nil, errorf(catalog.CodeInvalidInput, "table has two AUTO_INCREMENT columns (%s and %s)", sqlparse.QuoteIdent(schema.Field(fill.auto).Name), sqlparse.QuoteIdent(f.Name))
			}
			fill.auto = i
		}
	}
	return fill, nil
}

// appendColumn appends row's value of column i. given says whether the
// statement gave a value (not DEFAULT); v is that value. It reports false
// when the column is the AUTO_INCREMENT one (appended later by finishAuto).
func (fill *insertFill) appendColumn(fb array.Builder, f arrow.Field, i int, given bool, v any) (bool, error) {
	if i == fill.auto {
		var explicit *big.Int
		if given && v != nil {
			n, ok := sqltypes.IntegerOf(v)
			if !ok {
				return false, fmt.Errorf("%s is not an integer", sqltypes.Describe(v))
			}
			if n.Sign() != 0 { // 0 asks for a value, as in MySQL
				explicit = n
			}
		}
		fill.autoValues = append(fill.autoValues, explicit)
		return false, nil
	}
	if !given {
		if d := fill.defaults[i]; d != nil {
			return true, appendDefault(fb, f, d, fill.now)
		}
		v = nil
	}
	if v == nil && !f.Nullable {
		return false, errNoValue
	}
	return true, sqltypes.Append(fb, f, v)
}

// finishAuto reserves the ids the rows need and appends the AUTO_INCREMENT
// column. It returns the dataset after the reservation, the first assigned
// id (0 if none) and whether every value was assigned here.
func (fill *insertFill) finishAuto(ctx context.Context, ds *dataset.Dataset, b *array.RecordBuilder, schema *arrow.Schema) (*dataset.Dataset, uint64, bool, error) {
	if fill.auto < 0 {
		return ds, 0, false, nil
	}
	f := schema.Field(fill.auto)
	ds, first, need, err := fill.reserveAuto(ctx, ds, f)
	if err != nil {
		return nil, 0, false, err
	}
	if err := fill.appendAuto(b.Field(fill.auto), f, 0, len(fill.autoValues)); err != nil {
		return nil, 0, false, err
	}
	return ds, first, need == len(fill.autoValues), nil
}

// reserveAuto assigns, in one commit, the ids of the rows of
// fill.autoValues (every row of the statement) that asked for one, into
// fill.assigned. It returns the dataset after the reservation, the first
// assigned id (0 if none) and how many rows took one.
func (fill *insertFill) reserveAuto(ctx context.Context, ds *dataset.Dataset, f arrow.Field) (*dataset.Dataset, uint64, int, error) {
	need := 0
	explicit := false
	for _, v := range fill.autoValues {
		if v == nil {
			need++
		} else if v.Sign() > 0 {
			if !v.IsUint64() {
				return nil, 0, 0, errorf(catalog.CodeInvalidInput, "AUTO_INCREMENT value %s is out of range", v)
			}
			explicit = true
		}
	}
	fill.assigned = fill.assigned[:0]
	if need == 0 && !explicit {
		return ds, 0, 0, nil
	}
	ds, assigned, err := reserveNumbered(ctx, ds, f, fill.autoValues, &fill.numbering)
	if err != nil {
		return nil, 0, 0, err
	}
	fill.assigned = assigned
	var first uint64
	for r, v := range fill.autoValues {
		if v == nil {
			first = assigned[r]
			break
		}
	}
	return ds, first, need, nil
}

// appendAuto appends the AUTO_INCREMENT values of rows [from, to) to fb:
// the explicit ones, and the ids reserveAuto assigned to the others.
func (fill *insertFill) appendAuto(fb array.Builder, f arrow.Field, from, to int) error {
	for r := from; r < to; r++ {
		v := fill.autoValues[r]
		if v == nil {
			v = new(big.Int).SetUint64(fill.assigned[r])
		}
		if err := sqltypes.AppendInteger(fb, v); err != nil {
			return errorf(catalog.CodeInvalidInput, "row %d, column %s (%s): %v", r+1, sqlparse.QuoteIdent(f.Name), typeName(f), err)
		}
	}
	return nil
}

// autoNumbering is the state of a statement's AUTO_INCREMENT numbering
// (numberRows).
type autoNumbering struct {
	// bulk: a statement whose row count MySQL does not know up front (LOAD
	// DATA, INSERT ... SELECT): its ids are reserved in intervals of 1, 2,
	// 4, ... (at most 65535) instead of one as long as the statement.
	bulk bool
	// next and end are the next id and the end of the interval reserved
	// last; intervals counts them (valid once started).
	next, end uint64
	intervals int
	started   bool
}

// numberRows assigns the ids of a statement's rows as MariaDB's InnoDB
// does (innodb_autoinc_lock_mode 1; compared with MariaDB 10.11 in
// conformance/mariadb TestKeysMatchMariaDB and TestLoadDataMatchesMariaDB):
// from the counter cur on, rows are taken in order; an explicit value at
// or above the next id moves the next id past it, so later generated ids
// of the same statement go past it (NULL, 10, NULL: 1, 10, 11). Ids are
// reserved in intervals: for a statement of known rows the first as long
// as the statement and a later one (after an explicit value left the
// interval) as long as the rows still to come; for a bulk statement 1, 2,
// 4, ... The counter ends after the last interval, or past the largest
// explicit value. vals[r] nil asks for an id; a zero entry of the result
// is an explicit row. A load numbers batch after batch: the state goes
// on from the last batch when the counter is still where that batch left
// it. It returns the state after the rows, for the caller to keep once
// its reservation commits.
func (a autoNumbering) numberRows(cur uint64, vals []*big.Int) (ids []uint64, counter uint64, after autoNumbering, ok bool) {
	ids = make([]uint64, len(vals))
	if !a.started || cur != a.end {
		a.next, a.end = cur, cur
	}
	for r, v := range vals {
		if v != nil {
			if v.Sign() > 0 && v.IsUint64() && v.Uint64() >= a.next {
				if v.Uint64() == math.MaxUint64 {
					return nil, 0, a, false
				}
				a.next = v.Uint64() + 1
			}
			continue
		}
		if a.next >= a.end {
			var k uint64
			switch {
			case a.bulk:
				k = uint64(min(1<<min(a.intervals, 16), 65535))
			case a.intervals == 0:
				k = uint64(len(vals))
			default:
				k = uint64(len(vals) - r) // the rows still to come
			}
			a.intervals++
			if a.next+k < a.next {
				return nil, 0, a, false
			}
			a.end = a.next + k
		}
		ids[r] = a.next
		a.next++
	}
	a.started = true
	a.end = max(a.end, a.next)
	return ids, a.end, a, true
}

// reserveIDs assigns the ids of the rows of vals (numberRows) from the
// counter of the version the reservation commits on, moving the counter
// past them, and returns those ids (0 for a row with an explicit value).
func reserveIDs(ctx context.Context, ds *dataset.Dataset, f arrow.Field, vals []*big.Int) (*dataset.Dataset, []uint64, error) {
	var state autoNumbering
	return reserveNumbered(ctx, ds, f, vals, &state)
}

// reserveNumbered is reserveIDs numbering from (and updating) *state.
func reserveNumbered(ctx context.Context, ds *dataset.Dataset, f arrow.Field, vals []*big.Int, state *autoNumbering) (*dataset.Dataset, []uint64, error) {
	lf := ds.Schema().Field(f.Name)
	if lf == nil {
		return nil, nil, errorf(catalog.CodeTableColumnNotFound, "no column %s", sqlparse.QuoteIdent(f.Name))
	}
	key := autoIncrementKey(lf.ID)
	need := false
	var low uint64 // one past the largest explicit value
	for _, v := range vals {
		if v == nil {
			need = true
		} else if v.Sign() > 0 {
			if !v.IsUint64() || v.Uint64() == math.MaxUint64 {
				return nil, nil, errorf(catalog.CodeInvalidInput, "AUTO_INCREMENT value %s is out of range", v)
			}
			low = max(low, v.Uint64()+1)
		}
	}
	if !need {
		// Only explicit values: move the counter past them if needed.
		if text, ok := ds.Manifest().TableMetadata[key]; ok {
			if cur, err := strconv.ParseUint(text, 10, 64); err == nil && cur >= low {
				return ds, make([]uint64, len(vals)), nil
			}
		}
	}
	for attempt := 1; ; attempt++ {
		var start uint64
		if _, ok := ds.Manifest().TableMetadata[key]; !ok {
			// First reservation: start after the largest value already there
			// (rows written before, by lancecat or by another writer).
			m, err := columnMax(ctx, ds, f.Name)
			if err != nil {
				return nil, nil, err
			}
			start = m + 1
		}
		var ids []uint64
		var after autoNumbering
		next, err := ds.UpdateTableMetadataFunc(ctx, func(cur map[string]string) (map[string]string, error) {
			v := start
			if text, ok := cur[key]; ok {
				p, err := strconv.ParseUint(text, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("table metadata %s = %q is not a counter: %w", key, text, err)
				}
				v = p
			}
			var counter uint64
			var ok bool
			if ids, counter, after, ok = state.numberRows(max(v, 1), vals); !ok {
				return nil, errorf(catalog.CodeInvalidInput, "AUTO_INCREMENT column %s is exhausted", sqlparse.QuoteIdent(f.Name))
			}
			return map[string]string{key: strconv.FormatUint(max(counter, v), 10)}, nil
		})
		if err == nil {
			*state = after
			return next, ids, nil
		}
		if !errors.Is(err, dataset.ErrCommitConflict) || attempt >= maxReserveAttempts {
			return nil, nil, fmt.Errorf("reserve AUTO_INCREMENT values of %s: %w", sqlparse.QuoteIdent(f.Name), err)
		}
		if ds, err = ds.Latest(ctx); err != nil {
			return nil, nil, err
		}
	}
}

// nextAutoIncrement is information_schema.tables.AUTO_INCREMENT: the id the
// next INSERT would get (the counter, or one past the column's largest value
// before the first reservation), NULL for a table without an AUTO_INCREMENT
// column.
func (s *Session) nextAutoIncrement(ctx context.Context, id catalog.Ident, schema *arrow.Schema) (any, error) {
	var col *arrow.Field
	for _, f := range schema.Fields() {
		if isAutoIncrement(f) && isIntegerType(f.Type) {
			col = &f
			break
		}
	}
	if col == nil {
		return nil, nil
	}
	ds, err := s.openLatest(ctx, id)
	if err != nil {
		return nil, err
	}
	lf := ds.Schema().Field(col.Name)
	if lf == nil {
		return nil, nil
	}
	if text, ok := ds.Manifest().TableMetadata[autoIncrementKey(lf.ID)]; ok {
		if v, err := strconv.ParseInt(text, 10, 64); err == nil {
			return max(v, 1), nil
		}
		return nil, nil
	}
	m, err := columnMax(ctx, ds, col.Name)
	if err != nil {
		return nil, err
	}
	if m >= 1<<63-1 {
		return nil, nil
	}
	return int64(m) + 1, nil
}

// columnMax is the largest non-negative value of an integer column (0 for
// an empty table).
func columnMax(ctx context.Context, ds *dataset.Dataset, name string) (uint64, error) {
	var m uint64
	err := ds.Scan(ctx, dataset.ScanOptions{Columns: []string{name}}, func(rec arrow.RecordBatch) error {
		x, err := arrayMax(name, rec.Column(0))
		m = max(m, x)
		return err
	})
	return m, err
}

// arrayMax is the largest positive value of an integer array (0 if none).
func arrayMax(name string, arr arrow.Array) (uint64, error) {
	read, err := readerFor(arrow.Field{Name: name, Type: arr.DataType()}, arr)
	if err != nil {
		return 0, err
	}
	var m uint64
	for i := 0; i < arr.Len(); i++ {
		v, err := read(i)
		if err != nil {
			return 0, err
		}
		switch x := v.(type) {
		case int64:
			if x > 0 && uint64(x) > m {
				m = uint64(x)
			}
		case uint64:
			m = max(m, x)
		}
	}
	return m, nil
}

// moveCounterPast moves the AUTO_INCREMENT counter of column f past m, the
// largest value an UPDATE writes there, as MySQL 8 and MariaDB's InnoDB do,
// so a later INSERT never hands out one of them. It commits before the rows
// do: a crash in between only skips values.
func moveCounterPast(ctx context.Context, ds *dataset.Dataset, f arrow.Field, m uint64) (*dataset.Dataset, error) {
	if m == 0 {
		return ds, nil
	}
	ds, _, err := reserveIDs(ctx, ds, f, []*big.Int{new(big.Int).SetUint64(m)})
	return ds, err
}
