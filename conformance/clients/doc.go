// Package clients tests lancecat under the Go database clients people use with
// database/sql drivers: sqlx, GORM (through its MySQL dialect over an existing
// *sql.DB) and goose migrations. It is a module of its own so the driver's users
// do not inherit these libraries; the replace directive in go.mod points it at
// the lancecat checkout it sits in.
package clients
