package planner

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
	"github.com/lancecat/lancecat/storage"
)

// The information_schema views. Every name value (SCHEMA_NAME,
// TABLE_SCHEMA) is a namespace path in SQL spelling: parts joined by '.',
// backquoted when needed ("prod.ml", "`a.b`.c"). The root namespace is "".

// describeLevel is how much a view needs to know about each object.
type describeLevel int

const (
	describeNone     describeLevel = iota // names only (a listing)
	describeMetadata                      // catalog entry: location, properties, declared
	describeFull                          // also the dataset: version, schema, rows
)

type viewColumn struct {
	Column
	level describeLevel
}

type infoView struct {
	name      string // "schemata", "tables", "columns"
	columns   []viewColumn
	schemaCol string // the column naming the namespace
	nameCol   string // the column naming the table ("" for schemata)
	minLevel  describeLevel
	static    bool // fixed rows (staticRows), no catalog reads
}

func vcol(c Column, l describeLevel) viewColumn { return viewColumn{c, l} }

var infoViews = map[string]*infoView{
	"schemata": {
		name: "schemata", schemaCol: "SCHEMA_NAME",
		columns: []viewColumn{
			vcol(varchar("CATALOG_NAME"), describeNone),
			vcol(varchar("SCHEMA_NAME"), describeNone),
			vcol(varchar("DEFAULT_CHARACTER_SET_NAME"), describeNone),
			vcol(varchar("DEFAULT_COLLATION_NAME"), describeNone),
			vcol(varcharNull("SQL_PATH"), describeNone),
			vcol(varchar("DEFAULT_ENCRYPTION"), describeNone),
			vcol(varcharNull("SCHEMA_COMMENT"), describeMetadata),
			vcol(varcharNull("PROPERTIES"), describeMetadata),
		},
	},
	"tables": {
		name: "tables", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME",
		columns: []viewColumn{
			vcol(varchar("TABLE_CATALOG"), describeNone),
			vcol(varchar("TABLE_SCHEMA"), describeNone),
			vcol(varchar("TABLE_NAME"), describeNone),
			vcol(varchar("TABLE_TYPE"), describeNone),
			vcol(varchar("ENGINE"), describeNone),
			vcol(bigintNull("TABLE_ROWS"), describeFull),
			vcol(bigintNull("AUTO_INCREMENT"), describeFull),
			vcol(varchar("TABLE_COLLATION"), describeNone),
			vcol(varchar("CREATE_OPTIONS"), describeNone),
			vcol(bigintNull("LANCE_VERSION"), describeFull),
			vcol(varchar("LOCATION"), describeMetadata),
			vcol(varchar("DECLARED"), describeMetadata),
			vcol(varcharNull("TABLE_COMMENT"), describeMetadata),
			vcol(varcharNull("PROPERTIES"), describeMetadata),
		},
	},
	"columns": {
		name: "columns", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("TABLE_CATALOG"), describeFull),
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("COLUMN_NAME"), describeFull),
			vcol(bigint("ORDINAL_POSITION"), describeFull),
			vcol(varcharNull("COLUMN_DEFAULT"), describeFull),
			vcol(varchar("IS_NULLABLE"), describeFull),
			vcol(varchar("DATA_TYPE"), describeFull),
			vcol(bigintNull("CHARACTER_MAXIMUM_LENGTH"), describeFull),
			vcol(bigintNull("NUMERIC_PRECISION"), describeFull),
			vcol(bigintNull("NUMERIC_SCALE"), describeFull),
			vcol(bigintNull("DATETIME_PRECISION"), describeFull),
			vcol(varcharNull("CHARACTER_SET_NAME"), describeFull),
			vcol(varcharNull("COLLATION_NAME"), describeFull),
			vcol(varchar("COLUMN_TYPE"), describeFull),
			vcol(varchar("COLUMN_KEY"), describeFull),
			vcol(varchar("EXTRA"), describeFull),
			vcol(varchar("COLUMN_COMMENT"), describeFull),
			vcol(varchar("GENERATION_EXPRESSION"), describeFull),
			vcol(varchar("ARROW_TYPE"), describeFull),
			vcol(varcharNull("FIELD_METADATA"), describeFull),
		},
	},
	// key_column_usage lists the columns of PRIMARY KEY, UNIQUE and
	// FOREIGN KEY constraints, with MySQL's columns (schema tools read it
	// for keys); REFERENCED_* name a foreign key's referenced columns.
	"key_column_usage": {
		name: "key_column_usage", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("CONSTRAINT_CATALOG"), describeFull),
			vcol(varchar("CONSTRAINT_SCHEMA"), describeFull),
			vcol(varchar("CONSTRAINT_NAME"), describeFull),
			vcol(varchar("TABLE_CATALOG"), describeFull),
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("COLUMN_NAME"), describeFull),
			vcol(bigint("ORDINAL_POSITION"), describeFull),
			vcol(bigintNull("POSITION_IN_UNIQUE_CONSTRAINT"), describeFull),
			vcol(varcharNull("REFERENCED_TABLE_SCHEMA"), describeFull),
			vcol(varcharNull("REFERENCED_TABLE_NAME"), describeFull),
			vcol(varcharNull("REFERENCED_COLUMN_NAME"), describeFull),
		},
	},
	// statistics lists index columns as SHOW INDEX does (schema tools such as
	// GORM's migrator ask it whether an index exists).
	"statistics": {
		name: "statistics", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("TABLE_CATALOG"), describeFull),
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(bigint("NON_UNIQUE"), describeFull),
			vcol(varchar("INDEX_SCHEMA"), describeFull),
			vcol(varchar("INDEX_NAME"), describeFull),
			vcol(bigint("SEQ_IN_INDEX"), describeFull),
			vcol(varchar("COLUMN_NAME"), describeFull),
			vcol(varcharNull("COLLATION"), describeFull),
			vcol(bigintNull("CARDINALITY"), describeFull),
			vcol(bigintNull("SUB_PART"), describeFull),
			vcol(varcharNull("PACKED"), describeFull),
			vcol(varchar("NULLABLE"), describeFull),
			vcol(varchar("INDEX_TYPE"), describeFull),
			vcol(varchar("COMMENT"), describeFull),
			vcol(varchar("INDEX_COMMENT"), describeFull),
			vcol(varchar("IS_VISIBLE"), describeFull),
			vcol(varcharNull("EXPRESSION"), describeFull),
		},
	},
	// table_constraints lists each table's PRIMARY KEY, UNIQUE and FOREIGN
	// KEY constraints; ENFORCED says whether lancecat's writes check them
	// (the primary key and UNIQUE yes, foreign keys no; writers other than
	// lancecat do not check Lance's "unenforced" primary key).
	"table_constraints": {
		name: "table_constraints", schemaCol: "TABLE_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("CONSTRAINT_CATALOG"), describeFull),
			vcol(varchar("CONSTRAINT_SCHEMA"), describeFull),
			vcol(varchar("CONSTRAINT_NAME"), describeFull),
			vcol(varchar("TABLE_SCHEMA"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("CONSTRAINT_TYPE"), describeFull),
			vcol(varchar("ENFORCED"), describeFull),
		},
	},
	// referential_constraints lists the FOREIGN KEYs (declared, unenforced).
	"referential_constraints": {
		name: "referential_constraints", schemaCol: "CONSTRAINT_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("CONSTRAINT_CATALOG"), describeFull),
			vcol(varchar("CONSTRAINT_SCHEMA"), describeFull),
			vcol(varchar("CONSTRAINT_NAME"), describeFull),
			vcol(varchar("UNIQUE_CONSTRAINT_CATALOG"), describeFull),
			vcol(varchar("UNIQUE_CONSTRAINT_SCHEMA"), describeFull),
			vcol(varcharNull("UNIQUE_CONSTRAINT_NAME"), describeFull),
			vcol(varchar("MATCH_OPTION"), describeFull),
			vcol(varchar("UPDATE_RULE"), describeFull),
			vcol(varchar("DELETE_RULE"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("REFERENCED_TABLE_NAME"), describeFull),
		},
	},
	// check_constraints is empty: lancecat refuses CHECK.
	"check_constraints": {
		name: "check_constraints", schemaCol: "CONSTRAINT_SCHEMA", nameCol: "TABLE_NAME", minLevel: describeFull,
		columns: []viewColumn{
			vcol(varchar("CONSTRAINT_CATALOG"), describeFull),
			vcol(varchar("CONSTRAINT_SCHEMA"), describeFull),
			vcol(varchar("CONSTRAINT_NAME"), describeFull),
			vcol(varchar("TABLE_NAME"), describeFull),
			vcol(varchar("CHECK_CLAUSE"), describeFull),
		},
	},
	// The static views: what lancecat stores text as and its one engine.
	"collations": {
		name: "collations", static: true,
		columns: []viewColumn{
			vcol(varchar("COLLATION_NAME"), describeNone),
			vcol(varchar("CHARACTER_SET_NAME"), describeNone),
			vcol(bigint("ID"), describeNone),
			vcol(varchar("IS_DEFAULT"), describeNone),
			vcol(varchar("IS_COMPILED"), describeNone),
			vcol(bigint("SORTLEN"), describeNone),
			vcol(varchar("PAD_ATTRIBUTE"), describeNone),
		},
	},
	"character_sets": {
		name: "character_sets", static: true,
		columns: []viewColumn{
			vcol(varchar("CHARACTER_SET_NAME"), describeNone),
			vcol(varchar("DEFAULT_COLLATE_NAME"), describeNone),
			vcol(varchar("DESCRIPTION"), describeNone),
			vcol(bigint("MAXLEN"), describeNone),
		},
	},
	"engines": {
		name: "engines", static: true,
		columns: []viewColumn{
			vcol(varchar("ENGINE"), describeNone),
			vcol(varchar("SUPPORT"), describeNone),
			vcol(varchar("COMMENT"), describeNone),
			vcol(varcharNull("TRANSACTIONS"), describeNone),
			vcol(varcharNull("XA"), describeNone),
			vcol(varcharNull("SAVEPOINTS"), describeNone),
		},
	},
}

