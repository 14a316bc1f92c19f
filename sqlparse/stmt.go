package sqlparse

import "github.com/lancecat/lancecat/sqltypes"

// Statement is one parsed SQL statement. Concrete types: *Use, *CreateSchema, *DropSchema,
// *AlterSchema, *CreateTable, *DropTable, *RenameTable, *AlterTable, *ShowSchemas, *ShowTables,
// *ShowCreateTable, *ShowCreateSchema, *ShowColumns, *ShowTableStatus, *ShowIndex, *CreateIndex,
// *DropIndex, *Call, *Begin, *Commit, *Rollback, *Set, *ShowVariables, *ShowWarnings, *Select, *Insert, *Delete, *Update, *Explain,
// *Unsupported.
type Statement interface {
	// Position is where the statement starts in the original script.
	Position() Pos
	// Text is the statement's original text (without the terminating ';').
	Text() string
	stmt()
}

type stmtBase struct {
	pos  Pos
	text string
}

func (s *stmtBase) Position() Pos { return s.pos }
func (s *stmtBase) Text() string  { return s.text }
func (s *stmtBase) stmt()         {}

// Property is one key = 'value' pair of WITH PROPERTIES / SET PROPERTIES.
type Property struct {
	Key   string
	Value string
}

// Use is USE a.b: sets the current namespace for unqualified names.
type Use struct {
	stmtBase
	Namespace Name
}

// CreateSchema is CREATE SCHEMA|DATABASE|NAMESPACE [IF NOT EXISTS] name [COMMENT [=] 'c']
// [WITH PROPERTIES (k = 'v', ...)].
type CreateSchema struct {
	stmtBase
	IfNotExists bool
	Name        Name
	Comment     *string // nil when no COMMENT clause
	Properties  []Property
}

// DropSchema is DROP SCHEMA|DATABASE|NAMESPACE [IF EXISTS] name [RESTRICT | CASCADE].
// RESTRICT is the default.
type DropSchema struct {
	stmtBase
	IfExists bool
	Name     Name
	Cascade  bool
}

// AlterSchema is ALTER SCHEMA|DATABASE|NAMESPACE name SET PROPERTIES (k = 'v', ...).
type AlterSchema struct {
	stmtBase
	Name          Name
	SetProperties []Property
}

// ColumnDef is one column definition of CREATE TABLE or ALTER TABLE ADD COLUMN.
type ColumnDef struct {
	Name       string
	Type       sqltypes.Type
	Nullable   bool    // false only with NOT NULL (or PRIMARY KEY)
	Comment    *string // nil when no COMMENT
	PrimaryKey bool    // column-level PRIMARY KEY
	Pos        Pos     // position of the column name
	// AutoIncrement is AUTO_INCREMENT (also implied by the SERIAL type): the
	// planner assigns the values on INSERT.
	AutoIncrement bool
	// Default is the DEFAULT clause; nil when there is none.
	Default *ColumnDefault
	// Unique is the column's own UNIQUE [KEY] (also implied by SERIAL).
	// CREATE TABLE also lists it in Indexes.
	Unique bool
}

// CreateTable is CREATE TABLE [IF NOT EXISTS] name (columns..., [PRIMARY KEY (cols)]) [COMMENT
// [=] 'c'], or CREATE TABLE [IF NOT EXISTS] name LIKE other (then Like is set and Columns empty).
type CreateTable struct {
	stmtBase
	IfNotExists bool
	Name        Name
	Columns     []ColumnDef
	// PrimaryKey lists the primary key columns in key order, whether declared on a column or as a
	// table constraint; nil when there is none.
	PrimaryKey []string
	// Indexes are the KEY / INDEX / UNIQUE clauses and the columns' own
	// UNIQUE options, in source order.
	Indexes []IndexDef
	Comment *string
	Like    Name
	// Charset and Collation are the table options as declared (lower
	// case; "" when absent): a UTF-8 character set and a binary collation.
	Charset, Collation string
	// ForeignKeys are the FOREIGN KEY constraints, in source order.
	ForeignKeys []ForeignKeyDef
	// Query is the SELECT of CREATE TABLE ... [AS] SELECT (nil otherwise):
	// the table gets the query's columns after the declared ones (a
	// declared column of the same name gives that column its type) and its
	// rows. Index and key clauses may name the query's columns.
	Query *Select
}

// ForeignKeyDef is a FOREIGN KEY constraint as declared. lancecat keeps it
// as table metadata and does not enforce it.
type ForeignKeyDef struct {
	Name       string // "" when the statement gives none
	Columns    []string
	RefTable   Name
	RefColumns []string
	// OnDelete and OnUpdate are the declared referential actions
	// (RESTRICT, CASCADE, SET NULL, NO ACTION, SET DEFAULT; "" when absent).
	OnDelete, OnUpdate string
}

// DropTable is DROP TABLE [IF EXISTS] t1, t2, ...
type DropTable struct {
	stmtBase
	IfExists bool
	Names    []Name
}

// RenamePair is one `from TO to` of a rename.
type RenamePair struct {
	From, To Name
}

// RenameTable is RENAME TABLE a TO b [, c TO d] or ALTER TABLE a RENAME [TO|AS] b.
type RenameTable struct {
	stmtBase
	Pairs []RenamePair
}

// AlterTable is ALTER TABLE name action, action, ... with actions *AddColumn, *DropColumn,
// *RenameColumn, the key actions and the index actions *AddIndex and *DropIndexAction, in order.
type AlterTable struct {
	stmtBase
	Name    Name
	Actions []AlterAction
}

