package planner

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqltypes"
)

// Values of table data in result rows (and in WHERE evaluation) are the Go
// values of package sqltypes (its table maps every Arrow type to a Go value,
// a database type name and a scan type); INSERT, UPDATE and defaults write
// them with sqltypes.Append.

// dataColumn describes the result column of an Arrow field.
func dataColumn(f arrow.Field, label string) Column {
	if label == "" {
		label = f.Name
	}
	c := Column{Name: label, DatabaseType: sqltypes.BaseName(f), Nullable: f.Nullable, Field: f}
	c.scan = sqltypes.ScanType(f)
	return c
}

// readerFor returns the converter of arr, a column of field f; a column or
// value it cannot read is a CodeUnsupported error.
func readerFor(f arrow.Field, arr arrow.Array) (sqltypes.ValueReader, error) {
	r, err := sqltypes.Reader(f, arr)
	if err != nil {
		return nil, unsupportedValue(err)
	}
	return func(i int) (any, error) {
		v, err := r(i)
		if err != nil {
			return nil, unsupportedValue(err)
		}
		return v, nil
	}, nil
}

func unsupportedValue(err error) error {
	if errors.Is(err, sqltypes.ErrUnsupportedValue) {
		return &catalog.Error{Code: catalog.CodeUnsupported, Cause: err}
	}
	return err
}