// Engine is information_schema.tables.ENGINE and the one row of
// information_schema.engines. lancecat tables are Lance datasets, but
// schema tools and ORMs list only tables of engines they know (InnoDB,
// MyISAM, TokuDB) and treat the DEFAULT engine as "no ENGINE option", so
// lancecat reports MySQL 8's default engine.
const Engine = "InnoDB"

// Charset and Collation are what lancecat stores text as and compares it
// by: UTF-8, byte by byte.
const (
	Charset   = "utf8mb4"
	Collation = "utf8mb4_bin"
)

// staticRows are the rows of the static views.
var staticRows = map[string][][]any{
	"collations": {
		{"utf8mb4_bin", "utf8mb4", int64(46), "Yes", "Yes", int64(1), "PAD SPACE"},
		{"utf8mb4_0900_bin", "utf8mb4", int64(309), "", "Yes", int64(1), "NO PAD"},
		{"utf8mb3_bin", "utf8mb3", int64(83), "Yes", "Yes", int64(1), "PAD SPACE"},
	},
	"character_sets": {
		{"utf8mb4", "utf8mb4_bin", "UTF-8 Unicode", int64(4)},
		{"utf8mb3", "utf8mb3_bin", "UTF-8 Unicode", int64(3)},
	},
	"engines": {
		{Engine, "DEFAULT", "lancecat: every table is a Lance dataset", "NO", "NO", "NO"},
	},
}

func (v *infoView) plainColumns() []Column {
	out := make([]Column, len(v.columns))
	for i, c := range v.columns {
		out[i] = c.Column
	}
	return out
}

