package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/lance/scan"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// DELETE FROM t [WHERE ...] and UPDATE t SET col = expr, ... [WHERE ...]
// are Lance versions of the table's dataset, the operations Lance itself
// uses: DELETE writes deletion files for the matching rows (a Delete
// transaction); UPDATE deletes the matching rows and appends their new
// versions in one commit (lance/dataset Update: deletion files plus new
// fragments, an Update transaction in REWRITE_ROWS mode). Both read the
// latest version through the scan SELECT uses (the conjuncts of WHERE a
// scalar index serves narrow the rows read, see dataPlan.scanner),
// evaluate WHERE on every row it returns (the WHERE grammar of SELECT over
// table data) and rebase over concurrent commits as Lance's
// rules allow (a concurrent append is fine; a concurrent change of the
// same fragments is a ConcurrentModification error).
//
// UPDATE evaluates SET expressions on the row as it was (MySQL evaluates
// left to right on the changing row; lancecat's SET expressions are
// literals, column references, arithmetic (SET n = n + 1), functions
// (SET name = UPPER(name)), subqueries (correlated ones read the row as it
// was) and DEFAULT, where the two agree except for a column assigned
// and then read in one statement). It keeps UNIQUE
// columns unique and the matching rows in memory (bounded by MaxRows).
// Neither can be part of a transaction.

