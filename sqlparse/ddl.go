package sqlparse

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/types"

	"github.com/lancecat/lancecat/sqltypes"
)

// colSpan locates one column definition in the original tokens: TiDB's AST carries no positions
// for columns, and lancecat wants the type as the user spelled it (TiDB reads BOOL as TINYINT(1)).
type colSpan struct {
	name     token
	typeToks []token
}

// typeSQL renders the type as written, words upper-cased and whitespace or comments between
// tokens collapsed to one space.
func (s colSpan) typeSQL(src string) string {
	var b strings.Builder
	for i, t := range s.typeToks {
		if i > 0 && s.typeToks[i-1].spaceAfter {
			b.WriteByte(' ')
		}
		if t.kind == tkIdent {
			b.WriteString(strings.ToUpper(t.val))
		} else {
			b.WriteString(src[t.start:t.end])
		}
	}
	return b.String()
}

// splitTopLevel splits toks on commas outside parentheses.
func splitTopLevel(toks []token) [][]token {
	var out [][]token
	depth, begin := 0, 0
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case t.isPunct(",") && depth == 0:
			out = append(out, toks[begin:i])
			begin = i + 1
		}
	}
	return append(out, toks[begin:])
}

// matchParen returns the index of the ')' closing the '(' at toks[open], or -1.
func matchParen(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].isPunct("("):
			depth++
		case toks[i].isPunct(")"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

var constraintStart = map[string]bool{
	"PRIMARY": true, "KEY": true, "INDEX": true, "UNIQUE": true, "CONSTRAINT": true, "FOREIGN": true,
	"CHECK": true, "FULLTEXT": true, "SPATIAL": true, "COLUMNAR": true,
}

// columnOptionStart are words that end a column's type.
var columnOptionStart = map[string]bool{
	"NOT": true, "NULL": true, "DEFAULT": true, "COMMENT": true, "PRIMARY": true, "KEY": true,
	"UNIQUE": true, "AUTO_INCREMENT": true, "AUTO_RANDOM": true, "COLLATE": true, "GENERATED": true,
	"AS": true, "REFERENCES": true, "CHECK": true, "CONSTRAINT": true, "ON": true, "STORAGE": true,
	"COLUMN_FORMAT": true, "INVISIBLE": true, "VISIBLE": true, "SECONDARY_ENGINE_ATTRIBUTE": true,
	"SERIAL": true,
}

// columnSpans finds the column definitions among comma-separated table elements.
func columnSpans(elems [][]token) []colSpan {
	var spans []colSpan
	for _, el := range elems {
		if len(el) == 0 {
			continue
		}
		if el[0].kind == tkIdent {
			w := strings.ToUpper(el[0].val)
			if constraintStart[w] || (w == "VECTOR" && len(el) > 1 && (el[1].is("INDEX") || el[1].is("KEY"))) {
				continue
			}
		}
		s := colSpan{name: el[0]}
		depth := 0
		for k := 1; k < len(el); k++ {
			t := el[k]
			if depth == 0 && k > 1 && t.kind == tkIdent && columnOptionStart[strings.ToUpper(t.val)] {
				break
			}
			if t.isPunct("(") {
				depth++
			} else if t.isPunct(")") {
				depth--
			}
			s.typeToks = append(s.typeToks, t)
		}
		spans = append(spans, s)
	}
	return spans
}

// createTableSpans returns the column spans of a CREATE TABLE statement's tokens.
func createTableSpans(toks []token) []colSpan {
	for i, t := range toks {
		if t.isPunct("(") {
			end := matchParen(toks, i)
			if end < 0 {
				end = len(toks)
			}
			return columnSpans(splitTopLevel(toks[i+1 : end]))
		}
	}
	return nil
}

// alterSpecs splits an ALTER TABLE statement's tokens into its comma-separated alterations.
func alterSpecs(toks []token) [][]token {
	i := 0
	for i < len(toks) && !toks[i].is("TABLE") {
		i++
	}
	i++ // skip TABLE
	// skip the table name chain
	if i < len(toks) && toks[i].isNamePart() {
		for i+2 < len(toks) && toks[i+1].isPunct(".") && toks[i+2].isNamePart() {
			i += 2
		}
		i++
	}
	if i >= len(toks) {
		return nil
	}
	return splitTopLevel(toks[i:])
}

// alterAddSpans returns the column spans of the ADD COLUMN alterations, in order.
func alterAddSpans(specs [][]token) []colSpan {
	var spans []colSpan
	for _, sp := range specs {
		if len(sp) == 0 || !sp[0].is("ADD") {
			continue
		}
		k := 1
		if k < len(sp) && sp[k].is("COLUMN") {
			k++
		}
		if k+2 < len(sp) && sp[k].is("IF") && sp[k+1].is("NOT") && sp[k+2].is("EXISTS") {
			k += 3
		}
		if k < len(sp) && sp[k].isPunct("(") {
			end := matchParen(sp, k)
			if end < 0 {
				end = len(sp)
			}
			spans = append(spans, columnSpans(splitTopLevel(sp[k+1:end]))...)
			continue
		}
		spans = append(spans, columnSpans([][]token{sp[k:]})...)
	}
	return spans
}

// unknownTypeError turns a TiDB syntax error located exactly at a column's type into
// "unsupported type X".
func unknownTypeError(sc *script, toks []token, err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	var spans []colSpan
	switch {
	case len(toks) > 2 && toks[0].is("CREATE") && (toks[1].is("TABLE") || toks[2].is("TABLE")):
		spans = createTableSpans(toks)
	case len(toks) > 2 && toks[0].is("ALTER") && (toks[1].is("TABLE") || toks[2].is("TABLE")):
		spans = alterAddSpans(alterSpecs(toks))
	}
	for _, s := range spans {
		if len(s.typeToks) > 0 && s.typeToks[0].start == e.Pos.Offset {
			return sc.errAt(e.Pos.Offset, ErrNotSupported, "unsupported type "+s.typeSQL(sc.src))
		}
	}
	return err
}

var columnOptionNames = map[ast.ColumnOptionType]string{
	ast.ColumnOptionAutoIncrement: "AUTO_INCREMENT", ast.ColumnOptionDefaultValue: "DEFAULT",
	ast.ColumnOptionUniqKey: "UNIQUE", ast.ColumnOptionOnUpdate: "ON UPDATE",
	ast.ColumnOptionFulltext: "FULLTEXT", ast.ColumnOptionGenerated: "GENERATED / AS",
	ast.ColumnOptionReference: "REFERENCES", ast.ColumnOptionCollate: "COLLATE",
	ast.ColumnOptionCheck: "CHECK", ast.ColumnOptionColumnFormat: "COLUMN_FORMAT",
	ast.ColumnOptionStorage: "STORAGE", ast.ColumnOptionAutoRandom: "AUTO_RANDOM",
	ast.ColumnOptionSecondaryEngineAttribute: "SECONDARY_ENGINE_ATTRIBUTE",
}

// columnDef converts one TiDB column definition; span may be nil when it could not be located.
func (c *converter) columnDef(def *ast.ColumnDef, span *colSpan) (ColumnDef, error) {
	at := c.start()
	if span != nil {
		at = span.name.start
	}
	cd := ColumnDef{Name: def.Name.Name.O, Nullable: true, Pos: c.sc.pos(at)}
	if cd.Name == "" {
		return cd, c.sc.errAt(at, ErrSyntax, "empty column name")
	}
	typ, err := c.columnType(def.Tp, span, at)
	if err != nil {
		return cd, err
	}
	cd.Type = typ
	sawNull, sawNotNull := false, false
	for _, opt := range def.Options {
		switch opt.Tp {
		case ast.ColumnOptionNotNull:
			sawNotNull = true
			cd.Nullable = false
		case ast.ColumnOptionNull:
			sawNull = true
		case ast.ColumnOptionPrimaryKey:
			cd.PrimaryKey = true
			cd.Nullable = false
		case ast.ColumnOptionAutoIncrement:
			if cd.Type.Kind != sqltypes.KindInt && cd.Type.Kind != sqltypes.KindUint {
				return cd, c.sc.errAt(at, ErrSyntax, fmt.Sprintf("AUTO_INCREMENT column %s must have an integer type, not %s", cd.Name, cd.Type.SQL))
			}
			cd.AutoIncrement = true
		case ast.ColumnOptionDefaultValue:
			d, err := defaultOf(opt.Expr)
			if err != nil {
				return cd, c.notSupported(at, "DEFAULT of column %s: %v (a literal or CURRENT_TIMESTAMP)", cd.Name, err)
			}
			if d.CurrentTimestamp && cd.Type.Kind != sqltypes.KindDatetime && cd.Type.Kind != sqltypes.KindTimestamp {
				return cd, c.sc.errAt(at, ErrSyntax, fmt.Sprintf("DEFAULT CURRENT_TIMESTAMP needs a DATETIME or TIMESTAMP column; %s is %s", cd.Name, cd.Type.SQL))
			}
			cd.Default = &d
		case ast.ColumnOptionUniqKey:
			cd.Unique = true
		case ast.ColumnOptionCollate:
			// A binary UTF-8 collation says what lancecat does with text
			// anyway; others would compare differently and are refused.
			if _, ok := binaryCollations[strings.ToLower(opt.StrValue)]; !ok {
				return cd, c.notSupported(at, "COLLATE %s for column %s (lancecat compares text byte by byte: use utf8mb4_bin)", opt.StrValue, cd.Name)
			}
		case ast.ColumnOptionComment:
			v, err := literalValue(opt.Expr)
			s, ok := v.(string)
			if err != nil || !ok {
				return cd, c.sc.errAt(at, ErrSyntax, fmt.Sprintf("COMMENT of column %s must be a string", cd.Name))
			}
			cd.Comment = &s
		default:
			name, ok := columnOptionNames[opt.Tp]
			if !ok {
				name = "option"
			}
			return cd, c.notSupported(at, "column %s for column %s", name, cd.Name)
		}
	}
	if cd.AutoIncrement && cd.Default != nil {
		return cd, c.sc.errAt(at, ErrSyntax, fmt.Sprintf("AUTO_INCREMENT column %s cannot have a DEFAULT", cd.Name))
	}
	if sawNull && (sawNotNull || cd.PrimaryKey) {
		return cd, c.sc.errAt(at, ErrSyntax, fmt.Sprintf("column %s is declared both NULL and NOT NULL", cd.Name))
	}
	return cd, nil
}

// columnType reads a TiDB field type as a sqltypes.Decl and resolves it
// (sqltypes.Resolve holds the mapping and its precision rules).
func (c *converter) columnType(ft *types.FieldType, span *colSpan, at int) (sqltypes.Type, error) {
	d := sqltypes.Decl{Unsigned: mysql.HasUnsignedFlag(ft.GetFlag()), Length: ft.GetFlen(), Decimals: ft.GetDecimal()}
	first := ""
	if span != nil && len(span.typeToks) > 0 {
		d.SQL = span.typeSQL(c.sc.src)
		first = strings.ToUpper(span.typeToks[0].val)
		at = span.typeToks[0].start
	} else {
		d.SQL = strings.ToUpper(ft.CompactStr())
	}
	binary := ft.GetCharset() == "binary"
	switch cs := strings.ToLower(ft.GetCharset()); cs {
	case "", "binary", "utf8mb4", "utf8", "utf8mb3":
	default:
		return sqltypes.Type{}, c.notSupported(at, "CHARACTER SET %s (lancecat text is UTF-8: use utf8mb4)", ft.GetCharset())
	}
	switch ft.GetType() {
	case mysql.TypeTiny:
		d.Base = sqltypes.BaseTinyInt
		if first == "BOOL" || first == "BOOLEAN" {
			d.Base = sqltypes.BaseBool
		}
	case mysql.TypeShort:
		d.Base = sqltypes.BaseSmallInt
	case mysql.TypeInt24, mysql.TypeLong:
		d.Base = sqltypes.BaseInt
	case mysql.TypeLonglong:
		// SERIAL is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE: TiDB sets the
		// flag and adds the options.
		d.Base = sqltypes.BaseBigInt
	case mysql.TypeFloat:
		d.Base = sqltypes.BaseFloat
	case mysql.TypeDouble:
		d.Base = sqltypes.BaseDouble
	case mysql.TypeNewDecimal:
		d.Base = sqltypes.BaseDecimal
	case mysql.TypeString, mysql.TypeVarchar, mysql.TypeVarString:
		d.Base = sqltypes.BaseChar
	case mysql.TypeTinyBlob, mysql.TypeBlob, mysql.TypeMediumBlob, mysql.TypeLongBlob:
		d.Base = sqltypes.BaseText
	case mysql.TypeDate:
		d.Base = sqltypes.BaseDate
	case mysql.TypeDuration:
		d.Base = sqltypes.BaseTime
	case mysql.TypeDatetime:
		d.Base = sqltypes.BaseDatetime
	case mysql.TypeTimestamp:
		d.Base = sqltypes.BaseTimestamp
	case mysql.TypeJSON:
		d.Base = sqltypes.BaseJSON
	case mysql.TypeTiDBVectorFloat32:
		d.Base = sqltypes.BaseVector
		if first == "MULTIVECTOR" {
			d.Base = sqltypes.BaseMultiVector // rewriteForTiDB handed TiDB VECTOR(n)
		} else if span == nil && slices.ContainsFunc(c.toks, func(t token) bool { return t.is("MULTIVECTOR") }) {
			// without the column's tokens a MULTIVECTOR would pass as a VECTOR
			return sqltypes.Type{}, c.notSupported(at, "MULTIVECTOR in this statement (declare it in a column list)")
		}
	}
	if binary && (d.Base == sqltypes.BaseChar || d.Base == sqltypes.BaseText) {
		d.Base = sqltypes.BaseBinary
	}
	t, err := sqltypes.Resolve(d)
	switch {
	case err == nil:
		return t, nil
	case errors.Is(err, sqltypes.ErrInvalidType):
		return t, c.sc.errAt(at, ErrSyntax, err.Error())
	case errors.Is(err, sqltypes.ErrTypeLimit):
		return t, c.sc.errAt(at, ErrLimit, err.Error())
	}
	return t, c.sc.errAt(at, ErrNotSupported, err.Error())
}

func (c *converter) convertCreateTable(n *ast.CreateTableStmt) (Statement, error) {
	st := &CreateTable{stmtBase: c.base, IfNotExists: n.IfNotExists, Name: c.names.Table(n.Table)}
	switch {
	case n.TemporaryKeyword != ast.TemporaryNone:
		return nil, c.notSupported(c.start(), "temporary tables")
	case n.Select != nil && n.OnDuplicate != ast.OnDuplicateKeyHandlingError:
		return nil, c.notSupported(c.start(), "CREATE TABLE ... IGNORE | REPLACE SELECT")
	case n.Partition != nil:
		return nil, c.notSupported(c.start(), "partitioned tables")
	case len(n.SplitIndex) > 0:
		return nil, c.notSupported(c.start(), "SPLIT options")
	}
	if n.ReferTable != nil {
		st.Like = c.names.Table(n.ReferTable)
		return st, nil
	}
	if n.Select != nil {
		q, err := c.resultSet(n.Select, stmtBase{pos: c.base.pos})
		if err != nil {
			return nil, err
		}
		st.Query = q
	}
	spans := createTableSpans(c.toks)
	if len(spans) != len(n.Cols) {
		spans = nil
	}
	seen := map[string]bool{}
	for i, def := range n.Cols {
		var span *colSpan
		if spans != nil {
			span = &spans[i]
		}
		cd, err := c.columnDef(def, span)
		if err != nil {
			return nil, err
		}
		key := strings.ToLower(cd.Name)
		if seen[key] {
			return nil, c.sc.errAt(cd.Pos.Offset, ErrSyntax, "duplicate column name "+QuoteIdent(cd.Name))
		}
		seen[key] = true
		if cd.PrimaryKey {
			if st.PrimaryKey != nil {
				return nil, c.sc.errAt(cd.Pos.Offset, ErrSyntax, "multiple primary keys defined")
			}
			st.PrimaryKey = []string{cd.Name}
		}
		st.Columns = append(st.Columns, cd)
	}
	for _, cd := range st.Columns {
		if cd.Unique {
			st.Indexes = append(st.Indexes, IndexDef{Name: cd.Name, Column: cd.Name, Unique: true})
		}
	}
	for _, con := range n.Constraints {
		if con.Tp == ast.ConstraintForeignKey {
			fk, err := c.foreignKey(con, st.Columns)
			if err != nil {
				return nil, err
			}
			st.ForeignKeys = append(st.ForeignKeys, fk)
			continue
		}
		if con.Tp != ast.ConstraintPrimaryKey {
			cols := st.Columns
			if st.Query != nil {
				cols = nil // CREATE TABLE ... SELECT: the query's columns count too; the planner checks
			}
			def, err := c.indexConstraint(con, cols)
			if err != nil {
				return nil, err
			}
			st.Indexes = append(st.Indexes, def)
			continue
		}
		if st.PrimaryKey != nil {
			return nil, c.sc.errAt(c.start(), ErrSyntax, "multiple primary keys defined")
		}
		pk := []string{}
		for _, k := range con.Keys {
			if k.Expr != nil || k.Column == nil || k.Length > 0 {
				return nil, c.notSupported(c.start(), "PRIMARY KEY on expressions or column prefixes")
			}
			idx := -1
			for j := range st.Columns {
				if strings.EqualFold(st.Columns[j].Name, k.Column.Name.O) {
					idx = j
				}
			}
			if idx < 0 && st.Query != nil {
				pk = append(pk, k.Column.Name.O) // a column of the query: the planner checks it
				continue
			}
			if idx < 0 {
				return nil, c.sc.errAt(c.start(), ErrSyntax, "PRIMARY KEY column "+QuoteIdent(k.Column.Name.O)+" is not defined")
			}
			st.Columns[idx].Nullable = false
			pk = append(pk, st.Columns[idx].Name)
		}
		st.PrimaryKey = pk
	}
	for _, opt := range n.Options {
		if err := c.tableOption(st, opt); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// foreignKey converts a FOREIGN KEY constraint: declared metadata that
// lancecat keeps and shows but does not enforce (as Lance's primary key).
func (c *converter) foreignKey(con *ast.Constraint, cols []ColumnDef) (ForeignKeyDef, error) {
	fk := ForeignKeyDef{Name: con.Name}
	if con.Refer == nil || con.Refer.Table == nil {
		return fk, c.sc.errAt(c.start(), ErrSyntax, "FOREIGN KEY needs REFERENCES")
	}
	for _, k := range con.Keys {
		if k.Expr != nil || k.Column == nil || k.Length > 0 {
			return fk, c.notSupported(c.start(), "FOREIGN KEY on expressions or column prefixes")
		}
		name := ""
		for _, cd := range cols {
			if strings.EqualFold(cd.Name, k.Column.Name.O) {
				name = cd.Name
			}
		}
		if cols != nil && name == "" {
			return fk, c.sc.errAt(c.start(), ErrSyntax, "FOREIGN KEY column "+QuoteIdent(k.Column.Name.O)+" is not defined")
		}
		if name == "" {
			name = k.Column.Name.O
		}
		fk.Columns = append(fk.Columns, name)
	}
	fk.RefTable = c.names.Table(con.Refer.Table)
	for _, k := range con.Refer.IndexPartSpecifications {
		if k.Expr != nil || k.Column == nil || k.Length > 0 {
			return fk, c.notSupported(c.start(), "REFERENCES on expressions or column prefixes")
		}
		fk.RefColumns = append(fk.RefColumns, k.Column.Name.O)
	}
	if len(fk.Columns) == 0 || len(fk.Columns) != len(fk.RefColumns) {
		return fk, c.sc.errAt(c.start(), ErrSyntax, "FOREIGN KEY and REFERENCES need the same number of columns")
	}
	if con.Refer.Match != ast.MatchNone {
		return fk, c.notSupported(c.start(), "MATCH in FOREIGN KEY")
	}
	if o := con.Refer.OnDelete; o != nil && o.ReferOpt != ast.ReferOptionNoOption {
		fk.OnDelete = o.ReferOpt.String()
	}
	if o := con.Refer.OnUpdate; o != nil && o.ReferOpt != ast.ReferOptionNoOption {
		fk.OnUpdate = o.ReferOpt.String()
	}
	return fk, nil
}

// binaryCollations are the collations lancecat accepts: it stores UTF-8
// text and compares it byte by byte, which is what these name.
var binaryCollations = map[string]string{
	"utf8mb4_bin": "utf8mb4", "utf8mb4_0900_bin": "utf8mb4", "utf8_bin": "utf8", "utf8mb3_bin": "utf8mb3",
}

// tableOption applies one CREATE TABLE option. A migration's table options
// are accepted where they say what lancecat does anyway: ENGINE=InnoDB (the
// MySQL default engine; lancecat's tables are Lance datasets whatever the
// option says), a UTF-8 character set and a binary UTF-8 collation. Others
// are refused, naming the option, rather than silently ignored.
func (c *converter) tableOption(st *CreateTable, opt *ast.TableOption) error {
	switch opt.Tp {
	case ast.TableOptionComment:
		s := opt.StrValue
		st.Comment = &s
	case ast.TableOptionEngine:
		if !strings.EqualFold(opt.StrValue, "InnoDB") {
			return c.notSupported(c.start(), "ENGINE=%s (lancecat tables are Lance datasets; ENGINE=InnoDB, the MySQL default, is accepted)", opt.StrValue)
		}
	case ast.TableOptionCharset:
		cs := strings.ToLower(opt.StrValue)
		if cs != "utf8mb4" && cs != "utf8" && cs != "utf8mb3" {
			return c.notSupported(c.start(), "CHARACTER SET %s (lancecat text is UTF-8: use utf8mb4)", opt.StrValue)
		}
		if st.Collation != "" && !strings.HasPrefix(st.Collation, cs+"_") {
			return c.sc.errAt(c.start(), ErrSyntax, fmt.Sprintf("COLLATION %s is not valid for CHARACTER SET %s", st.Collation, cs))
		}
		st.Charset = cs
	case ast.TableOptionCollate:
		co := strings.ToLower(opt.StrValue)
		cs, ok := binaryCollations[co]
		if !ok {
			return c.notSupported(c.start(), "COLLATE %s (lancecat compares text byte by byte: use utf8mb4_bin)", opt.StrValue)
		}
		if st.Charset != "" && st.Charset != cs {
			return c.sc.errAt(c.start(), ErrSyntax, fmt.Sprintf("COLLATION %s is not valid for CHARACTER SET %s", co, st.Charset))
		}
		st.Collation = co
	default:
		return c.notSupported(c.start(), "table option %s (lancecat accepts COMMENT, ENGINE=InnoDB, a UTF-8 CHARSET and a binary UTF-8 COLLATE)", tableOptionName(opt))
	}
	return nil
}

// tableOptionName names a table option as SQL spells it.
func tableOptionName(opt *ast.TableOption) string {
	text := restoreTiDB(opt)
	if strings.HasPrefix(text, "*") {
		return "option"
	}
	name, _, _ := strings.Cut(text, " ")
	name, _, _ = strings.Cut(name, "=")
	return name
}

func constraintName(t ast.ConstraintType) string {
	switch t {
	case ast.ConstraintKey, ast.ConstraintIndex:
		return "INDEX"
	case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
		return "UNIQUE"
	case ast.ConstraintForeignKey:
		return "FOREIGN KEY"
	case ast.ConstraintFulltext:
		return "FULLTEXT"
	case ast.ConstraintCheck:
		return "CHECK"
	case ast.ConstraintVector, ast.ConstraintColumnar:
		return "VECTOR INDEX"
	}
	return "constraint"
}

func (c *converter) convertAlterTable(n *ast.AlterTableStmt) (Statement, error) {
	name := c.names.Table(n.Table)
	specToks := alterSpecs(c.toks)
	if len(specToks) != len(n.Specs) {
		specToks = nil
	}
	specAt := func(i int) int {
		if specToks != nil && len(specToks[i]) > 0 {
			return specToks[i][0].start
		}
		return c.start()
	}
	specKind := func(i int) string {
		if specToks == nil {
			return "this ALTER TABLE alteration"
		}
		var words []string
		for _, t := range specToks[i] {
			if t.kind != tkIdent || len(words) == 2 {
				break
			}
			words = append(words, strings.ToUpper(t.val))
		}
		return "ALTER TABLE " + strings.Join(words, " ")
	}
	// A lone RENAME [TO|AS] is a table rename.
	if len(n.Specs) == 1 && n.Specs[0].Tp == ast.AlterTableRenameTable {
		return &RenameTable{stmtBase: c.base, Pairs: []RenamePair{{From: name, To: c.names.Table(n.Specs[0].NewTable)}}}, nil
	}
	spans := alterAddSpans(alterSpecs(c.toks))
	nAdd := 0
	for _, sp := range n.Specs {
		if sp.Tp == ast.AlterTableAddColumns {
			nAdd += len(sp.NewColumns)
		}
	}
	if len(spans) != nAdd {
		spans = nil
	}
	st := &AlterTable{stmtBase: c.base, Name: name}
	addIdx := 0
	for i, sp := range n.Specs {
		switch sp.Tp {
		case ast.AlterTableAddColumns:
			if len(sp.NewConstraints) > 0 {
				return nil, c.notSupported(specAt(i), "constraints in ALTER TABLE ADD")
			}
			if sp.Position != nil && sp.Position.Tp != ast.ColumnPositionNone {
				return nil, c.notSupported(specAt(i), "FIRST / AFTER column positions")
			}
			for _, def := range sp.NewColumns {
				var span *colSpan
				if spans != nil {
					span = &spans[addIdx]
				}
				addIdx++
				cd, err := c.columnDef(def, span)
				if err != nil {
					return nil, err
				}
				if cd.PrimaryKey {
					return nil, c.notSupported(cd.Pos.Offset, "adding a PRIMARY KEY column")
				}
				if cd.AutoIncrement || cd.Unique {
					return nil, c.notSupported(cd.Pos.Offset, "adding an AUTO_INCREMENT or UNIQUE column (existing rows have no values for it)")
				}
				st.Actions = append(st.Actions, &AddColumn{IfNotExists: sp.IfNotExists, Column: cd})
			}
		case ast.AlterTableDropColumn:
			st.Actions = append(st.Actions, &DropColumn{IfExists: sp.IfExists, Name: sp.OldColumnName.Name.O})
		case ast.AlterTableRenameColumn:
			st.Actions = append(st.Actions, &RenameColumn{From: sp.OldColumnName.Name.O, To: sp.NewColumnName.Name.O})
		case ast.AlterTableDropPrimaryKey:
			st.Actions = append(st.Actions, &DropPrimaryKey{})
		case ast.AlterTableDropForeignKey:
			st.Actions = append(st.Actions, &DropForeignKey{IfExists: sp.IfExists, Name: sp.Name})
		case ast.AlterTableAddConstraint:
			con := sp.Constraint
			switch {
			case con != nil && con.Tp == ast.ConstraintPrimaryKey:
				var cols []string
				for _, k := range con.Keys {
					if k.Expr != nil || k.Column == nil || k.Length > 0 {
						return nil, c.notSupported(specAt(i), "PRIMARY KEY on expressions or column prefixes")
					}
					cols = append(cols, k.Column.Name.O)
				}
				st.Actions = append(st.Actions, &AddPrimaryKey{Columns: cols})
			case con != nil && con.Tp == ast.ConstraintForeignKey:
				fk, err := c.foreignKey(con, nil)
				if err != nil {
					return nil, err
				}
				st.Actions = append(st.Actions, &AddForeignKey{ForeignKey: fk})
			case con != nil && isIndexConstraint(con.Tp):
				def, err := c.indexConstraint(con, nil)
				if err != nil {
					return nil, err
				}
				st.Actions = append(st.Actions, &AddIndex{Index: def})
			default:
				return nil, c.notSupported(specAt(i), "%s", specKind(i))
			}
		case ast.AlterTableDropIndex:
			st.Actions = append(st.Actions, &DropIndexAction{IfExists: sp.IfExists, Name: sp.Name})
		case ast.AlterTableRenameTable:
			return nil, c.notSupported(specAt(i), "RENAME combined with other alterations in one ALTER TABLE")
		default:
			return nil, c.notSupported(specAt(i), "%s", specKind(i))
		}
	}
	return st, nil
}
