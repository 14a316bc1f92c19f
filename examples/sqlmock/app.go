// Package app is a tiny application that keeps its tables in a lancecat
// catalog through database/sql, and shows how to unit-test such code with
// go-sqlmock (app_test.go) as well as against a real in-memory catalog.
package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	lancecat "github.com/lancecat/lancecat/driver"
)

// EnsureTenant creates the namespace of a tenant and its events table if
// they do not exist, in one transaction (one atomic catalog commit).
// Identifiers cannot be bound as arguments: they are quoted with
// lancecat.QuoteName; values (the comment) are bound.
func EnsureTenant(ctx context.Context, db *sql.DB, tenant string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+lancecat.QuoteName(tenant)+" COMMENT ?", "tenant "+tenant); err != nil {
		return fmt.Errorf("create namespace of %s: %w", tenant, err)
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+lancecat.QuoteName(tenant, "events")+
		" (id BIGINT NOT NULL, kind VARCHAR(32), payload JSON, PRIMARY KEY (id))"); err != nil {
		return fmt.Errorf("create events table of %s: %w", tenant, err)
	}
	return tx.Commit()
}

// Tables lists the tables of a tenant, or ErrUnknownTenant.
func Tables(ctx context.Context, db *sql.DB, tenant string) ([]string, error) {
	rows, err := db.QueryContext(ctx,
		"SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME", lancecat.QuoteName(tenant))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, ErrUnknownTenant
	}
	return names, nil
}

// ErrUnknownTenant is returned for a tenant without tables.
var ErrUnknownTenant = errors.New("unknown tenant")

// DropTenant drops a tenant and everything in it; a missing tenant is
// reported as ErrUnknownTenant.
func DropTenant(ctx context.Context, db *sql.DB, tenant string) error {
	_, err := db.ExecContext(ctx, "DROP SCHEMA "+lancecat.QuoteName(tenant)+" CASCADE")
	if errors.Is(err, lancecat.ErrNamespaceNotFound) {
		return ErrUnknownTenant
	}
	return err
}
