package driver

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lancecat/lancecat/storage"
)

// OpenHandles exposes the number of open catalog handles to the tests.
func OpenHandles() int { return openHandles() }

// AutoVacuumRuns reports the auto-vacuum runs of db's catalog handle.
func AutoVacuumRuns(db *sql.DB) (int, error) {
	c, err := db.Conn(context.Background())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var runs int
	var last error
	err = c.Raw(func(dc any) error {
		runs, last = dc.(*Conn).h.cat.AutoVacuumStats()
		return nil
	})
	if err != nil {
		return 0, err
	}
	return runs, last
}

// StoreDurability reports the durability of db's catalog store (local disk
// only).
func StoreDurability(db *sql.DB) (storage.Durability, error) {
	c, err := db.Conn(context.Background())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var d storage.Durability
	err = c.Raw(func(dc any) error {
		ds, ok := dc.(*Conn).h.store.(interface{ Durability() storage.Durability })
		if !ok {
			return fmt.Errorf("store %T reports no durability", dc.(*Conn).h.store)
		}
		d = ds.Durability()
		return nil
	})
	return d, err
}

// PassesBatches reports whether an Arrow escape hatch reader hands on the
// scan's record batches (rather than rebuilding them from rows).
func PassesBatches(r array.RecordReader) bool {
	_, ok := r.(*batchReader)
	return ok
}
