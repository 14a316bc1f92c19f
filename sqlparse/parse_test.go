package sqlparse

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/sqltypes"
)

// testBase gives tests access to the embedded base so expected values can ignore positions.
func (s *stmtBase) testBase() *stmtBase { return s }

type hasBase interface{ testBase() *stmtBase }

// clearBase zeroes the position and text of st (and of an explained statement).
func clearBase(st Statement) Statement {
	*st.(hasBase).testBase() = stmtBase{}
	if e, ok := st.(*Explain); ok && e.Stmt != nil {
		clearBase(e.Stmt)
	}
	return st
}

func str(s string) *string { return &s }

func parseOne(t *testing.T, sql string) Statement {
	t.Helper()
	st, err := ParseOne(sql)
	if err != nil {
		t.Fatalf("ParseOne(%q): %v", sql, err)
	}
	return st
}

// TestParseStatements covers every statement form whose result holds no TiDB nodes.
func TestParseStatements(t *testing.T) {
	tests := []struct {
		sql  string
		want Statement
	}{
		// USE
		{"USE t", &Use{Namespace: Name{"t"}}},
		{"use prod.ml", &Use{Namespace: Name{"prod", "ml"}}},
		// CREATE SCHEMA and synonyms
		{"CREATE SCHEMA a", &CreateSchema{Name: Name{"a"}}},
		{"CREATE DATABASE IF NOT EXISTS a.b", &CreateSchema{IfNotExists: true, Name: Name{"a", "b"}}},
		{"create namespace a.b.c COMMENT 'hello'", &CreateSchema{Name: Name{"a", "b", "c"}, Comment: str("hello")}},
		{"CREATE SCHEMA a COMMENT = 'x' WITH PROPERTIES (owner = 'me', 'owner.team' = 'ml', `k` = '')",
			&CreateSchema{Name: Name{"a"}, Comment: str("x"), Properties: []Property{{"owner", "me"}, {"owner.team", "ml"}, {"k", ""}}}},
		{"CREATE SCHEMA a WITH PROPERTIES (owner.team = 'ml') COMMENT 'c'",
			&CreateSchema{Name: Name{"a"}, Comment: str("c"), Properties: []Property{{"owner.team", "ml"}}}},
		// DROP SCHEMA
		{"DROP SCHEMA a.b", &DropSchema{Name: Name{"a", "b"}}},
		{"DROP DATABASE IF EXISTS a RESTRICT", &DropSchema{IfExists: true, Name: Name{"a"}}},
		{"DROP NAMESPACE a.b CASCADE", &DropSchema{Name: Name{"a", "b"}, Cascade: true}},
		// ALTER SCHEMA
		{"ALTER SCHEMA a.b SET PROPERTIES (k = 'v', 'x.y' = 'z')", &AlterSchema{Name: Name{"a", "b"}, SetProperties: []Property{{"k", "v"}, {"x.y", "z"}}}},
		{"ALTER NAMESPACE a SET PROPERTIES (k = 'v')", &AlterSchema{Name: Name{"a"}, SetProperties: []Property{{"k", "v"}}}},
		// DROP / RENAME TABLE
		{"DROP TABLE t", &DropTable{Names: []Name{{"t"}}}},
		{"DROP TABLE IF EXISTS a.b.t1, t2, x.t3", &DropTable{IfExists: true, Names: []Name{{"a", "b", "t1"}, {"t2"}, {"x", "t3"}}}},
		{"RENAME TABLE a TO b", &RenameTable{Pairs: []RenamePair{{Name{"a"}, Name{"b"}}}}},
		{"RENAME TABLE p.q.a TO p.q.b, c TO x.y.z.d", &RenameTable{Pairs: []RenamePair{{Name{"p", "q", "a"}, Name{"p", "q", "b"}}, {Name{"c"}, Name{"x", "y", "z", "d"}}}}},
		{"ALTER TABLE a.b.t RENAME TO a.b.u", &RenameTable{Pairs: []RenamePair{{Name{"a", "b", "t"}, Name{"a", "b", "u"}}}}},
		{"ALTER TABLE t RENAME u", &RenameTable{Pairs: []RenamePair{{Name{"t"}, Name{"u"}}}}},
		// ALTER TABLE
		{"ALTER TABLE t DROP COLUMN c", &AlterTable{Name: Name{"t"}, Actions: []AlterAction{&DropColumn{Name: "c"}}}},
		{"ALTER TABLE t DROP c", &AlterTable{Name: Name{"t"}, Actions: []AlterAction{&DropColumn{Name: "c"}}}},
		{"ALTER TABLE a.b.t RENAME COLUMN x TO y, DROP COLUMN IF EXISTS z",
			&AlterTable{Name: Name{"a", "b", "t"}, Actions: []AlterAction{&RenameColumn{From: "x", To: "y"}, &DropColumn{IfExists: true, Name: "z"}}}},
		// SHOW
		{"SHOW SCHEMAS", &ShowSchemas{}},
		{"SHOW DATABASES LIKE 'p%'", &ShowSchemas{Filter: Filter{Like: str("p%")}}},
		{"SHOW NAMESPACES FROM a.b LIKE 'x\\_%'", &ShowSchemas{Parent: Name{"a", "b"}, Filter: Filter{Like: str(`x\_%`)}}},
		{"SHOW NAMESPACES IN a", &ShowSchemas{Parent: Name{"a"}}},
		{"SHOW TABLES", &ShowTables{}},
		{"SHOW FULL TABLES FROM a.b.c LIKE 'ev%'", &ShowTables{Full: true, Namespace: Name{"a", "b", "c"}, Filter: Filter{Like: str("ev%")}}},
		{"SHOW TABLES IN ns", &ShowTables{Namespace: Name{"ns"}}},
		{"SHOW CREATE TABLE a.b.t", &ShowCreateTable{Name: Name{"a", "b", "t"}}},
		{"SHOW CREATE SCHEMA a.b", &ShowCreateSchema{Name: Name{"a", "b"}}},
		{"SHOW CREATE DATABASE a", &ShowCreateSchema{Name: Name{"a"}}},
		{"SHOW CREATE NAMESPACE a.b.c", &ShowCreateSchema{Name: Name{"a", "b", "c"}}},
		{"DESCRIBE a.b.t", &ShowColumns{Table: Name{"a", "b", "t"}}},
		{"DESC t", &ShowColumns{Table: Name{"t"}}},
		{"DESC t col", &ShowColumns{Table: Name{"t"}, Filter: Filter{Like: str("col")}}},
		{"EXPLAIN t 'c%'", &ShowColumns{Table: Name{"t"}, Filter: Filter{Like: str("c%")}}},
		{"SHOW COLUMNS FROM t", &ShowColumns{Table: Name{"t"}}},
		{"SHOW FULL COLUMNS FROM t FROM a.b", &ShowColumns{Full: true, Table: Name{"a", "b", "t"}}},
		{"SHOW FIELDS IN a.b.t LIKE 'x%'", &ShowColumns{Table: Name{"a", "b", "t"}, Filter: Filter{Like: str("x%")}}},
		{"SHOW TABLE STATUS", &ShowTableStatus{}},
		{"SHOW TABLE STATUS FROM a.b LIKE 't%'", &ShowTableStatus{Namespace: Name{"a", "b"}, Filter: Filter{Like: str("t%")}}},
		{"SHOW INDEX FROM t", &ShowIndex{Table: Name{"t"}}},
		{"SHOW INDEXES IN a.b.t", &ShowIndex{Table: Name{"a", "b", "t"}}},
		{"SHOW KEYS FROM t IN a.b", &ShowIndex{Table: Name{"a", "b", "t"}}},
		// CALL
		{"CALL register_table('a.t', 'rel/loc')", &Call{Procedure: Name{"register_table"}, Args: []any{"a.t", "rel/loc"}}},
		{"CALL deregister_table('a.t')", &Call{Procedure: Name{"deregister_table"}, Args: []any{"a.t"}}},
		{"CALL declare_table('a.b.t')", &Call{Procedure: Name{"declare_table"}, Args: []any{"a.b.t"}}},
		{"CALL vacuum_catalog('1h')", &Call{Procedure: Name{"vacuum_catalog"}, Args: []any{"1h"}}},
		{"CALL noargs()", &Call{Procedure: Name{"noargs"}, Args: []any{}}},
		{"CALL a.b.p(1, -2, 18446744073709551615, 1.50, -2.5, 1e3, NULL, X'0aFF', 'it''s')",
			&Call{Procedure: Name{"a", "b", "p"}, Args: []any{int64(1), int64(-2), uint64(18446744073709551615), Decimal("1.50"), Decimal("-2.5"), float64(1000), nil, []byte{0x0a, 0xff}, "it's"}}},
		// transactions
		{"BEGIN", &Begin{}},
		{"START TRANSACTION", &Begin{}},
		{"START TRANSACTION READ ONLY", &Begin{ReadOnly: true}},
		{"COMMIT", &Commit{}},
		{"ROLLBACK", &Rollback{}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got := clearBase(parseOne(t, tt.sql))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestCreateTable(t *testing.T) {
	sql := "CREATE TABLE IF NOT EXISTS prod.ml.events (\n" +
		"  id BIGINT NOT NULL COMMENT 'the id',\n" +
		"  name VARCHAR(255) NULL,\n" +
		"  `weird col` TEXT,\n" +
		"  PRIMARY KEY (id)\n" +
		") COMMENT = 'events table'"
	st := parseOne(t, sql).(*CreateTable)
	if !st.IfNotExists || !reflect.DeepEqual(st.Name, Name{"prod", "ml", "events"}) {
		t.Fatalf("header: %+v", st)
	}
	if st.Comment == nil || *st.Comment != "events table" {
		t.Errorf("comment = %v", st.Comment)
	}
	if !reflect.DeepEqual(st.PrimaryKey, []string{"id"}) {
		t.Errorf("primary key = %v", st.PrimaryKey)
	}
	if len(st.Columns) != 3 {
		t.Fatalf("columns: %+v", st.Columns)
	}
	id, name, weird := st.Columns[0], st.Columns[1], st.Columns[2]
	if id.Name != "id" || id.Nullable || id.Comment == nil || *id.Comment != "the id" || id.Type.SQL != "BIGINT" ||
		!arrow.TypeEqual(id.Type.Arrow, arrow.PrimitiveTypes.Int64) || id.Pos != (Pos{Line: 2, Column: 3, Offset: 46}) {
		t.Errorf("id column: %+v", id)
	}
	if name.Name != "name" || !name.Nullable || name.Comment != nil || name.Type.SQL != "VARCHAR(255)" || name.Pos.Line != 3 {
		t.Errorf("name column: %+v", name)
	}
	if weird.Name != "weird col" || weird.Type.Kind != sqltypes.KindString || weird.Pos.Line != 4 || weird.Pos.Column != 3 {
		t.Errorf("weird column: %+v", weird)
	}

	// Column-level PRIMARY KEY; LIKE.
	st = parseOne(t, "CREATE TABLE t (a INT PRIMARY KEY, b INT)").(*CreateTable)
	if !reflect.DeepEqual(st.PrimaryKey, []string{"a"}) || !st.Columns[0].PrimaryKey || st.Columns[0].Nullable || !st.Columns[1].Nullable {
		t.Errorf("column pk: %+v", st)
	}
	st = parseOne(t, "CREATE TABLE t (a INT, b INT, PRIMARY KEY (b, a))").(*CreateTable)
	if !reflect.DeepEqual(st.PrimaryKey, []string{"b", "a"}) || st.Columns[0].Nullable || st.Columns[1].Nullable {
		t.Errorf("composite pk: %+v", st)
	}
	st = parseOne(t, "CREATE TABLE IF NOT EXISTS a.b.t2 LIKE x.y.t1").(*CreateTable)
	if !st.IfNotExists || !reflect.DeepEqual(st.Name, Name{"a", "b", "t2"}) || !reflect.DeepEqual(st.Like, Name{"x", "y", "t1"}) || st.Columns != nil {
		t.Errorf("like: %+v", st)
	}
}

func TestAlterTableAddColumn(t *testing.T) {
	st := parseOne(t, "ALTER TABLE a.b.t ADD COLUMN c INT NULL COMMENT 'x', ADD d VARCHAR(3), DROP COLUMN e, RENAME COLUMN f TO g").(*AlterTable)
	if !reflect.DeepEqual(st.Name, Name{"a", "b", "t"}) || len(st.Actions) != 4 {
		t.Fatalf("%+v", st)
	}
	c := st.Actions[0].(*AddColumn).Column
	if c.Name != "c" || !c.Nullable || *c.Comment != "x" || c.Type.SQL != "INT" || c.Pos.Column != 30 {
		t.Errorf("c: %+v", c)
	}
	d := st.Actions[1].(*AddColumn).Column
	if d.Name != "d" || d.Type.Kind != sqltypes.KindString || d.Type.SQL != "VARCHAR(3)" {
		t.Errorf("d: %+v", d)
	}
	if !reflect.DeepEqual(st.Actions[2], &DropColumn{Name: "e"}) || !reflect.DeepEqual(st.Actions[3], &RenameColumn{From: "f", To: "g"}) {
		t.Errorf("actions: %#v %#v", st.Actions[2], st.Actions[3])
	}
	st = parseOne(t, "ALTER TABLE t ADD COLUMN IF NOT EXISTS (x JSON, y VECTOR(4))").(*AlterTable)
	if len(st.Actions) != 2 || !st.Actions[0].(*AddColumn).IfNotExists || st.Actions[0].(*AddColumn).Column.Type.Kind != sqltypes.KindJSON ||
		st.Actions[1].(*AddColumn).Column.Type.SQL != "VECTOR(4)" {
		t.Errorf("parenthesized add: %+v", st.Actions)
	}
}

// TestColumnTypes covers every row of the SQL type to Arrow mapping.
func TestColumnTypes(t *testing.T) {
	ts := func(u arrow.TimeUnit, zone string) arrow.DataType {
		return &arrow.TimestampType{Unit: u, TimeZone: zone}
	}
	dec := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	tests := []struct {
		typ  string
		kind sqltypes.Kind
		want arrow.DataType
		sql  string
	}{
		{"BOOLEAN", sqltypes.KindBool, arrow.FixedWidthTypes.Boolean, "BOOLEAN"},
		{"bool", sqltypes.KindBool, arrow.FixedWidthTypes.Boolean, "BOOL"},
		{"TINYINT", sqltypes.KindInt, arrow.PrimitiveTypes.Int8, "TINYINT"},
		{"TINYINT(1)", sqltypes.KindInt, arrow.PrimitiveTypes.Int8, "TINYINT(1)"},
		{"SMALLINT", sqltypes.KindInt, arrow.PrimitiveTypes.Int16, "SMALLINT"},
		{"MEDIUMINT", sqltypes.KindInt, arrow.PrimitiveTypes.Int32, "MEDIUMINT"},
		{"INT", sqltypes.KindInt, arrow.PrimitiveTypes.Int32, "INT"},
		{"INTEGER", sqltypes.KindInt, arrow.PrimitiveTypes.Int32, "INTEGER"},
		{"int(11)", sqltypes.KindInt, arrow.PrimitiveTypes.Int32, "INT(11)"},
		{"BIGINT", sqltypes.KindInt, arrow.PrimitiveTypes.Int64, "BIGINT"},
		{"TINYINT UNSIGNED", sqltypes.KindUint, arrow.PrimitiveTypes.Uint8, "TINYINT UNSIGNED"},
		{"SMALLINT UNSIGNED", sqltypes.KindUint, arrow.PrimitiveTypes.Uint16, "SMALLINT UNSIGNED"},
		{"INT UNSIGNED", sqltypes.KindUint, arrow.PrimitiveTypes.Uint32, "INT UNSIGNED"},
		{"INTEGER   unsigned", sqltypes.KindUint, arrow.PrimitiveTypes.Uint32, "INTEGER UNSIGNED"},
		{"BIGINT UNSIGNED", sqltypes.KindUint, arrow.PrimitiveTypes.Uint64, "BIGINT UNSIGNED"},
		{"FLOAT", sqltypes.KindFloat, arrow.PrimitiveTypes.Float32, "FLOAT"},
		{"DOUBLE", sqltypes.KindFloat, arrow.PrimitiveTypes.Float64, "DOUBLE"},
		{"DOUBLE PRECISION", sqltypes.KindFloat, arrow.PrimitiveTypes.Float64, "DOUBLE PRECISION"},
		{"REAL", sqltypes.KindFloat, arrow.PrimitiveTypes.Float64, "REAL"},
		{"DECIMAL", sqltypes.KindDecimal, dec(10, 0), "DECIMAL"},
		{"DECIMAL(5)", sqltypes.KindDecimal, dec(5, 0), "DECIMAL(5)"},
		{"DECIMAL(12,2)", sqltypes.KindDecimal, dec(12, 2), "DECIMAL(12,2)"},
		{"DECIMAL(38, 38)", sqltypes.KindDecimal, dec(38, 38), "DECIMAL(38, 38)"},
		{"NUMERIC", sqltypes.KindDecimal, dec(10, 0), "NUMERIC"},
		{"NUMERIC(7,3)", sqltypes.KindDecimal, dec(7, 3), "NUMERIC(7,3)"},
		{"CHAR(3)", sqltypes.KindString, arrow.BinaryTypes.String, "CHAR(3)"},
		{"CHAR", sqltypes.KindString, arrow.BinaryTypes.String, "CHAR"},
		{"VARCHAR(255)", sqltypes.KindString, arrow.BinaryTypes.String, "VARCHAR(255)"},
		{"VARCHAR(10) CHARACTER SET utf8mb4", sqltypes.KindString, arrow.BinaryTypes.String, "VARCHAR(10) CHARACTER SET UTF8MB4"},
		{"TEXT", sqltypes.KindString, arrow.BinaryTypes.String, "TEXT"},
		{"TINYTEXT", sqltypes.KindString, arrow.BinaryTypes.String, "TINYTEXT"},
		{"MEDIUMTEXT", sqltypes.KindString, arrow.BinaryTypes.String, "MEDIUMTEXT"},
		{"LONGTEXT", sqltypes.KindString, arrow.BinaryTypes.String, "LONGTEXT"},
		{"BINARY(16)", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "BINARY(16)"},
		{"BINARY", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "BINARY"},
		{"VARBINARY(9)", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "VARBINARY(9)"},
		{"BLOB", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "BLOB"},
		{"TINYBLOB", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "TINYBLOB"},
		{"MEDIUMBLOB", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "MEDIUMBLOB"},
		{"LONGBLOB", sqltypes.KindBinary, arrow.BinaryTypes.Binary, "LONGBLOB"},
		{"DATE", sqltypes.KindDate, arrow.FixedWidthTypes.Date32, "DATE"},
		{"TIME", sqltypes.KindTime, arrow.FixedWidthTypes.Time64us, "TIME"},
		{"TIME(0)", sqltypes.KindTime, arrow.FixedWidthTypes.Time64us, "TIME(0)"},
		{"TIME(6)", sqltypes.KindTime, arrow.FixedWidthTypes.Time64us, "TIME(6)"},
		{"TIME(7)", sqltypes.KindTime, arrow.FixedWidthTypes.Time64ns, "TIME(7)"},
		{"TIME(9)", sqltypes.KindTime, arrow.FixedWidthTypes.Time64ns, "TIME(9)"},
		{"DATETIME", sqltypes.KindDatetime, ts(arrow.Second, ""), "DATETIME"},
		{"DATETIME(0)", sqltypes.KindDatetime, ts(arrow.Second, ""), "DATETIME(0)"},
		{"DATETIME(1)", sqltypes.KindDatetime, ts(arrow.Millisecond, ""), "DATETIME(1)"},
		{"DATETIME(3)", sqltypes.KindDatetime, ts(arrow.Millisecond, ""), "DATETIME(3)"},
		{"DATETIME(4)", sqltypes.KindDatetime, ts(arrow.Microsecond, ""), "DATETIME(4)"},
		{"DATETIME(6)", sqltypes.KindDatetime, ts(arrow.Microsecond, ""), "DATETIME(6)"},
		{"DATETIME(7)", sqltypes.KindDatetime, ts(arrow.Nanosecond, ""), "DATETIME(7)"},
		{"DATETIME(9)", sqltypes.KindDatetime, ts(arrow.Nanosecond, ""), "DATETIME(9)"},
		{"TIMESTAMP", sqltypes.KindTimestamp, ts(arrow.Second, "UTC"), "TIMESTAMP"},
		{"TIMESTAMP(3)", sqltypes.KindTimestamp, ts(arrow.Millisecond, "UTC"), "TIMESTAMP(3)"},
		{"TIMESTAMP(6)", sqltypes.KindTimestamp, ts(arrow.Microsecond, "UTC"), "TIMESTAMP(6)"},
		{"TIMESTAMP(9)", sqltypes.KindTimestamp, ts(arrow.Nanosecond, "UTC"), "TIMESTAMP(9)"},
		{"JSON", sqltypes.KindJSON, arrow.BinaryTypes.LargeBinary, "JSON"},
		{"VECTOR(3)", sqltypes.KindVector, arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), "VECTOR(3)"},
		{"vector<float>(128)", sqltypes.KindVector, arrow.FixedSizeListOf(128, arrow.PrimitiveTypes.Float32), "VECTOR<FLOAT>(128)"},
		{"MULTIVECTOR(16)", sqltypes.KindMultiVector, arrow.ListOf(arrow.FixedSizeListOf(16, arrow.PrimitiveTypes.Float32)), "MULTIVECTOR(16)"},
		{"multivector (3)", sqltypes.KindMultiVector, arrow.ListOf(arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32)), "MULTIVECTOR (3)"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			st := parseOne(t, "CREATE TABLE t (c "+tt.typ+")").(*CreateTable)
			got := st.Columns[0].Type
			if got.Kind != tt.kind || got.SQL != tt.sql {
				t.Errorf("kind %v sql %q, want %v %q", got.Kind, got.SQL, tt.kind, tt.sql)
			}
			if tt.want == nil {
				if got.Arrow != nil {
					t.Errorf("arrow = %v, want nil", got.Arrow)
				}
			} else if got.Arrow == nil || !arrow.TypeEqual(got.Arrow, tt.want) {
				t.Errorf("arrow = %v, want %v", got.Arrow, tt.want)
			}
			// The same type through ALTER TABLE ADD COLUMN.
			at := parseOne(t, "ALTER TABLE t ADD COLUMN c "+tt.typ).(*AlterTable)
			if g := at.Actions[0].(*AddColumn).Column.Type; g.Kind != tt.kind || g.SQL != tt.sql {
				t.Errorf("alter: kind %v sql %q", g.Kind, g.SQL)
			}
			// SQL -> Arrow -> SQL: the stored field's name (what DESCRIBE and
			// SHOW CREATE TABLE print) declares the same field again.
			f := got.Field("c", true)
			name := sqltypes.Name(f, Quoting)
			again := parseOne(t, "CREATE TABLE t (c "+name+")").(*CreateTable).Columns[0].Type
			f2 := again.Field("c", true)
			if !arrow.TypeEqual(f2.Type, f.Type) || !f2.Metadata.Equal(f.Metadata) || sqltypes.Name(f2, Quoting) != name {
				t.Errorf("%s names as %s, which declares %v %v", tt.typ, name, f2.Type, f2.Metadata)
			}
		})
	}
}