// selectPlan is a planned SELECT over an information_schema view (or with
// no FROM clause: one row with no columns): the view's rows, listed from
// the catalog with the pushed-down conditions, feed the shared
// selectPipeline.
type selectPlan struct {
	selectPipeline           // over the view's columns
	view           *infoView // nil: SELECT without FROM or over a derived table
	derived        *derivedTable
	// Push-down: nil means "all"; an empty non-nil slice means "none".
	namespaces []catalog.Ident
	names      []string
	// namePrefix: a conjunct TABLE_NAME LIKE 'prefix%' (listings of known
	// namespaces search the object_id BTREE for it).
	namePrefix string
	level      describeLevel
	// manifestRead is how the catalog reads `__manifest` for the scan
	// (set for EXPLAIN by explainReads).
	manifestRead string
	// columnKeys: the query reads COLUMN_KEY of information_schema.columns,
	// whose MUL needs each table's index list (its dataset's manifest).
	columnKeys bool
	// autoIncrement: the query reads AUTO_INCREMENT of information_schema.tables,
	// which reads each table's counter (autoinc.go).
	autoIncrement bool
}

func notSupportedSelect(what string) error {
	return errorf(catalog.CodeUnsupported, "not supported: %s", what)
}

// checkSelectShape refuses the query forms no SELECT pipeline runs.
func checkSelectShape(st *sqlparse.Select) error {
	switch {
	case len(st.SetOps) > 0:
		return notSupportedSelect("set operations (UNION, EXCEPT, INTERSECT)")
	case st.Distinct:
		return notSupportedSelect("SELECT DISTINCT")
	}
	return nil
}

func (s *Session) planSelect(ctx context.Context, st *sqlparse.Select) (*selectPlan, error) {
	p := &selectPlan{selectPipeline: s.newPipeline("a SELECT without FROM")}
	if st.From != nil {
		ts, err := singleTable(st.From)
		if err != nil {
			return nil, err
		}
		if ts.Subquery != nil {
			if p.derived, err = s.planDerived(ctx, ts); err != nil {
				return nil, err
			}
			if st.Distinct {
				st = distinctAll(st, p.derived.cols)
			}
			p.env = newRowEnv(p.derived.cols)
			p.source = "the derived table " + sqlparse.QuoteIdent(ts.Alias)
		} else {
			name := ts.Table
			if len(name) == 2 && strings.EqualFold(name[0], "information_schema") {
				if v, ok := infoViews[strings.ToLower(name[1])]; ok {
					p.view = v
				}
			}
			if p.view == nil {
				if len(name) >= 2 && strings.EqualFold(name[0], "information_schema") {
					return nil, errorf(catalog.CodeUnsupported, "not supported: information_schema.%s (views: %s)", strings.ToLower(name[len(name)-1]), infoViewList())
				}
				return nil, errorf(catalog.CodeUnsupported, "not supported: SELECT from table data (%s); only information_schema.schemata, .tables and .columns can be queried yet", name)
			}
			p.env = newRowEnv(p.view.plainColumns())
			p.level = p.view.minLevel
			p.source = "information_schema." + p.view.name
		}
	} else {
		p.env = newRowEnv(nil)
	}
	if err := checkSelectShape(st); err != nil {
		return nil, err
	}
	p.env.session = s
	p.env.subq = s.subq
	// Fields.
	used := map[string]bool{}
	if hasAggregates(st) && !loneCount(st, false) {
		if err := p.planGrouped(s, st, used); err != nil {
			return nil, err
		}
		return p, nil
	}
	for _, f := range st.Items {
		if f.Star {
			if p.derived != nil {
				for _, c := range p.derived.cols {
					p.fields = append(p.fields, selectField{col: c, expr: &sqlparse.ColumnRef{Column: c.Name}})
					p.outCols = append(p.outCols, c)
				}
				continue
			}
			if p.view == nil {
				return nil, errorf(catalog.CodeInvalidInput, "SELECT * needs a FROM clause")
			}
			for _, c := range p.view.columns {
				p.fields = append(p.fields, selectField{col: c.Column, expr: &sqlparse.ColumnRef{Column: c.Name}})
				p.outCols = append(p.outCols, c.Column)
				used[strings.ToLower(c.Name)] = true
			}
			continue
		}
		if agg, ok := f.Expr.(*sqlparse.FuncCall); ok && agg.Aggregate {
			// loneCount(st, false): the only item, COUNT(*).
			p.countStar = true
			label := f.Alias
			if label == "" {
				label = fieldText(f)
			}
			p.outCols = append(p.outCols, bigint(label))
			continue
		}
		col, err := p.fieldColumn(f)
		if err != nil {
			return nil, err
		}
		p.fields = append(p.fields, selectField{col: col, expr: f.Expr})
		p.outCols = append(p.outCols, col)
		markColumns(f.Expr, used, p.env)
	}
	if st.Where != nil {
		if p.view == nil && p.derived == nil {
			return nil, notSupportedSelect("WHERE without FROM")
		}
		p.where = st.Where
		if err := p.env.check(st.Where); err != nil {
			return nil, err
		}
		markColumns(st.Where, used, p.env)
		if p.view != nil {
			p.pushDown(st.Where)
		}
	}
	for _, item := range st.OrderBy {
		e := item.Expr
		// ORDER BY <alias> or ORDER BY <position>.
		if ref, ok := e.(*sqlparse.ColumnRef); ok {
			for _, f := range p.fields {
				if strings.EqualFold(f.col.Name, ref.Column) && f.expr != nil {
					e = f.expr
					break
				}
			}
		} else if pos, ok := e.(*sqlparse.ColumnPosition); ok {
			if pos.N < 1 || pos.N > len(p.fields) || p.fields[pos.N-1].expr == nil {
				return nil, errorf(catalog.CodeInvalidInput, "ORDER BY position %d is out of range", pos.N)
			}
			e = p.fields[pos.N-1].expr
		}
		if err := p.env.check(e); err != nil {
			return nil, err
		}
		markColumns(e, used, p.env)
		p.order = append(p.order, orderKey{expr: e, desc: item.Desc})
	}
	if st.Limit != nil {
		var err error
		if p.limit, err = limitValue(st.Limit.Count); err != nil {
			return nil, err
		}
		if st.Limit.Offset != nil {
			if p.offset, err = limitValue(st.Limit.Offset); err != nil {
				return nil, err
			}
		}
	}
	if p.view != nil {
		for _, c := range p.view.columns {
			if used[strings.ToLower(c.Name)] && c.level > p.level {
				p.level = c.level
			}
		}
	}
	p.columnKeys = p.view != nil && p.view.name == "columns" && used["column_key"]
	p.autoIncrement = p.view != nil && p.view.name == "tables" && used["auto_increment"]
	return p, nil
}

