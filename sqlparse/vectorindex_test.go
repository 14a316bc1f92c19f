package sqlparse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseVectorIndex(t *testing.T) {
	tests := []struct {
		sql  string
		want Statement
	}{
		{"CREATE VECTOR INDEX i ON t (v)", &CreateIndex{Vector: true, Name: "i", Table: Name{"t"}, Column: "v"}},
		{"create vector index if not exists i on a.t (v) using ivf_pq with properties (num_partitions = 8, metric = 'cosine')",
			&CreateIndex{Vector: true, IfNotExists: true, Name: "i", Table: Name{"a", "t"}, Column: "v", Using: "IVF_PQ",
				Properties: []Property{{"num_partitions", "8"}, {"metric", "cosine"}}}},
		{"CREATE VECTOR INDEX i ON t ((VEC_COSINE_DISTANCE(emb))) USING HNSW",
			&CreateIndex{Vector: true, Name: "i", Table: Name{"t"}, Column: "emb", Using: "HNSW", Metric: "cosine"}},
		{"CREATE VECTOR KEY i ON t ((vec_negative_inner_product(emb)))",
			&CreateIndex{Vector: true, Name: "i", Table: Name{"t"}, Column: "emb", Metric: "dot"}},
		{"ALTER TABLE x.t ADD VECTOR INDEX i ((VEC_L2_DISTANCE(v))) USING IVF_FLAT",
			&CreateIndex{Vector: true, Name: "i", Table: Name{"x", "t"}, Column: "v", Using: "IVF_FLAT", Metric: "l2"}},
		{"ALTER TABLE t ADD VECTOR INDEX IF NOT EXISTS i (v) WITH PROPERTIES (m = 16)",
			&CreateIndex{Vector: true, IfNotExists: true, Name: "i", Table: Name{"t"}, Column: "v", Properties: []Property{{"m", "16"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got := clearBase(parseOne(t, tt.sql))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
	bad := []struct {
		sql      string
		kind     error
		contains string
	}{
		{"CREATE VECTOR INDEX i ON t ((VEC_L1_DISTANCE(v)))", ErrNotSupported, "VEC_L1_DISTANCE"},
		{"CREATE VECTOR INDEX i ON t ((LOWER(v)))", ErrSyntax, "VEC_L2_DISTANCE"},
		{"CREATE VECTOR INDEX i ON t (a, b)", ErrNotSupported, "several columns"},
		{"CREATE VECTOR INDEX i USING IVF_PQ ON t (v) USING IVF_FLAT", ErrSyntax, "two index types"},
		{"CREATE VECTOR INDEX i ON t (v) extra", ErrSyntax, ""},
	}
	for _, tt := range bad {
		_, err := Parse(tt.sql)
		if !errors.Is(err, tt.kind) || !strings.Contains(errString(err), tt.contains) {
			t.Errorf("%s: %v, want %v containing %q", tt.sql, err, tt.kind, tt.contains)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