// wantErr checks that err is an *Error at line:col wrapping kind and containing msg.
func wantErr(t *testing.T, err error, kind error, line, col int, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %q does not wrap %v", err, kind)
	}
	if e.Pos.Line != line || e.Pos.Column != col {
		t.Errorf("error %q at line %d column %d, want line %d column %d", err, e.Pos.Line, e.Pos.Column, line, col)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not contain %q", err, msg)
	}
}

func TestColumnTypeErrors(t *testing.T) {
	tests := []struct {
		sql  string
		kind error
		col  int
		msg  string
	}{
		{"CREATE TABLE t (a INT, b GEOMETRY)", ErrNotSupported, 26, "unsupported type GEOMETRY"},
		{"CREATE TABLE t (a FOO)", ErrNotSupported, 19, "unsupported type FOO"},
		{"CREATE TABLE t (a UUID NOT NULL)", ErrNotSupported, 19, "unsupported type UUID"},
		{"CREATE TABLE t (a YEAR)", ErrNotSupported, 19, "unsupported type YEAR"},
		{"CREATE TABLE t (a BIT(1))", ErrNotSupported, 19, "unsupported type BIT(1)"},
		{"CREATE TABLE t (a ENUM('x','y'))", ErrNotSupported, 19, "unsupported type ENUM('x','y')"},
		{"CREATE TABLE t (a SET('x'))", ErrNotSupported, 19, "unsupported type SET('x')"},
		{"CREATE TABLE t (a FLOAT UNSIGNED)", ErrNotSupported, 19, "unsupported type FLOAT UNSIGNED"},
		{"CREATE TABLE t (a DECIMAL(39,2))", ErrNotSupported, 19, "precision 39 exceeds 38"},
		{"CREATE TABLE t (a DECIMAL(5,6))", ErrSyntax, 19, "scale 6 exceeds precision 5"},
		{"CREATE TABLE t (a VECTOR)", ErrSyntax, 19, "VECTOR needs a dimension"},
		{"CREATE TABLE t (a VECTOR(0))", ErrSyntax, 19, "dimension must be positive"},
		{"CREATE TABLE t (a MULTIVECTOR(0))", ErrSyntax, 19, "dimension must be positive"},
		{"CREATE TABLE t (a MULTIVECTOR)", ErrNotSupported, 19, "unsupported type MULTIVECTOR"},
		{"CREATE TABLE t (multivector INT, b MULTIVECTOR(70000))", ErrLimit, 36, "dimension 70000 exceeds the limit"},
		{"CREATE TABLE t (a TIME(10))", ErrSyntax, 19, "precision 10 exceeds 9"},
		{"CREATE TABLE t (a DATETIME(10))", ErrSyntax, 19, "precision 10 exceeds 9"},
		{"CREATE TABLE t (a TIMESTAMP(12))", ErrSyntax, 19, "precision 12 exceeds 9"},
		{"ALTER TABLE t ADD COLUMN c GEOMETRY", ErrNotSupported, 28, "unsupported type GEOMETRY"},
		{"ALTER TABLE t ADD c INT, ADD d MONEY", ErrNotSupported, 32, "unsupported type MONEY"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := Parse(tt.sql)
			wantErr(t, err, tt.kind, 1, tt.col, tt.msg)
		})
	}
	// A type error on a later line reports that line.
	_, err := Parse("CREATE TABLE t (\n  a INT,\n  b GEOMETRY\n)")
	wantErr(t, err, ErrNotSupported, 3, 5, "unsupported type GEOMETRY")
}