// planGrouped plans an aggregating query over a view (aggregate.go):
// WHERE (pushed down where it can be) on the view's rows, then the
// aggregation stage.
func (p *selectPlan) planGrouped(s *Session, st *sqlparse.Select, used map[string]bool) error {
	mark := func(e sqlparse.Expr) { markColumns(e, used, p.env) }
	if st.Where != nil {
		if p.view == nil && p.derived == nil {
			return notSupportedSelect("WHERE without FROM")
		}
		if containsAggregate(st.Where) {
			return errorf(catalog.CodeInvalidInput, "invalid use of an aggregate function in WHERE (%s); filter groups with HAVING", st.Where)
		}
		if err := p.env.check(st.Where); err != nil {
			return err
		}
		p.where = st.Where
		mark(st.Where)
		if p.view != nil {
			p.pushDown(st.Where)
		}
	}
	post := s.newPipeline(p.source)
	if err := setLimit(&post, st.Limit); err != nil {
		return err
	}
	agg, err := planAggregate(p.env, st, post, mark)
	if err != nil {
		return err
	}
	p.agg = agg
	p.outCols = agg.post.outCols
	if p.view != nil {
		for _, c := range p.view.columns {
			if used[strings.ToLower(c.Name)] && c.level > p.level {
				p.level = c.level
			}
		}
	}
	p.columnKeys = p.view != nil && p.view.name == "columns" && used["column_key"]
	p.autoIncrement = p.view != nil && p.view.name == "tables" && used["auto_increment"]
	return nil
}

// setLimit sets a pipeline's LIMIT and OFFSET from the query's clause
// (nil: none).
func setLimit(p *selectPipeline, l *sqlparse.Limit) error {
	if l == nil {
		return nil
	}
	var err error
	if p.limit, err = limitValue(l.Count); err != nil {
		return err
	}
	if l.Offset != nil {
		p.offset, err = limitValue(l.Offset)
	}
	return err
}

func limitValue(e sqlparse.Expr) (int64, error) {
	if l, ok := e.(*sqlparse.Literal); ok {
		switch v := l.Value.(type) {
		case int64:
			if v >= 0 {
				return v, nil
			}
		case uint64:
			if v <= 1<<62 {
				return int64(v), nil
			}
		}
	}
	return 0, errorf(catalog.CodeInvalidInput, "LIMIT and OFFSET must be non-negative integers")
}

// fieldText is the label of an unaliased select item: its text as written.
func fieldText(f sqlparse.SelectItem) string {
	// A column reference is labelled with the column's name, without its
	// qualifier or backquotes, as MySQL labels `t`.`name` "name".
	if ref, ok := f.Expr.(*sqlparse.ColumnRef); ok && ref.Column != "" {
		return ref.Column
	}
	if t := strings.TrimSpace(f.Text); t != "" {
		return t
	}
	if f.Expr != nil {
		return f.Expr.String()
	}
	return "?"
}

func (p *selectPlan) fieldColumn(f sqlparse.SelectItem) (Column, error) {
	label := f.Alias
	if ref, ok := f.Expr.(*sqlparse.ColumnRef); ok {
		i, err := p.env.column(ref)
		if err != nil {
			return Column{}, err
		}
		c := p.env.cols[i]
		if label != "" {
			c.Name = label
		}
		return c, nil
	}
	if label == "" {
		label = fieldText(f)
	}
	if c, ok := p.env.subqueryColumn(f.Expr, label); ok {
		return c, nil
	}
	// The type of a computed field: from its value on an all-NULL row when
	// it is a literal, else VARCHAR.
	if err := p.env.check(f.Expr); err != nil {
		return Column{}, err
	}
	if p.env.hasSubquery(f.Expr) {
		return exprColumn(p.env, f.Expr, label), nil // typed without running it
	}
	if fc, ok := sqlparse.StripParens(f.Expr).(*sqlparse.FuncCall); ok && isLockFunction(fc.Name) {
		if strings.EqualFold(fc.Name, "is_used_lock") {
			return varcharNull(label), nil
		}
		return Column{Name: label, DatabaseType: "BIGINT", Nullable: true}, nil
	}
	if fc, ok := sqlparse.StripParens(f.Expr).(*sqlparse.FuncCall); ok && !fc.Aggregate {
		if c, ok := funcColumn(p.env, fc, label); ok {
			return c, nil // the function registry's result type
		}
	}
	// Evaluated as when checking: functions with side effects (GET_LOCK)
	// do not run.
	p.env.checking = true
	v, _ := p.env.eval(f.Expr, make([]any, len(p.env.cols)))
	p.env.checking = false
	switch x := v.(type) {
	case int64, bool:
		return Column{Name: label, DatabaseType: "BIGINT", Nullable: true}, nil
	case uint64:
		return Column{Name: label, DatabaseType: "BIGINT UNSIGNED", Nullable: true}, nil
	case float64:
		return Column{Name: label, DatabaseType: "DOUBLE", Nullable: true}, nil
	case sqltypes.Decimal:
		return Column{Name: label, DatabaseType: decimalTypeOf(x), Nullable: true}, nil
	}
	return varcharNull(label), nil
}

func markColumns(e sqlparse.Expr, used map[string]bool, env *rowEnv) {
	env.columnRefs(e, func(ref *sqlparse.ColumnRef) bool {
		if i, err := env.column(ref); err == nil {
			used[strings.ToLower(env.cols[i].Name)] = true
		}
		return true
	})
}

// singleTable returns the one table or derived table a query reads,
// refusing joins.
func singleTable(from sqlparse.FromItem) (*sqlparse.TableSource, error) {
	ts, ok := from.(*sqlparse.TableSource)
	if !ok {
		return nil, notSupportedSelect("joins")
	}
	return ts, nil
}

