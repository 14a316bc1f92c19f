package planner

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/planner/exec"
)

// Join key filters in the scan (plan.ChooseKeyFilters): a hash join's
// build keys reach the scan of a table under its probe side through the
// forked session that plans the scan's query (sourceTable.Scan), then its
// dataPlan, whose filtered scan tests the key column on the Arrow arrays
// before it converts the row's other columns.

// joinKeyFilters turns the key filters on (tests compare the answers
// without them).
var joinKeyFilters = true

// tableKeyFilter is a key filter on a table's column, by names.
type tableKeyFilter struct {
	table, column string
	filter        *exec.KeyFilter
}

// dataKeyFilter is a key filter on a schema position of a dataPlan.
type dataKeyFilter struct {
	column int
	filter *exec.KeyFilter
}

// dataKeyFilters resolves the session's key filters on table id.
func (s *Session) dataKeyFilters(id catalog.Ident, schema *arrow.Schema) []dataKeyFilter {
	if len(s.keyFilters) == 0 {
		return nil
	}
	name := displayName(id)
	var out []dataKeyFilter
	for _, kf := range s.keyFilters {
		if kf.table != name {
			continue
		}
		for i, f := range schema.Fields() {
			if f.Name == kf.column && intColumn(f.Type) {
				out = append(out, dataKeyFilter{column: i, filter: kf.filter})
				break
			}
		}
	}
	return out
}

// intColumn reports whether a column's values are int64s that
// intGetter reads (not UNSIGNED BIGINT: its values pass an int64).
func intColumn(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return true
	}
	return false
}

// keySetTest is a key filter's test of the column arr: a row passes when
// its value is one of the build keys; NULL joins nothing. Until the join
// has published its keys (or when it has none to give: keys of another
// type, too many) every row passes.
func keySetTest(arr arrow.Array, f *exec.KeyFilter) func(i int) (int8, bool) {
	set, ok := f.Keys()
	get := intGetter(arr)
	if !ok || get == nil {
		return func(int) (int8, bool) { return 1, true }
	}
	if bits := f.Bits(); bits != nil {
		return func(i int) (int8, bool) {
			if arr.IsNull(i) || !bits.Has(get(i)) {
				return 0, true
			}
			return 1, true
		}
	}
	return func(i int) (int8, bool) {
		if arr.IsNull(i) {
			return 0, true
		}
		if _, in := set[get(i)]; in {
			return 1, true
		}
		return 0, true
	}
}
