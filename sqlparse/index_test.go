package sqlparse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseIndexStatements(t *testing.T) {
	tests := []struct {
		sql  string
		want Statement
	}{
		{"CREATE INDEX i ON t (c)", &CreateIndex{Name: "i", Table: Name{"t"}, Column: "c"}},
		{"create index if not exists `my idx` on a.b.c.t (`weird col`) using bitmap",
			&CreateIndex{IfNotExists: true, Name: "my idx", Table: Name{"a", "b", "c", "t"}, Column: "weird col", Using: "BITMAP"}},
		{"CREATE INDEX i USING BTREE ON x.t (c ASC)", &CreateIndex{Name: "i", Table: Name{"x", "t"}, Column: "c", Using: "BTREE"}},
		{"CREATE INDEX i ON t (tags) USING LABEL_LIST", &CreateIndex{Name: "i", Table: Name{"t"}, Column: "tags", Using: "LABEL_LIST"}},
		{"CREATE INDEX i ON t (c) USING hash", &CreateIndex{Name: "i", Table: Name{"t"}, Column: "c", Using: "HASH"}},
		{"DROP INDEX i ON t", &DropIndex{Name: "i", Table: Name{"t"}}},
		{"DROP INDEX IF EXISTS i ON p.q.r.t", &DropIndex{IfExists: true, Name: "i", Table: Name{"p", "q", "r", "t"}}},
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

func TestParseIndexErrors(t *testing.T) {
	tests := []struct {
		sql      string
		kind     error
		column   int
		contains string
	}{
		{"CREATE SPATIAL INDEX i ON t (c)", ErrNotSupported, 1, "CREATE SPATIAL INDEX"},
		{"CREATE INDEX i ON t (a, b)", ErrNotSupported, 23, "several columns"},
		{"CREATE INDEX i ON t (a(10))", ErrNotSupported, 23, "prefix lengths"},
		{"CREATE INDEX i ON t (a DESC)", ErrNotSupported, 24, "descending"},
		{"CREATE INDEX a.i ON t (a)", ErrSyntax, 14, "one identifier"},
		{"CREATE INDEX i ON t", ErrSyntax, 20, `expected "("`},
		{"CREATE INDEX i t (a)", ErrSyntax, 16, "expected ON"},
		{"CREATE INDEX i USING BTREE ON t (a) USING BITMAP", ErrSyntax, 43, "two index types"},
		{"CREATE INDEX i ON t (a) USING", ErrSyntax, 30, "an index type"},
		{"CREATE INDEX i ON t (a) COMMENT 'x'", ErrSyntax, 25, "expected end of statement"},
		{"DROP INDEX i", ErrSyntax, 13, "expected ON"},
		{"DROP INDEX i ON", ErrSyntax, 16, "a table name"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := ParseOne(tt.sql)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tt.kind) || e.Pos.Column != tt.column || !strings.Contains(e.Msg, tt.contains) {
				t.Fatalf("got %v, want %v at column %d containing %q", err, tt.kind, tt.column, tt.contains)
			}
		})
	}
}