// pushDown finds conjuncts of where that restrict the namespace or table
// name column to literal values (col = 'v', 'v' = col, col IN ('a', 'b'))
// and turns them into direct catalog lookups. The full WHERE is still
// evaluated on every row produced, so push-down never changes the result.
func (p *selectPlan) pushDown(where sqlparse.Expr) {
	for _, c := range conjuncts(where) {
		if prefix, ok := p.namePrefixOf(c); ok {
			if p.namePrefix == "" || strings.HasPrefix(prefix, p.namePrefix) {
				p.namePrefix = prefix // the longer of two nested prefixes
			}
			continue
		}
		col, vals, ok := p.equalityOn(c)
		if !ok {
			continue
		}
		switch {
		case strings.EqualFold(col, p.view.schemaCol):
			var ids []catalog.Ident
			for _, v := range vals {
				if id, ok := splitDisplayName(v); ok {
					ids = append(ids, id)
				}
			}
			if ids == nil {
				ids = []catalog.Ident{}
			}
			p.namespaces = intersectIdents(p.namespaces, ids)
		case p.view.nameCol != "" && strings.EqualFold(col, p.view.nameCol):
			p.names = intersectStrings(p.names, vals)
		}
	}
}

// namePrefixOf recognizes TABLE_NAME LIKE 'prefix%' (case-sensitive, as
// the BTREE compares bytes).
func (p *selectPlan) namePrefixOf(e sqlparse.Expr) (string, bool) {
	l, ok := sqlparse.StripParens(e).(*sqlparse.Like)
	if !ok || l.Not || l.CaseInsensitive || p.view.nameCol == "" {
		return "", false
	}
	col, ok := p.columnOf(l.X)
	if !ok || !strings.EqualFold(col, p.view.nameCol) {
		return "", false
	}
	pat, ok := stringLiteral(l.Pattern)
	if !ok {
		return "", false
	}
	return likePrefix(pat, l.Escape)
}

// conjuncts splits a condition into its top-level AND operands.
func conjuncts(e sqlparse.Expr) []sqlparse.Expr {
	switch n := e.(type) {
	case *sqlparse.Paren:
		return conjuncts(n.X)
	case *sqlparse.Binary:
		if n.Op == sqlparse.OpAnd {
			return append(conjuncts(n.L), conjuncts(n.R)...)
		}
	}
	return []sqlparse.Expr{e}
}