func TestDDLErrors(t *testing.T) {
	tests := []struct {
		sql  string
		kind error
		col  int
		msg  string
	}{
		{"CREATE TABLE t (a INT, a INT)", ErrSyntax, 24, "duplicate column name a"},
		{"CREATE TABLE t (a INT PRIMARY KEY, b INT PRIMARY KEY)", ErrSyntax, 36, "multiple primary keys"},
		{"CREATE TABLE t (a INT, PRIMARY KEY (b))", ErrSyntax, 1, "PRIMARY KEY column b is not defined"},
		{"CREATE TABLE t (a INT DEFAULT rand())", ErrNotSupported, 17, "DEFAULT of column a"},
		{"CREATE TABLE t (a INT DEFAULT 1 AUTO_INCREMENT)", ErrSyntax, 17, "cannot have a DEFAULT"},
		{"CREATE TABLE t (a VARCHAR(3) AUTO_INCREMENT)", ErrSyntax, 17, "must have an integer type"},
		{"CREATE TABLE t (a INT DEFAULT NOW())", ErrSyntax, 17, "needs a DATETIME or TIMESTAMP column"},
		{"CREATE TABLE t (a INT ON UPDATE CURRENT_TIMESTAMP)", ErrNotSupported, 17, "ON UPDATE"},
		{"CREATE TABLE t (a INT NULL NOT NULL)", ErrSyntax, 17, "both NULL and NOT NULL"},
		{"CREATE TABLE t (a INT, b INT, INDEX (a, b))", ErrNotSupported, 1, "several columns"},
		{"CREATE TABLE t (a INT, INDEX (b))", ErrSyntax, 1, "index column b is not defined"},
		{"CREATE TABLE t (a INT, b INT, FOREIGN KEY (c) REFERENCES u (b))", ErrSyntax, 1, "FOREIGN KEY column c is not defined"},
		{"CREATE TABLE t (a INT, b INT, FOREIGN KEY (a, b) REFERENCES u (b))", ErrSyntax, 1, "same number of columns"},
		{"CREATE TABLE t (a INT, KEY (a DESC))", ErrNotSupported, 1, "descending"},
		{"CREATE TABLE t (a INT) ENGINE=MyISAM", ErrNotSupported, 1, "ENGINE=MyISAM"},
		{"CREATE TABLE t (a INT) CHARSET latin1", ErrNotSupported, 1, "CHARACTER SET latin1"},
		{"CREATE TABLE t (a INT) COLLATE utf8mb4_general_ci", ErrNotSupported, 1, "byte by byte"},
		{"CREATE TABLE t (a INT) CHARSET utf8mb4 COLLATE utf8_bin", ErrSyntax, 1, "not valid for CHARACTER SET utf8mb4"},
		{"CREATE TABLE t (a INT) ROW_FORMAT=DYNAMIC", ErrNotSupported, 1, "table option ROW_FORMAT"},
		{"CREATE TABLE t (s VARCHAR(10) CHARACTER SET latin1)", ErrNotSupported, 19, "CHARACTER SET latin1"},
		{"CREATE TABLE t (s VARCHAR(10) COLLATE utf8mb4_general_ci)", ErrNotSupported, 17, "COLLATE utf8mb4_general_ci for column s"},
		{"CREATE TABLE t IGNORE AS SELECT 1", ErrNotSupported, 1, "IGNORE | REPLACE SELECT"},
		{"CREATE TEMPORARY TABLE t (a INT)", ErrNotSupported, 1, "temporary"},
		{"ALTER TABLE t MODIFY COLUMN a BIGINT", ErrNotSupported, 15, "ALTER TABLE MODIFY COLUMN"},
		{"ALTER TABLE t ADD c INT, RENAME TO u", ErrNotSupported, 26, "RENAME combined"},
		{"ALTER TABLE t ADD c INT FIRST", ErrNotSupported, 15, "FIRST / AFTER"},
		{"CREATE SCHEMA a DEFAULT CHARACTER SET utf8", ErrNotSupported, 17, "DEFAULT option"},
		{"CREATE SCHEMA a COMMENT 'x' COMMENT 'y'", ErrSyntax, 29, "duplicate COMMENT"},
		{"CREATE SCHEMA a WITH PROPERTIES (k = 'v', k = 'w')", ErrSyntax, 43, `duplicate property "k"`},
		{"CREATE SCHEMA a WITH PROPERTIES (k = 3)", ErrSyntax, 38, "expected a string property value"},
		{"CREATE SCHEMA a WITH PROPERTIES ()", ErrSyntax, 34, "expected a property key"},
		{"CREATE SCHEMA a WITH PROPERTIES (k = 'v'", ErrSyntax, 41, "end of input"},
		{"CREATE SCHEMA WITH PROPERTIES (k = 'v')", ErrSyntax, 15, "expected a schema name"},
		{"CREATE SCHEMA a.", ErrSyntax, 17, "name part after '.'"},
		{"CREATE SCHEMA a b", ErrSyntax, 17, "expected COMMENT, WITH PROPERTIES or end of statement"},
		{"DROP SCHEMA a SOMETIMES", ErrSyntax, 15, "expected end of statement"},
		{"ALTER SCHEMA a RENAME TO b", ErrNotSupported, 16, "only SET PROPERTIES"},
		{"ALTER SCHEMA a", ErrSyntax, 15, "expected SET PROPERTIES"},
		{"USE", ErrSyntax, 4, "expected a namespace name"},
		{"USE a b", ErrSyntax, 7, "expected end of statement"},
		{"SHOW TABLES FROM", ErrSyntax, 17, "expected a namespace name"},
		{"SHOW TABLES LIKE x", ErrSyntax, 18, "expected a LIKE pattern string"},
		{"SHOW COLUMNS FROM a.t FROM b", ErrSyntax, 28, "ambiguous"},
		{"SHOW INDEX FROM t LIKE 'x'", ErrSyntax, 19, "expected end of statement"},
		{"SHOW TABLES WHERE", ErrSyntax, 18, "expected an expression"},
		{"SHOW TABLES WHERE a = = 1", ErrSyntax, 23, "syntax error"},
		{"SHOW TABLES WHERE a = 1 LIMIT 3", ErrSyntax, 19, "only an expression may follow WHERE"},
		{"SHOW TABLES WHERE a = 1 ORDER BY b", ErrSyntax, 19, "only an expression may follow WHERE"},
		{"CALL f(a + 1)", ErrNotSupported, 1, "CALL argument 1"},
		{"SELECT * FROM t WHERE a = :name", ErrSyntax, 27, "unbound placeholder :name"},
		{"BEGIN PESSIMISTIC", ErrNotSupported, 1, "transaction options"},
		{"ROLLBACK TO SAVEPOINT s", ErrNotSupported, 1, "SAVEPOINT"},
		{"DROP TEMPORARY TABLE t", ErrNotSupported, 1, "temporary"},
		{"CREATE TABLE t (a VECTOR<DOUBLE>(3))", ErrSyntax, 36, "Only VECTOR is supported"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := Parse(tt.sql)
			wantErr(t, err, tt.kind, 1, tt.col, tt.msg)
		})
	}
}

