package driver

import (
	"context"
	"database/sql"
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