func stringLiteral(e sqlparse.Expr) (string, bool) {
	l, ok := sqlparse.StripParens(e).(*sqlparse.Literal)
	if !ok {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

func (p *selectPlan) columnOf(e sqlparse.Expr) (string, bool) {
	ref, ok := sqlparse.StripParens(e).(*sqlparse.ColumnRef)
	if !ok {
		return "", false
	}
	i, err := p.env.column(ref)
	if err != nil {
		return "", false
	}
	return p.env.cols[i].Name, true
}

func (p *selectPlan) equalityOn(e sqlparse.Expr) (string, []string, bool) {
	switch n := sqlparse.StripParens(e).(type) {
	case *sqlparse.Binary:
		if n.Op != sqlparse.OpEQ {
			return "", nil, false
		}
		if col, ok := p.columnOf(n.L); ok {
			if v, ok := stringLiteral(n.R); ok {
				return col, []string{v}, true
			}
		}
		if col, ok := p.columnOf(n.R); ok {
			if v, ok := stringLiteral(n.L); ok {
				return col, []string{v}, true
			}
		}
	case *sqlparse.InList:
		if n.Not || n.Subquery != nil {
			return "", nil, false
		}
		col, ok := p.columnOf(n.X)
		if !ok {
			return "", nil, false
		}
		vals := []string{}
		for _, item := range n.List {
			v, ok := stringLiteral(item)
			if !ok {
				return "", nil, false
			}
			vals = append(vals, v)
		}
		return col, vals, true
	}
	return "", nil, false
}

func intersectIdents(have, add []catalog.Ident) []catalog.Ident {
	if have == nil {
		return dedupIdents(add)
	}
	out := []catalog.Ident{}
	for _, h := range have {
		for _, a := range add {
			if identEqual(h, a) {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

func dedupIdents(ids []catalog.Ident) []catalog.Ident {
	seen := map[string]bool{}
	out := []catalog.Ident{}
	for _, id := range ids {
		k := strings.Join(id, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, id)
		}
	}
	return out
}

func intersectStrings(have, add []string) []string {
	set := map[string]bool{}
	for _, a := range add {
		set[a] = true
	}
	out := []string{}
	if have == nil {
		for _, a := range add {
			if set[a] {
				out = append(out, a)
				delete(set, a)
			}
		}
		return out
	}
	for _, h := range have {
		if set[h] {
			out = append(out, h)
		}
	}
	return out
}

func (p *selectPlan) scanDescription() string {
	v := p.view
	var b strings.Builder
	b.WriteString("CatalogScan information_schema." + v.name + ": ")
	nsPart := func() string {
		if p.namespaces == nil {
			return ""
		}
		var ns []string
		for _, id := range p.namespaces {
			ns = append(ns, quoteString(displayName(id)))
		}
		return "[" + strings.Join(ns, ", ") + "]"
	}
	switch {
	case v.name == "schemata" && p.namespaces == nil:
		b.WriteString("list namespaces recursively from the root")
	case v.name == "schemata":
		b.WriteString("look up namespaces " + nsPart())
	case p.namespaces != nil && p.names != nil:
		var ns []string
		for _, n := range p.names {
			ns = append(ns, quoteString(n))
		}
		b.WriteString("look up tables " + strings.Join(ns, ", ") + " in namespaces " + nsPart())
	case p.namespaces != nil && p.namePrefix != "":
		b.WriteString("list tables of namespaces " + nsPart() + " with names starting " + quoteString(p.namePrefix))
	case p.namespaces != nil:
		b.WriteString("list tables of namespaces " + nsPart())
	case p.names != nil:
		var ns []string
		for _, n := range p.names {
			ns = append(ns, quoteString(n))
		}
		b.WriteString("list all tables, keep names " + strings.Join(ns, ", "))
	default:
		b.WriteString("list all tables")
	}
	switch p.level {
	case describeNone:
		b.WriteString("; no per-object describe")
	case describeMetadata:
		b.WriteString("; describe each (catalog entry only)")
	default:
		b.WriteString("; describe each (catalog entry and dataset)")
	}
	if p.manifestRead != "" {
		b.WriteString("; __manifest read: " + p.manifestRead)
	}
	return b.String()
}

// explainReads asks the catalog how the scan's reads of `__manifest` would
// be answered (the index searched, or a scan), for EXPLAIN: the lookups
// by full name, else the listings. Distinct answers are joined by " | ".
func (p *selectPlan) explainReads(ctx context.Context, s *Session) error {
	if p.view == nil {
		return nil
	}
	var plans []catalog.ReadPlan
	add := func(rp catalog.ReadPlan, err error) error {
		if err != nil {
			return err
		}
		plans = append(plans, rp)
		return nil
	}
	switch {
	case p.view.name == "schemata" && p.namespaces == nil:
		// The walk lists the children of every namespace; the root's
		// listing stands for them.
		if err := add(s.cat.ExplainListNamespaces(ctx, catalog.Ident{})); err != nil {
			return err
		}
	case p.view.name == "schemata":
		for _, ns := range p.namespaces {
			if len(ns) > 0 {
				if err := add(s.cat.ExplainLookup(ctx, ns)); err != nil {
					return err
				}
			}
		}
	case p.namespaces != nil && p.names != nil:
		for _, ns := range p.namespaces {
			for _, n := range p.names {
				if err := add(s.cat.ExplainLookup(ctx, ns.Child(n))); err != nil {
					return err
				}
			}
		}
	case p.namespaces != nil:
		for _, ns := range p.namespaces {
			if err := add(s.cat.ExplainListTables(ctx, ns, catalog.ListTablesOptions{NamePrefix: p.namePrefix})); err != nil {
				return err
			}
		}
	default:
		if err := add(s.cat.ExplainListAllTables(ctx)); err != nil {
			return err
		}
	}
	var parts []string
	for _, rp := range plans {
		if t := rp.String(); !slices.Contains(parts, t) {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	p.manifestRead = strings.Join(parts, " | ")
	return nil
}

func (s *Session) explain(ctx context.Context, st *sqlparse.Explain) (*Result, error) {
	if st.Analyze {
		return nil, errorf(catalog.CodeUnsupported, "not supported: EXPLAIN ANALYZE")
	}
	switch st.Stmt.(type) {
	case *sqlparse.Delete, *sqlparse.Update:
		return s.explainDML(ctx, st.Stmt)
	}
	sel, ok := st.Stmt.(*sqlparse.Select)
	if !ok {
		lines, err := s.explainShow(ctx, st.Stmt)
		if err != nil {
			return nil, err
		}
		var rows [][]any
		for _, l := range lines {
			rows = append(rows, []any{l})
		}
		return rowsResult([]Column{varchar("plan")}, rows), nil
	}
	p, err := s.planQuery(ctx, sel)
	if err != nil {
		return nil, err
	}
	lines, err := s.explainPlan(ctx, p, s.subq, sel, 0)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, l := range lines {
		// Filters quote literals, and a literal may be a URL with a SAS signature.
		rows = append(rows, []any{storage.Redact(l)})
	}
	return rowsResult([]Column{varchar("plan")}, rows), nil
}

func compareNullsFirst(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return compare(a, b)
}

// propertiesJSON renders properties (or field metadata) as the JSON object
// information_schema shows, with secrets redacted by storage's one rule.
func propertiesJSON(props map[string]string) any {
	if len(props) == 0 {
		return nil
	}
	b, err := json.Marshal(storage.RedactOptions(props)) // map keys are sorted
	if err != nil {
		return nil
	}
	return string(b)
}

// propOrNull is a property's displayed value (secrets redacted), NULL when
// it is not set.
func propOrNull(props map[string]string, k string) any {
	if v, ok := props[k]; ok {
		return storage.RedactProperty(k, v)
	}
	return nil
}

// scan produces the view's rows for the pushed-down namespaces and names.
func (p *selectPlan) scan(ctx context.Context, s *Session) ([][]any, error) {
	if p.view.name == "schemata" {
		return p.scanSchemata(ctx, s)
	}
	if p.view.static {
		return staticRows[p.view.name], nil
	}
	ids, err := p.tableIdents(ctx, s)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		schema := schemaName(id.Namespace())
		var d catalog.TableDescription
		if p.level > describeNone {
			d, err = s.cat.DescribeTable(ctx, id, catalog.DescribeTableOptions{MetadataOnly: p.level < describeFull})
			if err != nil {
				if catalogCode(err) == catalog.CodeTableNotFound {
					continue // dropped meanwhile, or a pushed-down name that does not exist
				}
				return nil, err
			}
		}
		switch p.view.name {
		case "table_versions", "table_tags":
			more, err := s.lifecycleViewRows(ctx, p.view.name, id, schema)
			if err != nil {
				return nil, err
			}
			rows = append(rows, more...)
		case "tables":
			var nrows, version any
			if p.level == describeFull && !d.DeclaredOnly {
				nrows, version = d.RowCount, int64(d.Version)
			}
			var autoInc any
			if p.autoIncrement && p.level == describeFull && !d.DeclaredOnly && d.Schema != nil {
				if autoInc, err = s.nextAutoIncrement(ctx, id, d.Schema); err != nil {
					return nil, err
				}
			}
			rows = append(rows, []any{"def", schema, id.Name(), "BASE TABLE", Engine, nrows, autoInc, Collation, "", version,
				storage.Redact(d.URI), yesNo(d.DeclaredOnly), propOrNull(d.Properties, CommentKey), propertiesJSON(d.Properties)})
		case "statistics":
			idx, err := s.indexRows(ctx, id, d)
			if err != nil {
				return nil, err
			}
			// PRIMARY's INDEX_TYPE is BTREE and its INDEX_COMMENT empty, as
			// MySQL's (SHOW INDEX says it is Lance's unenforced key), so
			// that a schema tool inspecting the key it declared finds it
			// unchanged.
			for _, r := range idx {
				typ, comment := r[6], r[7]
				indexComment := ""
				if r[2] == "PRIMARY" {
					typ = "BTREE"
				}
				rows = append(rows, []any{"def", schema, id.Name(), r[1], schema, r[2], r[3], r[4], "A", nil, nil, nil, r[5], typ, comment, indexComment, "YES", nil})
			}
		case "key_column_usage":
			if d.Schema == nil {
				continue
			}
			// The unenforced primary key Lance records, then each UNIQUE
			// column lancecat's writes enforce (one-column constraints).
			for i, name := range primaryKeyOf(d.Schema) {
				rows = append(rows, []any{"def", schema, "PRIMARY", "def", schema, id.Name(), name, int64(i + 1), nil, nil, nil, nil})
			}
			for _, f := range d.Schema.Fields() {
				if isUnique(f) {
					cname := uniqueIndexName(f)
					if cname == "" {
						cname = f.Name
					}
					rows = append(rows, []any{"def", schema, cname, "def", schema, id.Name(), f.Name, int64(1), nil, nil, nil, nil})
				}
			}
			for _, fk := range foreignKeysOf(d.Schema) {
				for i, c := range fk.Columns {
					rows = append(rows, []any{"def", schema, fk.Name, "def", schema, id.Name(), c, int64(i + 1), int64(i + 1),
						schemaName(fk.RefSchema), fk.RefTable, fk.RefColumns[i]})
				}
			}
		case "table_constraints":
			if d.Schema == nil {
				continue
			}
			if len(primaryKeyOf(d.Schema)) > 0 {
				rows = append(rows, []any{"def", schema, "PRIMARY", schema, id.Name(), "PRIMARY KEY", "YES"})
			}
			for _, f := range d.Schema.Fields() {
				if isUnique(f) {
					cname := uniqueIndexName(f)
					if cname == "" {
						cname = f.Name
					}
					rows = append(rows, []any{"def", schema, cname, schema, id.Name(), "UNIQUE", "YES"})
				}
			}
			for _, fk := range foreignKeysOf(d.Schema) {
				rows = append(rows, []any{"def", schema, fk.Name, schema, id.Name(), "FOREIGN KEY", "NO"})
			}
		case "referential_constraints":
			for _, fk := range foreignKeysOf(d.Schema) {
				// UNIQUE_CONSTRAINT_NAME: PRIMARY when the referenced
				// columns are the referenced table's primary key.
				var unique any
				ref := catalog.Ident(fk.RefSchema).Child(fk.RefTable)
				if rd, err := s.cat.DescribeTable(ctx, ref, catalog.DescribeTableOptions{}); err == nil && rd.Schema != nil {
					if slices.Equal(primaryKeyOf(rd.Schema), fk.RefColumns) {
						unique = "PRIMARY"
					}
				}
				rows = append(rows, []any{"def", schema, fk.Name, "def", schemaName(fk.RefSchema), unique, "NONE",
					rule(fk.OnUpdate), rule(fk.OnDelete), id.Name(), fk.RefTable})
			}
		case "check_constraints":
		case "columns":
			if d.Schema == nil {
				continue
			}
			// COLUMN_KEY says PRI and UNI from the schema, MUL from the
			// table's index list, read only when the query uses COLUMN_KEY.
			var indexed map[string]bool
			if p.columnKeys {
				if indexed, err = s.indexedColumns(ctx, d); err != nil {
					return nil, err
				}
			}
			for i, f := range d.Schema.Fields() {
				comment, _ := sqltypes.FieldMeta(f, CommentKey)
				comment = storage.Redact(comment)
				// CHARACTER_MAXIMUM_LENGTH is the declared n of a
				// VARCHAR(n) (GORM's migrator compares it with the
				// model's size); other strings have no maximum (NULL).
				prec, scale := sqltypes.NumericPrecision(f.Type)
				var maxLen any
				if n, ok := sqltypes.CharLength(f); ok && f.Type.ID() == arrow.STRING {
					maxLen = n
				}
				var charset, collation any
				if isTextType(f.Type) {
					charset, collation = Charset, Collation
				}
				rows = append(rows, []any{"def", schema, id.Name(), f.Name, int64(i + 1), defaultText(f), yesNo(f.Nullable),
					sqltypes.DataTypeName(f), maxLen, prec, scale, sqltypes.DatetimePrecision(f.Type), charset, collation, columnTypeText(f),
					columnKey(f, indexed), extraText(f), comment, "", f.Type.String(), fieldMetadataJSON(f)})
			}
		}
	}
	return rows, nil
}

// tableIdents enumerates the tables the pushed-down conditions allow.
func (p *selectPlan) tableIdents(ctx context.Context, s *Session) ([]catalog.Ident, error) {
	var ids []catalog.Ident
	switch {
	case p.namespaces != nil && p.names != nil:
		for _, ns := range p.namespaces {
			for _, n := range p.names {
				id := ns.Child(n)
				if p.level == describeNone {
					ok, err := s.cat.TableExists(ctx, id)
					if err != nil {
						if c := catalogCode(err); c == catalog.CodeNamespaceNotFound || c == catalog.CodeInvalidInput {
							continue
						}
						return nil, err
					}
					if !ok {
						continue
					}
				}
				ids = append(ids, id)
			}
		}
	case p.namespaces != nil:
		for _, ns := range p.namespaces {
			page, err := s.cat.ListTables(ctx, ns, catalog.ListTablesOptions{NamePrefix: p.namePrefix})
			if err != nil {
				if catalogCode(err) == catalog.CodeNamespaceNotFound {
					continue
				}
				return nil, err
			}
			for _, n := range page.Names {
				ids = append(ids, ns.Child(n))
			}
		}
	default:
		all, err := s.cat.ListAllTables(ctx)
		if err != nil {
			return nil, err
		}
		keep := map[string]bool{}
		for _, n := range p.names {
			keep[n] = true
		}
		for _, id := range all {
			if p.names == nil || keep[id.Name()] {
				ids = append(ids, id)
			}
		}
	}
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := ids[i].Namespace(), ids[j].Namespace()
		if c := compareIdents(a, b); c != 0 {
			return c < 0
		}
		return ids[i].Name() < ids[j].Name()
	})
	return ids, nil
}

func compareIdents(a, b catalog.Ident) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func (p *selectPlan) scanSchemata(ctx context.Context, s *Session) ([][]any, error) {
	var nss []catalog.Ident
	if p.namespaces != nil {
		for _, ns := range p.namespaces {
			if p.level == describeNone && len(ns) > 0 {
				ok, err := s.cat.NamespaceExists(ctx, ns)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			nss = append(nss, ns)
		}
	} else {
		// The root (as RootSchemaName), then a breadth-first walk of the
		// namespace tree.
		nss = append(nss, catalog.Ident{})
		queue := []catalog.Ident{{}}
		for len(queue) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			parent := queue[0]
			queue = queue[1:]
			page, err := s.cat.ListNamespaces(ctx, parent, catalog.ListOptions{})
			if err != nil {
				if catalogCode(err) == catalog.CodeNamespaceNotFound {
					continue // dropped meanwhile
				}
				return nil, err
			}
			for _, n := range page.Names {
				child := parent.Child(n)
				nss = append(nss, child)
				queue = append(queue, child)
			}
		}
		sort.SliceStable(nss, func(i, j int) bool { return compareIdents(nss[i], nss[j]) < 0 })
	}
	var rows [][]any
	for _, ns := range nss {
		var comment, props any
		if p.level > describeNone {
			info, err := s.cat.DescribeNamespace(ctx, ns)
			if err != nil {
				if catalogCode(err) == catalog.CodeNamespaceNotFound {
					continue
				}
				return nil, err
			}
			comment, props = propOrNull(info.Properties, CommentKey), propertiesJSON(info.Properties)
		}
		rows = append(rows, []any{"def", schemaName(ns), Charset, Collation, nil, "NO", comment, props})
	}
	return rows, nil
}

// infoViewList names the information_schema views, sorted.
func infoViewList() string {
	names := make([]string, 0, len(infoViews))
	for n := range infoViews {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// isTextType reports whether a column holds text (it has a character set).
func isTextType(t arrow.DataType) bool {
	return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING || t.ID() == arrow.STRING_VIEW
}

// columnTypeText is information_schema.columns.COLUMN_TYPE: the type in
// lower case, as MySQL prints it ("bigint unsigned", "varchar(64)"),
// quoted names inside it (struct fields) kept as they are.
func columnTypeText(f arrow.Field) string {
	t := typeName(f)
	var b strings.Builder
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '`' || c == '\'' || c == '"':
			quote = c
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// fieldMetadataJSON renders a field's metadata as a JSON object (NULL when
// it has none): primary-key position, comment, extension type.
func fieldMetadataJSON(f arrow.Field) any {
	if f.Metadata.Len() == 0 {
		return nil
	}
	m := map[string]string{}
	for i, k := range f.Metadata.Keys() {
		m[k] = f.Metadata.Values()[i]
	}
	return propertiesJSON(m)
}

// explainShow is EXPLAIN of a SHOW statement: how it reads the catalog
// (the `__manifest` index searched, or a scan, as the catalog answers it),
// then its filter.
func (s *Session) explainShow(ctx context.Context, st sqlparse.Statement) ([]string, error) {
	var lines []string
	filter := func(f sqlparse.Filter) {
		switch {
		case f.Like != nil:
			lines = append(lines, "Filter LIKE "+quoteString(*f.Like))
		case f.Where != nil:
			lines = append(lines, "Filter "+f.Where.String())
		}
	}
	read := func(what string, rp catalog.ReadPlan, err error) error {
		if err != nil {
			return err
		}
		lines = append(lines, what+"; __manifest read: "+rp.String())
		return nil
	}
	table := func(name sqlparse.Name, what string) error {
		id, err := s.tableIdent(name)
		if err != nil {
			return err
		}
		rp, err := s.cat.ExplainLookup(ctx, id)
		return read("CatalogLookup table "+quoteString(displayName(id))+", then "+what, rp, err)
	}
	var err error
	switch n := st.(type) {
	case *sqlparse.ShowSchemas:
		filter(n.Filter)
		parent := namespaceIdent(n.Parent)
		rp, e := s.cat.ExplainListNamespaces(ctx, parent)
		err = read("CatalogList namespaces of "+quoteString(displayName(parent)), rp, e)
	case *sqlparse.ShowTables, *sqlparse.ShowTableStatus:
		var nsName sqlparse.Name
		var f sqlparse.Filter
		what := "no per-table describe"
		if t, ok := n.(*sqlparse.ShowTables); ok {
			nsName, f = t.Namespace, t.Filter
			if t.Full {
				what = "describe each (catalog entry only)"
			}
		} else {
			t := n.(*sqlparse.ShowTableStatus)
			nsName, f, what = t.Namespace, t.Filter, "describe each (catalog entry and dataset)"
		}
		ns := s.ns
		if nsName != nil {
			ns = namespaceIdent(nsName)
		}
		filter(f)
		var opts catalog.ListTablesOptions
		desc := "CatalogList tables of " + quoteString(displayName(ns))
		if f.Like != nil {
			if prefix, ok := likePrefix(*f.Like, '\\'); ok {
				opts.NamePrefix = prefix
				desc += " with names starting " + quoteString(prefix)
			}
		}
		rp, e := s.cat.ExplainListTables(ctx, ns, opts)
		err = read(desc+"; "+what, rp, e)
	case *sqlparse.ShowColumns:
		filter(n.Filter)
		err = table(n.Table, "its schema")
	case *sqlparse.ShowIndex:
		filter(n.Filter)
		err = table(n.Table, "its dataset manifest's indices")
	case *sqlparse.ShowCreateTable:
		err = table(n.Name, "its schema and indices")
	case *sqlparse.ShowCreateSchema:
		ns := namespaceIdent(n.Name)
		rp, e := s.cat.ExplainLookup(ctx, ns)
		err = read("CatalogLookup namespace "+quoteString(displayName(ns)), rp, e)
	default:
		return nil, errorf(catalog.CodeUnsupported, "not supported: EXPLAIN %s", StatementKind(st))
	}
	return lines, err
}