// TestCreateTableOptions: the table options migrations send that say what
// lancecat does anyway are accepted (MySQL 8 accepts them all).
func TestCreateTableOptions(t *testing.T) {
	for _, q := range []string{
		"CREATE TABLE t (a INT) CHARSET utf8mb4 COLLATE utf8mb4_bin",
		"CREATE TABLE t (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin",
		"CREATE TABLE t (a INT) ENGINE innodb, CHARACTER SET = utf8, COMMENT = 'x'",
		"CREATE TABLE t (s VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin) CHARSET utf8mb4",
	} {
		st := parseOne(t, q).(*CreateTable)
		if st.Charset == "" {
			t.Errorf("%s: charset not kept", q)
		}
	}
	st := parseOne(t, "CREATE TABLE t (a INT) COLLATE utf8mb4_bin").(*CreateTable)
	if st.Collation != "utf8mb4_bin" {
		t.Errorf("collation %q", st.Collation)
	}
}

// TestNames covers name forms: deep dotted, backquoted with dots, quotes and spaces, unicode, in
// our own parser (USE), through TiDB (DROP TABLE), and in queries.
func TestNames(t *testing.T) {
	tests := []struct {
		text string
		want Name
	}{
		{"t", Name{"t"}},
		{"a.b", Name{"a", "b"}},
		{"prod.ml.events", Name{"prod", "ml", "events"}},
		{"a.b.c.d.e.f.g", Name{"a", "b", "c", "d", "e", "f", "g"}},
		{"`a.b`", Name{"a.b"}},
		{"`a.b`.c", Name{"a.b", "c"}},
		{"x.`a.b`.c", Name{"x", "a.b", "c"}},
		{"`we``ird`.`x y`", Name{"we`ird", "x y"}},
		{"`it's`.`\"q\"`.`;`", Name{"it's", `"q"`, ";"}},
		{"données.événements", Name{"données", "événements"}},
		{"`日本`.表.`列 表`", Name{"日本", "表", "列 表"}},
		{"a . b . c", Name{"a", "b", "c"}},
		{"a./* c */b.c", Name{"a", "b", "c"}},
		{"`select`.`from`.`table`", Name{"select", "from", "table"}},
		{"db1.x.`1abc`", Name{"db1", "x", "1abc"}},
		{"`__lancecat_name_0`.b.c", Name{"__lancecat_name_0", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := parseOne(t, "USE "+tt.text).(*Use).Namespace; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("USE: got %q", got)
			}
			dt := parseOne(t, "DROP TABLE "+tt.text+", other").(*DropTable)
			if !reflect.DeepEqual(dt.Names, []Name{tt.want, {"other"}}) {
				t.Errorf("DROP TABLE: got %q", dt.Names)
			}
			sel := parseOne(t, "SELECT * FROM "+tt.text+" WHERE id = 1").(*Select)
			refs := sel.Tables()
			if len(refs) != 1 || !reflect.DeepEqual(refs[0].Name, tt.want) {
				t.Errorf("SELECT: got %+v", refs)
			}
			// Round trip through Name.String.
			if got := parseOne(t, "USE "+tt.want.String()).(*Use).Namespace; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("String() %q parses back as %q", tt.want.String(), got)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	st := parseOne(t, "SELECT * FROM information_schema.tables WHERE table_schema = 'a'").(*Select)
	if st.Where == nil || len(st.Items) != 1 || !st.Items[0].Star {
		t.Fatalf("no select/where: %#v", st)
	}
	if refs := st.Tables(); len(refs) != 1 || !reflect.DeepEqual(refs[0].Name, Name{"information_schema", "tables"}) {
		t.Errorf("tables: %+v", refs)
	}

	st = parseOne(t, "SELECT a, e.b, prod.ml.events.c, prod.ml.events.* FROM prod.ml.events e JOIN x.y.z.w ON e.id = x.y.z.w.id WHERE id = 3 LIMIT 10").(*Select)
	if st.Limit == nil {
		t.Errorf("LIMIT lost")
	}
	var gotTables []string
	for _, r := range st.Tables() {
		gotTables = append(gotTables, r.Name.String())
	}
	if strings.Join(gotTables, "|") != "prod.ml.events|x.y.z.w" {
		t.Errorf("tables = %v", gotTables)
	}
	colQual := func(i int) (Name, string) {
		c := st.Items[i].Expr.(*ColumnRef)
		return c.Qualifier, c.Column
	}
	if q, c := colQual(0); q != nil || c != "a" {
		t.Errorf("field 0: %v %s", q, c)
	}
	if q, c := colQual(1); !reflect.DeepEqual(q, Name{"e"}) || c != "b" {
		t.Errorf("field 1: %v %s", q, c)
	}
	if q, c := colQual(2); !reflect.DeepEqual(q, Name{"prod", "ml", "events"}) || c != "c" {
		t.Errorf("field 2: %v %s", q, c)
	}
	if it := st.Items[3]; !it.Star || !reflect.DeepEqual(it.Qualifier, Name{"prod", "ml", "events"}) {
		t.Errorf("field 3 wildcard: %+v", it)
	}
	on := st.From.(*Join).On.(*Binary)
	if r := on.R.(*ColumnRef); !reflect.DeepEqual(r.Qualifier, Name{"x", "y", "z", "w"}) || r.Column != "id" {
		t.Errorf("join column: %v %s", r.Qualifier, r.Column)
	}

	// Set operations keep their operands.
	st = parseOne(t, "SELECT a FROM a.b.c UNION ALL SELECT a FROM d").(*Select)
	if len(st.SetOps) != 2 || st.SetOps[1].Op != UnionAll || st.Items != nil {
		t.Errorf("union: %+v", st)
	}
	if refs := st.Tables(); len(refs) != 2 || refs[0].Name.String() != "a.b.c" {
		t.Errorf("union tables: %+v", refs)
	}
	// A placeholder survives parsing as a parameter marker.
	st = parseOne(t, "SELECT * FROM t WHERE a = ?").(*Select)
	if p, ok := st.Where.(*Binary).R.(*Param); !ok || p.Ordinal != 1 {
		t.Errorf("param marker lost")
	}
}

func TestExplain(t *testing.T) {
	st := parseOne(t, "EXPLAIN SELECT a FROM p.q.r").(*Explain)
	sel, ok := st.Stmt.(*Select)
	if !ok || sel.Tables()[0].Name.String() != "p.q.r" || st.Analyze {
		t.Errorf("explain: %#v", st)
	}
	st = parseOne(t, "EXPLAIN ANALYZE SELECT 1").(*Explain)
	if !st.Analyze {
		t.Errorf("analyze lost")
	}
	st = parseOne(t, "EXPLAIN FORMAT = 'brief' SELECT 1").(*Explain)
	if st.Format != "brief" {
		t.Errorf("format = %q", st.Format)
	}
	st = parseOne(t, "DESC SELECT 1").(*Explain)
	if _, ok := st.Stmt.(*Select); !ok {
		t.Errorf("DESC SELECT: %#v", st.Stmt)
	}
	st = parseOne(t, "EXPLAIN INSERT INTO t VALUES (1)").(*Explain)
	if u, ok := st.Stmt.(*Unsupported); !ok || u.Kind != "INSERT" {
		t.Errorf("EXPLAIN INSERT: %#v", st.Stmt)
	}
}

func TestShowWhere(t *testing.T) {
	tests := []string{
		"SHOW SCHEMAS WHERE `Database` LIKE 'a%'",
		"SHOW NAMESPACES FROM a.b WHERE x = 1",
		"SHOW TABLES FROM a.b.c WHERE x.y.z = 1 AND b <> 'q'",
		"SHOW TABLE STATUS WHERE name = 'x'",
		"SHOW COLUMNS FROM a.b.t WHERE `Type` = 'int'",
		"SHOW INDEX FROM t WHERE key_name = 'PRIMARY'",
	}
	for _, sql := range tests {
		t.Run(sql, func(t *testing.T) {
			var f Filter
			switch st := parseOne(t, sql).(type) {
			case *ShowSchemas:
				f = st.Filter
			case *ShowTables:
				f = st.Filter
			case *ShowTableStatus:
				f = st.Filter
			case *ShowColumns:
				f = st.Filter
			case *ShowIndex:
				f = st.Filter
			default:
				t.Fatalf("type %T", st)
			}
			if f.Where == nil || f.Like != nil {
				t.Fatalf("filter %+v", f)
			}
		})
	}
	st := parseOne(t, "SHOW TABLES FROM a.b.c WHERE x.y.z = 1").(*ShowTables)
	if !reflect.DeepEqual(st.Namespace, Name{"a", "b", "c"}) {
		t.Errorf("namespace %v", st.Namespace)
	}
	ref := st.Where.(*Binary).L.(*ColumnRef)
	if q, c := ref.Qualifier, ref.Column; !reflect.DeepEqual(q, Name{"x", "y"}) || c != "z" {
		t.Errorf("where column %v %s", q, c)
	}
}

func TestUnsupported(t *testing.T) {
	tests := []struct{ sql, kind string }{
		{"GRANT SELECT ON a.* TO 'u'@'%'", "GRANT"},
		{"SET PASSWORD = 'x'", "SET"},
		{"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", "CREATE VIEW"},
		{"CREATE SEQUENCE s", "CREATE SEQUENCE"},
		{"DROP VIEW v", "DROP VIEW"},
		{"DROP SEQUENCE s", "DROP SEQUENCE"},
		{"SHOW STATUS", "SHOW STATUS"},
		{"SHOW GLOBAL STATUS", "SHOW STATUS"},
		{"SHOW CREATE VIEW v", "SHOW CREATE VIEW"},
		{"ANALYZE TABLE t", "ANALYZE"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			u, ok := parseOne(t, tt.sql).(*Unsupported)
			if !ok {
				t.Fatalf("not Unsupported")
			}
			if u.Kind != tt.kind {
				t.Errorf("kind %q", u.Kind)
			}
			err := u.Err()
			if !errors.Is(err, ErrNotSupported) || err.Error() != "line 1 column 1: not supported: "+tt.kind {
				t.Errorf("err = %v", err)
			}
		})
	}
	// INSERT is a statement of its own, with multi-part names restored.
	ins := parseOne(t, "INSERT INTO a.b.t VALUES (1, 'x')").(*Insert)
	if ins.Table.String() != "a.b.t" || len(ins.Rows) != 1 || len(ins.Rows[0]) != 2 {
		t.Errorf("insert %+v", ins)
	}
	ins = parseOne(t, "insert into t select * from u").(*Insert)
	if ins.Query == nil || ins.Rows != nil {
		t.Errorf("insert ... select %+v", ins)
	}
}

func TestStringEscapes(t *testing.T) {
	tests := []struct{ lit, want string }{
		{`'plain'`, "plain"},
		{`'it''s'`, "it's"},
		{`'it\'s'`, "it's"},
		{`"dq ""x"" 'y'"`, `dq "x" 'y'`},
		{`'a\nb\tc\\d\0e\Zf\rg\bh'`, "a\nb\tc\\d\x00e\x1af\rg\bh"},
		{`'\%\_\q'`, `\%\_q`},
		{`'semi;colon -- not a comment /* nor this */ # nor this'`, "semi;colon -- not a comment /* nor this */ # nor this"},
		{"'multi\nline'", "multi\nline"},
		{`'ünï©ødé'`, "ünï©ødé"},
		{`N'national'`, "national"},
	}
	for _, tt := range tests {
		t.Run(tt.lit, func(t *testing.T) {
			st := parseOne(t, "CREATE SCHEMA s COMMENT "+tt.lit).(*CreateSchema)
			if *st.Comment != tt.want {
				t.Errorf("own parser: %q, want %q", *st.Comment, tt.want)
			}
			c := parseOne(t, "CALL f("+tt.lit+")").(*Call)
			if c.Args[0] != tt.want {
				t.Errorf("TiDB: %q, want %q", c.Args[0], tt.want)
			}
		})
	}
}

func TestScriptsAndComments(t *testing.T) {
	script := "-- leading comment; with a semicolon\n" +
		"CREATE SCHEMA a; # hash comment ; here\n" +
		"/* block ; comment */ CREATE TABLE a.t (x INT) /* trailing */;\n" +
		";;  ;\n" +
		"SELECT 1--1\n" +
		";SELECT '--;' -- real comment\n" +
		"/* multi\n line ; */"
	stmts, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	wantTexts := []string{"CREATE SCHEMA a", "CREATE TABLE a.t (x INT)", "SELECT 1--1", "SELECT '--;'"}
	wantLineCol := [][2]int{{2, 1}, {3, 23}, {5, 1}, {6, 2}}
	if len(stmts) != len(wantTexts) {
		t.Fatalf("got %d statements", len(stmts))
	}
	for i, st := range stmts {
		want := Pos{Line: wantLineCol[i][0], Column: wantLineCol[i][1], Offset: strings.Index(script, wantTexts[i])}
		if st.Text() != wantTexts[i] || st.Position() != want {
			t.Errorf("statement %d: %q at %+v, want %q at %+v", i, st.Text(), st.Position(), wantTexts[i], want)
		}
	}
	// `1--1` is 1 - (-1), not a comment: MySQL needs whitespace after "--".
	if _, ok := stmts[2].(*Select); !ok {
		t.Errorf("statement 2 is %T", stmts[2])
	}
	if stmts, err := Parse(" ;\n -- nothing\n ; /* */ "); err != nil || len(stmts) != 0 {
		t.Errorf("empty script: %v %v", stmts, err)
	}
	if _, err := ParseOne("SELECT 1; SELECT 2"); err == nil {
		t.Errorf("ParseOne accepted two statements")
	}
	if st, err := ParseOne("SELECT 1;"); err != nil || st.Text() != "SELECT 1" {
		t.Errorf("ParseOne with trailing ';': %v %v", st, err)
	}
}

// TestScriptErrors checks that errors in later statements of multi-line scripts report the
// line and column in the original script and that the statements before are returned.
func TestScriptErrors(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		prefix     int
		kind       error
		line, col  int
		msgContain string
	}{
		{"TiDB syntax error in third statement",
			"CREATE SCHEMA a;\nCREATE TABLE a.t (x INT);\nSELECT *\n  FROM a.t\n  WHERE x = ) ;\nSELECT 2",
			2, ErrSyntax, 5, 13, `near ") ;"`},
		{"error after deep name rewrite on the same line",
			"SELECT 1;\n  SELECT a.b.c.d FROM prod.ml.events WHERE ==",
			1, ErrSyntax, 2, 44, `near "=="`},
		{"own parser error in second statement",
			"USE a;\n\n   CREATE SCHEMA b WITH PROPERTIES (k = 1)",
			1, ErrSyntax, 3, 41, "expected a string property value"},
		{"unterminated string",
			"SELECT 1;\nSELECT 'abc;\nSELECT 2",
			1, ErrSyntax, 2, 8, "unterminated string literal"},
		{"unterminated comment",
			"SELECT 1; /* oops",
			1, ErrSyntax, 1, 11, "unterminated comment"},
		{"unterminated backquote",
			"SELECT 1;\nUSE `a",
			1, ErrSyntax, 2, 5, "unterminated quoted identifier"},
		{"unicode columns count code points",
			"SELECT 'ééé';  SELECT 'ü' FROM FROM",
			1, ErrSyntax, 1, 32, `near "FROM"`},
		{"unexpected end",
			"SELECT 1;\nSELECT * FROM",
			1, ErrSyntax, 2, 14, "unexpected end of statement"},
		{"unsupported type deep in script",
			"BEGIN;\nCREATE TABLE x.y.z (\n\tid INT,\n\tg POINT\n);\nCOMMIT",
			1, ErrNotSupported, 4, 4, "unsupported type POINT"},
		{"CALL arguments",
			"SELECT 1;\n CALL f(x)",
			1, ErrNotSupported, 2, 2, "arguments must be literals"},
		{"placeholder prefix cannot collide",
			"SELECT * FROM `__lancecat_name_0`.b.c WHERE )",
			0, ErrSyntax, 1, 45, `near ")"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmts, err := Parse(tt.script)
			if len(stmts) != tt.prefix {
				t.Errorf("prefix has %d statements, want %d", len(stmts), tt.prefix)
			}
			wantErr(t, err, tt.kind, tt.line, tt.col, tt.msgContain)
		})
	}
}

// TestStatementsLazy checks that Statements yields statements before an error and parses lazily.
func TestStatementsLazy(t *testing.T) {
	var got []string
	var gotErr error
	for st, err := range Statements("CREATE SCHEMA a; SELECT FROM; SELECT 3") {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, st.Text())
	}
	if len(got) != 1 || got[0] != "CREATE SCHEMA a" || gotErr == nil {
		t.Errorf("got %v, err %v", got, gotErr)
	}
	// Stopping early never looks at the broken statement.
	for st, err := range Statements("SELECT 1; SELECT FROM FROM") {
		if err != nil {
			t.Fatalf("parsed past the break: %v", err)
		}
		_ = st
		break
	}
}

func TestStatementKind(t *testing.T) {
	lexed := func(s string) []token { toks, _ := lex(s, 0, len(s)); return toks }
	for sql, want := range map[string]string{
		"insert into t":                 "INSERT",
		"CREATE OR REPLACE VIEW v":      "CREATE VIEW",
		"SHOW FULL PROCESSLIST":         "SHOW PROCESSLIST",
		"show create user x":            "SHOW CREATE USER",
		"(SELECT 1)":                    "statement",
		"CREATE GLOBAL TEMPORARY TABLE": "CREATE TABLE",
	} {
		if got := statementKind(lexed(sql)); got != want {
			t.Errorf("%q: %q, want %q", sql, got, want)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Parse("SELECT 1;\n  SELECT FROM")
	if err == nil || !strings.HasPrefix(err.Error(), "line 2 column 10: syntax error near \"FROM\"") {
		t.Errorf("err = %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Pos.Offset != 19 {
		t.Errorf("as: %+v", e)
	}
}

// Deep expressions are refused before the parser recurses into them: at
// a million levels the recursion would exhaust the stack (fatal, not a
// panic a recover could catch).
func TestExpressionDepthLimit(t *testing.T) {
	n := MaxExpressionDepth + 1
	for _, q := range []string{
		"SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"SELECT a FROM t WHERE " + strings.Repeat("NOT ", n) + "a = 1",
		"SELECT " + strings.Repeat("- ", n) + "1",
		"SELECT " + strings.Repeat("-(", n) + "1" + strings.Repeat(")", n),
	} {
		if _, err := Parse(q); !errors.Is(err, ErrLimit) {
			t.Errorf("%.40s...: %v, want ErrLimit", q, err)
		}
	}
	ok := MaxExpressionDepth - 1
	if _, err := Parse("SELECT " + strings.Repeat("(", ok) + "1" + strings.Repeat(")", ok) + " - -1"); err != nil {
		t.Errorf("depth %d: %v", ok, err)
	}
}

// TestScriptPosMatchesRuneCount checks the fast paths of script.pos (ASCII lines, and counting on
// from the last position of a non-ASCII line) against counting runes from the line start, for
// offsets in increasing, decreasing and random order.
func TestScriptPosMatchesRuneCount(t *testing.T) {
	src := "SELECT 1;\nINSERT INTO t VALUES ('héllo', 'wörld'), ('日本', 'x');\n\nSELECT 'ü' -- é\nEND"
	sc := newScript(src)
	naive := func(off int) Pos {
		line, start := 1, 0
		for i := 0; i < off; i++ {
			if src[i] == '\n' {
				line, start = line+1, i+1
			}
		}
		return Pos{Line: line, Column: 1 + utf8.RuneCountInString(src[start:off]), Offset: off}
	}
	var offs []int
	for off := 0; off <= len(src); off++ {
		if utf8.RuneStart(src[min(off, len(src)-1)]) || off == len(src) {
			offs = append(offs, off)
		}
	}
	orders := [][]int{offs, slices.Clone(offs), slices.Clone(offs)}
	slices.Reverse(orders[1])
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(orders[2]), func(i, j int) { orders[2][i], orders[2][j] = orders[2][j], orders[2][i] })
	for _, order := range orders {
		for _, off := range order {
			if got, want := sc.pos(off), naive(off); got != want {
				t.Fatalf("pos(%d) = %+v, want %+v", off, got, want)
			}
		}
	}
}

// BenchmarkParseLongInsertLine parses a one-line INSERT of 5,000 rows with non-ASCII literals,
// where positions used to be counted from the line start for every literal (quadratic).
func BenchmarkParseLongInsertLine(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO t VALUES ")
	for i := range 5000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(1, 'é')")
	}
	sql := sb.String()
	for b.Loop() {
		if _, err := Parse(sql); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOperatorChainLimit: a chain of binary operators builds a tree as deep
// as it is long; a million terms used to exhaust the converter's stack
// (fatal error: stack overflow) or, converted, take 2 GB. Chains beyond
// MaxOperatorChain are refused at the operator that crosses the limit,
// with its position; shorter chains parse and print back in linear time.
func TestOperatorChainLimit(t *testing.T) {
	long := MaxOperatorChain + 1
	half := MaxOperatorChain/2 + 1
	for _, c := range []struct{ name, q string }{
		{"plus 1M", "SELECT 1" + strings.Repeat("+1", 1_000_000)},
		{"or 1M", "SELECT 0" + strings.Repeat(" OR 0", 1_000_000)},
		{"and over limit", "SELECT a FROM t WHERE a=1" + strings.Repeat(" AND a=1", long/2)},
		{"nested halves", "SELECT (1" + strings.Repeat("+1", half) + ")" + strings.Repeat("+1", half)},
		{"inside function", "SELECT f(1, 2" + strings.Repeat("*2", long) + ")"},
	} {
		_, err := Parse(c.q)
		var pe *Error
		if !errors.Is(err, ErrLimit) || !errors.As(err, &pe) || pe.Pos.Line != 1 || pe.Pos.Column < 8 {
			t.Errorf("%s: %v, want ErrLimit with a position", c.name, err)
		}
	}
	// Siblings are not a chain: long lists and two half chains side by side parse.
	for _, q := range []string{
		"SELECT 1" + strings.Repeat("+1", MaxOperatorChain-1),
		"SELECT a FROM t WHERE a IN (1" + strings.Repeat(",1", 100_000) + ")",
		"SELECT 1" + strings.Repeat("+1", half) + ", 1" + strings.Repeat("+1", half),
		"SELECT f(1" + strings.Repeat("+1", half) + ", 1" + strings.Repeat("+1", half) + ")",
	} {
		st, err := Parse(q)
		if err != nil {
			t.Errorf("%.40s...: %v", q, err)
			continue
		}
		_ = st[0].(*Select).Items[0].Expr.String()
	}
	chain := "1" + strings.Repeat(" + 1", MaxOperatorChain-1)
	st, err := Parse("SELECT " + chain)
	if err != nil {
		t.Fatal(err)
	}
	if got := st[0].(*Select).Items[0].Expr.String(); got != chain {
		t.Errorf("String of the chain: %.60s... (%d bytes), want %d bytes", got, len(got), len(chain))
	}
}

// TestLifecycleStatements: the table lifecycle statements (lifecycle.go), AS OF on a table
// reference, and the upsert forms of INSERT.
func TestLifecycleStatements(t *testing.T) {
	one := func(sql string) Statement {
		t.Helper()
		sts, err := Parse(sql)
		if err != nil || len(sts) != 1 {
			t.Fatalf("%s: %v", sql, err)
		}
		return sts[0]
	}
	if st, ok := one("TRUNCATE TABLE a.b.t").(*TruncateTable); !ok || !reflect.DeepEqual(st.Table, Name{"a", "b", "t"}) {
		t.Fatalf("TRUNCATE: %#v", st)
	}
	if st, ok := one("TRUNCATE t").(*TruncateTable); !ok || !reflect.DeepEqual(st.Table, Name{"t"}) {
		t.Fatalf("TRUNCATE without TABLE: %#v", st)
	}
	if st, ok := one("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t, a.b.u").(*OptimizeTable); !ok || !reflect.DeepEqual(st.Tables, []Name{{"t"}, {"a", "b", "u"}}) {
		t.Fatalf("OPTIMIZE: %#v", st)
	}
	if st, ok := one("SHOW VERSIONS FROM t IN a.b").(*ShowVersions); !ok || !reflect.DeepEqual(st.Table, Name{"a", "b", "t"}) {
		t.Fatalf("SHOW VERSIONS: %#v", st)
	}
	sel, ok := one("SELECT * FROM a.b.t AS x AS OF TIMESTAMP '2026-01-02 03:04:05'").(*Select)
	if !ok {
		t.Fatal("AS OF: not a select")
	}
	ts := sel.From.(*TableSource)
	if lit, ok := ts.AsOf.(*Literal); !ok || lit.Value != "2026-01-02 03:04:05" || ts.Alias != "x" || !reflect.DeepEqual(ts.Table, Name{"a", "b", "t"}) {
		t.Fatalf("AS OF: %#v", ts)
	}
	sel = one("SELECT * FROM t AS OF TIMESTAMP table_version(3)").(*Select)
	if fc, ok := sel.From.(*TableSource).AsOf.(*FuncCall); !ok || !strings.EqualFold(fc.Name, "table_version") {
		t.Fatalf("AS OF table_version: %#v", fc)
	}
	if st := one("REPLACE INTO t VALUES (1)").(*Insert); !st.Replace {
		t.Fatal("REPLACE is not Replace")
	}
	if st := one("INSERT IGNORE INTO t VALUES (1)").(*Insert); !st.Ignore {
		t.Fatal("INSERT IGNORE is not Ignore")
	}
	st := one("INSERT INTO t VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUES(b) + 1").(*Insert)
	if len(st.OnDuplicate) != 1 || !strings.Contains(strings.ToLower(st.OnDuplicate[0].Value.String()), "values(") {
		t.Fatalf("ON DUPLICATE KEY UPDATE: %#v", st.OnDuplicate)
	}
	st = one("INSERT INTO t (a, b) VALUES (1, 2) AS new(x, y) ON DUPLICATE KEY UPDATE b = new.y + t.b").(*Insert)
	if got := st.OnDuplicate[0].Value.String(); !strings.Contains(strings.ToLower(got), "values(`b`)") && !strings.Contains(strings.ToLower(got), "values(b)") {
		t.Fatalf("row alias: %s", got)
	}
	st = one("INSERT INTO t SELECT * FROM (SELECT 1) AS d ON DUPLICATE KEY UPDATE b = d.b").(*Insert)
	if st.Query == nil || strings.Contains(strings.ToLower(st.OnDuplicate[0].Value.String()), "values") {
		t.Fatalf("a derived table alias is no row alias: %v", st.OnDuplicate[0].Value)
	}
	if _, err := Parse("OPTIMIZE t"); err == nil {
		t.Fatal("OPTIMIZE without TABLE parsed")
	}
}