// AlterAction is one alteration of an ALTER TABLE.
type AlterAction interface{ alterAction() }

// AddColumn is ADD [COLUMN] [IF NOT EXISTS] col type ...
type AddColumn struct {
	IfNotExists bool
	Column      ColumnDef
}

// DropColumn is DROP [COLUMN] [IF EXISTS] col.
type DropColumn struct {
	IfExists bool
	Name     string
}

// RenameColumn is RENAME COLUMN from TO to.
type RenameColumn struct {
	From, To string
}

// AddPrimaryKey is ADD PRIMARY KEY (cols): the table's (unenforced) primary key.
type AddPrimaryKey struct{ Columns []string }

// DropPrimaryKey is DROP PRIMARY KEY.
type DropPrimaryKey struct{}

// AddForeignKey is ADD [CONSTRAINT name] FOREIGN KEY ... REFERENCES ...
type AddForeignKey struct{ ForeignKey ForeignKeyDef }

// DropForeignKey is DROP FOREIGN KEY name.
type DropForeignKey struct {
	IfExists bool
	Name     string
}

func (*AddColumn) alterAction()       {}
func (*DropColumn) alterAction()      {}
func (*RenameColumn) alterAction()    {}
func (*AddPrimaryKey) alterAction()   {}
func (*DropPrimaryKey) alterAction()  {}
func (*AddForeignKey) alterAction()   {}
func (*DropForeignKey) alterAction()  {}
func (*AddIndex) alterAction()        {}
func (*DropIndexAction) alterAction() {}

// AddIndex is ADD {INDEX|KEY|UNIQUE [KEY|INDEX]|FULLTEXT [KEY|INDEX]} [name] (col) [USING kind]:
// the same index as CREATE INDEX (Name is "" when the clause names none; the planner picks one).
type AddIndex struct{ Index IndexDef }

// DropIndexAction is DROP {INDEX|KEY} [IF EXISTS] name.
type DropIndexAction struct {
	IfExists bool
	Name     string
}

// Filter is the optional LIKE 'pattern' or WHERE expr of a SHOW statement. At most one of Like and
// Where is set.
type Filter struct {
	Like  *string
	Where Expr // column names in it are SHOW output columns
}

// ShowSchemas is SHOW SCHEMAS|DATABASES|NAMESPACES [FROM|IN parent] [LIKE|WHERE]. Parent is nil
// for the top level.
type ShowSchemas struct {
	stmtBase
	Parent Name
	Filter
}

// ShowTables is SHOW [FULL] TABLES [FROM|IN ns] [LIKE|WHERE]. Namespace nil means the current one.
type ShowTables struct {
	stmtBase
	Full      bool
	Namespace Name
	Filter
}

// ShowCreateTable is SHOW CREATE TABLE t.
type ShowCreateTable struct {
	stmtBase
	Name Name
}

// ShowCreateSchema is SHOW CREATE SCHEMA|DATABASE|NAMESPACE s.
type ShowCreateSchema struct {
	stmtBase
	Name Name
}

// ShowColumns is SHOW [FULL] COLUMNS|FIELDS FROM|IN t [FROM|IN ns] [LIKE|WHERE], and also
// DESCRIBE|DESC|EXPLAIN t [column|'pattern'] (then Like holds the column name or pattern). With a
// FROM ns clause, Table is ns followed by t (as in MySQL, `SHOW COLUMNS FROM t FROM db` means
// `db.t`); a qualified t together with FROM ns is an error.
type ShowColumns struct {
	stmtBase
	Full  bool
	Table Name
	Filter
}

// ShowTableStatus is SHOW TABLE STATUS [FROM|IN ns] [LIKE|WHERE].
type ShowTableStatus struct {
	stmtBase
	Namespace Name
	Filter
}

// ShowIndex is SHOW INDEX|INDEXES|KEYS FROM|IN t [FROM|IN ns] [WHERE]. Table as in ShowColumns.
type ShowIndex struct {
	stmtBase
	Table Name
	Filter
}

// Decimal is an exact numeric literal argument (e.g. 1.50), kept as its
// text; planner and sqltypes.Append take it as it is.
type Decimal = sqltypes.Decimal

// Call is CALL name(args...). Args hold literals: nil, int64, uint64, float64, Decimal, string
// or []byte (hex and bit literals).
type Call struct {
	stmtBase
	Procedure Name
	Args      []any
}

// Begin is BEGIN or START TRANSACTION [READ ONLY | READ WRITE].
type Begin struct {
	stmtBase
	ReadOnly bool
}

// Commit is COMMIT [WORK].
type Commit struct{ stmtBase }

// Rollback is ROLLBACK [WORK].
type Rollback struct{ stmtBase }

// Explain is EXPLAIN [ANALYZE] [FORMAT = x] stmt (also DESCRIBE/DESC of a query). Stmt is the
// explained statement, normally a *Select (an *Unsupported for anything else).
type Explain struct {
	stmtBase
	Analyze bool
	Format  string
	Stmt    Statement
}

// Unsupported is a statement that the TiDB parser accepts but lancecat does not execute (UPDATE,
// DELETE, REPLACE, GRANT, ...). Kind names it ("UPDATE", "CREATE VIEW", "SHOW VARIABLES"). Err
// returns an error for the planner to report.
type Unsupported struct {
	stmtBase
	Kind string
}

// Err returns "line L column C: not supported: KIND", wrapping ErrNotSupported.
func (u *Unsupported) Err() error {
	return &Error{Pos: u.pos, Msg: "not supported: " + u.Kind, Kind: ErrNotSupported}
}
