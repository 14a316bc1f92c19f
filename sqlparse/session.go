package sqlparse

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Scope says which variables a SET or SHOW VARIABLES addresses.
type Scope int

const (
	ScopeSession Scope = iota // SET x, SET SESSION x, SET @@x, SET @@session.x, SET NAMES
	ScopeGlobal               // SET GLOBAL x, SET @@global.x
	ScopeUser                 // SET @x
)

// SetVar is one assignment of SET. Name is lower-cased ("names" for SET NAMES,
// whose Value is the character set; Collation holds its COLLATE). Value is a
// literal as Call.Args, a string for a bare word (SET sql_mode = ANSI), or
// nil for DEFAULT.
type SetVar struct {
	Scope     Scope
	Name      string
	Value     any
	Default   bool // SET x = DEFAULT
	Collation string
}

// Set is SET var = value [, ...] and SET NAMES charset [COLLATE c].
type Set struct {
	stmtBase
	Vars []SetVar
}

// ShowVariables is SHOW [GLOBAL | SESSION] VARIABLES [LIKE | WHERE].
type ShowVariables struct {
	stmtBase
	Global bool
	Filter
}

func (c *converter) convertSet(n *ast.SetStmt) (Statement, error) {
	st := &Set{stmtBase: c.base}
	for _, v := range n.Variables {
		sv := SetVar{Name: strings.ToLower(v.Name)}
		switch {
		case v.IsGlobal:
			sv.Scope = ScopeGlobal
		case !v.IsSystem && v.Name != ast.SetNames && v.Name != ast.SetCharset:
			sv.Scope = ScopeUser
		}
		switch v.Name {
		case ast.SetNames, ast.SetCharset:
			sv.Name = "names"
			if v.ExtendValue != nil {
				if s, ok := v.ExtendValue.GetValue().(string); ok {
					sv.Collation = s
				}
			}
		}
		switch x := v.Value.(type) {
		case nil:
			sv.Default = true
		case *ast.DefaultExpr:
			sv.Default = true
		case *ast.ColumnNameExpr: // a bare word: SET sql_mode = ANSI, SET autocommit = ON
			sv.Value = x.Name.Name.O
		default:
			val, err := literalValue(v.Value)
			if err != nil {
				return nil, c.notSupported(c.start(), "SET %s to an expression: %v", sv.Name, err)
			}
			sv.Value = val
		}
		st.Vars = append(st.Vars, sv)
	}
	if len(st.Vars) == 0 {
		return nil, c.notSupported(c.start(), "%s", statementKind(c.toks))
	}
	return st, nil
}

// parseShowVariables parses what follows SHOW [GLOBAL|SESSION] VARIABLES.
func (p *ownParser) parseShowVariables(global bool) (Statement, error) {
	st := &ShowVariables{stmtBase: p.base, Global: global}
	var err error
	st.Filter, err = p.parseFilter(true)
	return st, err
}

// SetValueText renders a SET value as a variable's text (ON/OFF stay as
// written; numbers in decimal).
func SetValueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}