// dmlTarget opens a DELETE/UPDATE table and checks its WHERE.
func (s *Session) dmlTarget(ctx context.Context, name sqlparse.Name, alias string, where sqlparse.Expr, order []sqlparse.OrderItem, set ...sqlparse.Assignment) (catalog.Ident, *dataset.Dataset, *arrow.Schema, *rowEnv, error) {
	if len(name) >= 2 && strings.EqualFold(name[0], "information_schema") {
		return nil, nil, nil, nil, errorf(catalog.CodeInvalidInput, "information_schema views are read-only")
	}
	// The row operators below resolve a column by its name alone: a
	// qualifier must name the target (its alias, when it has one), or
	// DELETE ... WHERE x.a = 1 would delete the rows where a = 1.
	blk := &sqlparse.Select{From: &sqlparse.TableSource{Table: name, Alias: alias}, Where: where, OrderBy: order}
	for _, a := range set {
		blk.Items = append(blk.Items, sqlparse.SelectItem{Expr: a.Column}, sqlparse.SelectItem{Expr: a.Value})
	}
	if err := s.checkQualifiers(blk); err != nil {
		return nil, nil, nil, nil, err
	}
	// A correlated subquery names the target by its alias, else its name.
	scopeName := alias
	if scopeName == "" {
		scopeName = name[len(name)-1]
	}
	id, ds, err := s.openTableData(ctx, name)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	schema, err := ds.ArrowSchema()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cols := make([]Column, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = dataColumn(f, "")
	}
	exprs := []sqlparse.Expr{where}
	for _, a := range set {
		exprs = append(exprs, a.Value)
	}
	if err := s.planSubqueries(ctx, func() (*scope, error) {
		return newScope(scopeName, cols).withSchema(s.tableSchema(name)), nil
	}, exprs...); err != nil {
		return nil, nil, nil, nil, err
	}
	env := newRowEnv(cols)
	env.session = s
	env.subq = s.subq
	env.ctx = ctx
	if where != nil {
		if err := checkDataCondition(where); err != nil {
			return nil, nil, nil, nil, err
		}
		if err := env.check(where); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return id, ds, schema, env, nil
}

// dmlScan is the scan DELETE/UPDATE find their rows with.
type dmlScan struct {
	sc *scan.Scanner
	// read lists the schema positions WHERE reads; at maps a schema
	// position to its column in the scanned batches.
	read, at []int
	// pushed are the labels of the WHERE conjuncts pushed into the scan.
	pushed []string
}

// openDMLScan opens the pushed-down lance/scan scan of DELETE/UPDATE: the
// WHERE conjuncts an index serves are scan predicates (as for SELECT, see
// dataPlan.scanner) and batches carry row addresses. With all, batches
// hold every schema column in schema order; otherwise only the columns
// WHERE reads.
func (s *Session) openDMLScan(ctx context.Context, ds *dataset.Dataset, schema *arrow.Schema, env *rowEnv, where sqlparse.Expr, all bool) (*dmlScan, error) {
	d := &dmlScan{at: make([]int, schema.NumFields())}
	if where != nil {
		seen := map[int]bool{}
		env.columnRefs(where, func(ref *sqlparse.ColumnRef) bool {
			if i, err := env.column(ref); err == nil && !seen[i] {
				seen[i] = true
				d.read = append(d.read, i)
			}
			return true
		})
	}
	opts := scan.Options{Columns: []string{}, WithRowAddress: true}
	if all {
		for i, f := range schema.Fields() {
			opts.Columns = append(opts.Columns, f.Name)
			d.at[i] = i
		}
	} else {
		for j, c := range d.read {
			opts.Columns = append(opts.Columns, schema.Field(c).Name)
			d.at[c] = j
		}
		if len(d.read) == 0 {
			opts.Columns = []string{schema.Field(0).Name} // only the addresses matter
		}
	}
	if where != nil {
		opts.Predicates = servedPredicates(ds, s.opts.Indexes, indexCandidates(env, schema, where))
	}
	sc, used, err := openScanner(ctx, ds, opts)
	if err != nil {
		return nil, err
	}
	d.sc = sc
	for _, p := range used {
		d.pushed = append(d.pushed, p.Label)
	}
	return d, nil
}

// matchingRows finds the live rows WHERE keeps through openDMLScan's scan
// (WHERE is evaluated on every row it returns) and calls fn for each with
// its row address, the batch holding it and its index there (batch
// columns as openDMLScan says for all).
func (s *Session) matchingRows(ctx context.Context, ds *dataset.Dataset, schema *arrow.Schema, env *rowEnv, where sqlparse.Expr, all bool, fn func(addr uint64, rec arrow.RecordBatch, i int) error) error {
	d, err := s.openDMLScan(ctx, ds, schema, env, where, all)
	if err != nil {
		return err
	}
	sc, read, at := d.sc, d.read, d.at
	row := make([]any, schema.NumFields())
	readers := make([]sqltypes.ValueReader, len(read))
	for rec, err := range sc.Records(ctx) {
		if err != nil {
			return err
		}
		addrs := rowAddresses(rec)
		for j, c := range read {
			r, err := readerFor(schema.Field(c), rec.Column(at[c]))
			if err != nil {
				return err
			}
			readers[j] = r
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if where != nil {
				for j, c := range read {
					v, err := readers[j](i)
					if err != nil {
						return err
					}
					row[c] = v
				}
				ok, err := env.matches(where, row)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			if err := fn(addrs[i], rec, i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Session) deleteRows(ctx context.Context, st *sqlparse.Delete) (*Result, error) {
	id, ds, schema, env, err := s.dmlTarget(ctx, st.Table, st.Alias, st.Where, st.OrderBy)
	if err != nil {
		return nil, err
	}
	var addrs []uint64
	if st.Limit != nil || len(st.OrderBy) > 0 {
		if addrs, err = s.orderedMatches(ctx, id, ds, schema, env, st); err != nil {
			return nil, err
		}
	} else {
		err = s.matchingRows(ctx, ds, schema, env, st.Where, false, func(addr uint64, _ arrow.RecordBatch, _ int) error {
			addrs = append(addrs, addr)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(addrs) > 0 {
		if _, err := ds.Delete(ctx, addrs); err != nil {
			return nil, rowChangeError("delete from", id, err)
		}
	}
	return okResult(int64(len(addrs))), nil
}

// errEnoughRows stops a scan that has found the rows it needs.
var errEnoughRows = errors.New("enough rows")

// orderedMatches finds the rows of DELETE ... [ORDER BY ...] LIMIT n: the
// first n matching rows in ORDER BY order (scan order without ORDER BY, as
// MySQL takes them in its scan order). With ORDER BY it keeps every
// matching row's address and sort keys (at most MaxRows rows); without, it
// stops after n.
func (s *Session) orderedMatches(ctx context.Context, id catalog.Ident, ds *dataset.Dataset, schema *arrow.Schema, env *rowEnv, st *sqlparse.Delete) ([]uint64, error) {
	limit := int64(-1)
	if st.Limit != nil {
		var err error
		if limit, err = limitValue(st.Limit.Count); err != nil {
			return nil, err
		}
	}
	var keys []sqlparse.OrderItem
	for _, o := range st.OrderBy {
		if _, ok := o.Expr.(*sqlparse.ColumnPosition); ok {
			return nil, errorf(catalog.CodeInvalidInput, "DELETE ... ORDER BY takes expressions, not positions")
		}
		if err := checkDataCondition(o.Expr); err != nil {
			return nil, err
		}
		if err := env.check(o.Expr); err != nil {
			return nil, err
		}
		keys = append(keys, o)
	}
	if limit == 0 {
		return nil, nil
	}
	type match struct {
		addr uint64
		keys []any
	}
	var found []match
	row := make([]any, schema.NumFields())
	err := s.matchingRows(ctx, ds, schema, env, st.Where, len(keys) > 0, func(addr uint64, rec arrow.RecordBatch, r int) error {
		if len(keys) == 0 {
			found = append(found, match{addr: addr})
			if int64(len(found)) == limit {
				return errEnoughRows
			}
			return nil
		}
		if len(found) >= s.opts.MaxRows {
			return errorf(catalog.CodeInvalidInput, "DELETE ... ORDER BY on %s sorts more than %d rows (the row limit); narrow its WHERE", displayName(id), s.opts.MaxRows)
		}
		for c := range schema.Fields() {
			rd, err := readerFor(schema.Field(c), rec.Column(c))
			if err != nil {
				row[c] = nil
				continue
			}
			if row[c], err = rd(r); err != nil {
				return err
			}
		}
		m := match{addr: addr, keys: make([]any, len(keys))}
		for i, k := range keys {
			v, err := env.eval(k.Expr, row)
			if err != nil {
				return err
			}
			m.keys[i] = v
		}
		found = append(found, m)
		return nil
	})
	if err != nil && !errors.Is(err, errEnoughRows) {
		return nil, err
	}
	if len(keys) > 0 {
		slices.SortStableFunc(found, func(a, b match) int {
			for i, k := range keys {
				c := compareNullsFirst(a.keys[i], b.keys[i])
				if k.Desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		})
		if limit >= 0 && int64(len(found)) > limit {
			found = found[:limit]
		}
	}
	addrs := make([]uint64, len(found))
	for i, m := range found {
		addrs[i] = m.addr
	}
	slices.Sort(addrs)
	return addrs, nil
}

// rowChangeError maps a failed DELETE/UPDATE commit.
func rowChangeError(verb string, id catalog.Ident, err error) error {
	if errorsIsConflict(err) {
		return &catalog.Error{Code: catalog.CodeConcurrentModification, Message: fmt.Sprintf("%s %s: %v", verb, displayName(id), err), Cause: err}
	}
	return fmt.Errorf("%s %s: %w", verb, displayName(id), err)
}

func (s *Session) updateRows(ctx context.Context, st *sqlparse.Update) (*Result, error) {
	id, ds, schema, env, err := s.dmlTarget(ctx, st.Table, st.Alias, st.Where, nil, st.Set...)
	if err != nil {
		return nil, err
	}
	// Resolve the assignments: column -> expression (DEFAULT: the column's).
	assign := map[int]sqlparse.Expr{}
	var order []int
	for _, a := range st.Set {
		i, err := env.column(a.Column)
		if err != nil {
			return nil, err
		}
		if _, dup := assign[i]; dup {
			return nil, errorf(catalog.CodeInvalidInput, "column %s assigned twice", sqlparse.QuoteIdent(schema.Field(i).Name))
		}
		if _, isDefault := a.Value.(*sqlparse.Default); !isDefault {
			if err := checkDataCondition(a.Value); err != nil {
				return nil, errorf(catalog.CodeUnsupported, "not supported: SET %s = %s (literals, columns, arithmetic, subqueries and DEFAULT)", schema.Field(i).Name, a.Value)
			}
			if err := env.check(a.Value); err != nil {
				return nil, err
			}
		}
		assign[i] = a.Value
		order = append(order, i)
	}
	fill, err := newInsertFill(schema)
	if err != nil {
		return nil, err
	}
	// Assigned columns are built; unchanged ones are copied as Arrow slices,
	// so every type (nested, JSON, vectors) survives the rewrite exactly.
	builders := make([]array.Builder, schema.NumFields())
	for _, c := range order {
		builders[c] = array.NewBuilder(memory.DefaultAllocator, schema.Field(c).Type)
		defer builders[c].Release()
	}
	kept := make([][]arrow.Array, schema.NumFields())
	defer func() {
		for _, arrs := range kept {
			for _, a := range arrs {
				a.Release()
			}
		}
	}()
	read := make([]bool, schema.NumFields())
	for _, e := range assign {
		env.columnRefs(e, func(ref *sqlparse.ColumnRef) bool {
			if i, err := env.column(ref); err == nil {
				read[i] = true
			}
			return true
		})
	}
	// The replacement rows are built and written in chunks of about
	// updateChunkBytes (a NULL VECTOR(n) still takes 4n bytes), all
	// committed as one Update version at the end: an UPDATE of a wide table
	// holds one chunk, not every new row (issue 19: SET v = NULL on 1,000
	// rows of 2 x VECTOR(65536) took 2 GB).
	if fill.auto >= 0 && assign[fill.auto] != nil {
		if _, isDefault := assign[fill.auto].(*sqlparse.Default); isDefault {
			return nil, errorf(catalog.CodeUnsupported, "not supported: SET %s = DEFAULT on the AUTO_INCREMENT column", sqlparse.QuoteIdent(schema.Field(fill.auto).Name))
		}
	}
	stager, err := ds.NewRowStager()
	if err != nil {
		return nil, rowChangeError("update", id, err)
	}
	committed := false
	defer func() {
		if !committed {
			stager.Discard(ctx)
		}
	}()
	fixed := fixedRowBytes(schema)
	var addrs []uint64
	var chunkRows int
	var chunkBytes int64
	// The keys (PRIMARY KEY, UNIQUE columns) SET changes a column of.
	var changedKeys []tableKey
	for _, k := range enforcedKeys(schema) {
		for _, c := range k.cols {
			if _, ok := assign[c]; ok {
				changedKeys = append(changedKeys, k)
				break
			}
		}
	}
	keys := newStatementKeys(changedKeys)
	var autoMax uint64
	flush := func() error {
		if chunkRows == 0 {
			return nil
		}
		cols := make([]arrow.Array, schema.NumFields())
		defer func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}()
		for c := range schema.Fields() {
			if _, ok := assign[c]; ok {
				cols[c] = builders[c].NewArray()
				continue
			}
			a, err := array.Concatenate(kept[c], memory.DefaultAllocator)
			if err != nil {
				return err
			}
			cols[c] = a
			for _, k := range kept[c] {
				k.Release()
			}
			kept[c] = kept[c][:0]
		}
		rec := array.NewRecordBatch(schema, cols, int64(chunkRows))
		defer rec.Release()
		first := len(addrs) - chunkRows // rows before this chunk
		if err := keys.add(schema, rec, first, nil); err != nil {
			return err
		}
		if _, changed := assign[fill.auto]; changed && fill.auto >= 0 {
			m, err := arrayMax(schema.Field(fill.auto).Name, rec.Column(fill.auto))
			if err != nil {
				return err
			}
			autoMax = max(autoMax, m)
		}
		chunkRows, chunkBytes = 0, 0
		return stager.Write(ctx, rec)
	}
	row := make([]any, schema.NumFields())
	err = s.matchingRows(ctx, ds, schema, env, st.Where, true, func(addr uint64, rec arrow.RecordBatch, r int) error {
		if len(addrs) >= s.opts.MaxRows {
			return errorf(catalog.CodeInvalidInput, "UPDATE of %s changes more than %d rows (the row limit); narrow its WHERE", displayName(id), s.opts.MaxRows)
		}
		addrs = append(addrs, addr)
		chunkRows++
		chunkBytes += fixed
		for c := range schema.Fields() {
			if _, ok := assign[c]; !ok {
				kept[c] = append(kept[c], array.NewSlice(rec.Column(c), int64(r), int64(r+1)))
				chunkBytes += variableBytes(rec.Column(c), r)
				continue
			}
		}
		// The row's values, for SET expressions that read columns (only
		// those: a vector read as a Go value is its JSON text, megabytes
		// for nothing when SET does not read it).
		for c := range schema.Fields() {
			if !read[c] {
				row[c] = nil
				continue
			}
			rd, err := readerFor(schema.Field(c), rec.Column(c))
			if err != nil {
				row[c] = nil
				continue
			}
			if row[c], err = rd(r); err != nil {
				return err
			}
		}
		for _, c := range order {
			f := schema.Field(c)
			e := assign[c]
			if _, isDefault := e.(*sqlparse.Default); isDefault {
				if _, err := fill.appendColumn(builders[c], f, c, false, nil); err != nil {
					return errorf(catalog.CodeInvalidInput, "row %d, column %s: %v", len(addrs), sqlparse.QuoteIdent(f.Name), err)
				}
				continue
			}
			v, err := env.eval(e, row)
			if err != nil {
				return err
			}
			if v == nil && !f.Nullable {
				return errorf(catalog.CodeInvalidInput, "column %s is NOT NULL", sqlparse.QuoteIdent(f.Name))
			}
			if err := sqltypes.Append(builders[c], f, v); err != nil {
				return errorf(catalog.CodeInvalidInput, "SET %s (%s): %v", sqlparse.QuoteIdent(f.Name), typeName(f), err)
			}
			chunkBytes += valueBytes(v)
		}
		if chunkBytes >= updateChunkBytes {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return okResult(0), nil
	}
	replaced := make(map[uint64]bool, len(addrs))
	for _, a := range addrs {
		replaced[a] = true
	}
	isReplaced := func(a uint64) bool { return replaced[a] }
	if err := s.checkKeysAgainst(ctx, ds, schema, keys, isReplaced, nil); err != nil {
		return nil, err
	}
	if autoMax > 0 {
		if ds, err = moveCounterPast(ctx, ds, schema.Field(fill.auto), autoMax); err != nil {
			return nil, err
		}
	}
	committed = true // UpdateStaged consumes the staged files, on failure too
	if _, err := ds.UpdateStaged(ctx, stager, addrs, dataset.RowChangeOptions{Recheck: s.statementRecheck(schema, ds, keys, isReplaced)}); err != nil {
		var ce *catalog.Error
		if errors.As(err, &ce) {
			return nil, err // a key a concurrent commit added
		}
		return nil, rowChangeError("update", id, err)
	}
	return okResult(int64(len(addrs))), nil
}

func errorsIsConflict(err error) bool { return errors.Is(err, dataset.ErrCommitConflict) }

// explainDML describes how DELETE or UPDATE would find its rows: the
// pushed-down scan's plan (the one matchingRows runs) and the conjuncts not
// pushed.
func (s *Session) explainDML(ctx context.Context, st sqlparse.Statement) (*Result, error) {
	var name sqlparse.Name
	var alias string
	var where sqlparse.Expr
	var order []sqlparse.OrderItem
	var set []sqlparse.Assignment
	verb := "Delete"
	switch x := st.(type) {
	case *sqlparse.Delete:
		name, alias, where, order = x.Table, x.Alias, x.Where, x.OrderBy
	case *sqlparse.Update:
		name, alias, where, verb, set = x.Table, x.Alias, x.Where, "Update", x.Set
	}
	id, ds, schema, env, err := s.dmlTarget(ctx, name, alias, where, order, set...)
	if err != nil {
		return nil, err
	}
	d, err := s.openDMLScan(ctx, ds, schema, env, where, verb == "Update")
	if err != nil {
		return nil, err
	}
	plan, err := d.sc.Plan(ctx)
	if err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("%s %s (version %d): the matching rows by row address", verb, displayName(id), ds.Version())}
	indent := "  "
	if where != nil {
		lines = append(lines, indent+"Filter "+where.String())
		indent += "  "
	}
	lines = append(lines, indent+"TableScan with row addresses")
	for _, l := range plan.Lines() {
		lines = append(lines, indent+"  "+l)
	}
	if where != nil {
		for _, pred := range indexCandidates(env, schema, where) {
			if !slices.Contains(d.pushed, pred.String()) {
				lines = append(lines, indent+"  not pushed: "+pred.String())
			}
		}
	}
	// The subqueries of WHERE (and SET), planned, not run.
	exprs := []sqlparse.Expr{where}
	if u, ok := st.(*sqlparse.Update); ok {
		for _, a := range u.Set {
			exprs = append(exprs, a.Value)
		}
	}
	sub, err := s.explainSubqueries(ctx, env.subq, 1, exprs...)
	if err != nil {
		return nil, err
	}
	lines = append(lines, sub...)
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	return rowsResult([]Column{varchar("plan")}, rows), nil
}

// updateChunkBytes is how many bytes of replacement rows an UPDATE builds
// (fixed-width parts plus variable-width values, as INSERT counts them)
// before it writes them as data files and starts the next chunk; a
// variable so tests can force several chunks.
var updateChunkBytes int64 = 32 << 20

// variableBytes is the variable-width part of row i of arr that a chunk
// copies (string and binary values; the fixed parts are fixedRowBytes).
func variableBytes(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.String:
		return int64(a.ValueLen(i))
	case *array.LargeString:
		return int64(a.ValueLen(i))
	case *array.Binary:
		return int64(a.ValueLen(i))
	case *array.LargeBinary:
		return int64(a.ValueLen(i))
	case *array.List:
		start, end := a.ValueOffsets(i)
		return (end - start) * fixedBytes(a.DataType().(*arrow.ListType).Elem())
	case *array.LargeList:
		start, end := a.ValueOffsets(i)
		return (end - start) * fixedBytes(a.DataType().(*arrow.LargeListType).Elem())
	}
	return 0
}
