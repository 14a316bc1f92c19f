package planner

import (
	"testing"
)

// TestDDLNotes: IF [NOT] EXISTS statements that find nothing to do raise
// MariaDB's notes (conformance/mariadb TestDDLNotesMatchMariaDB compares
// them with MariaDB 10.11), and statements that do something raise none.
func TestDDLNotes(t *testing.T) {
	f := newDataFixture(t, Options{})
	f.exec("CREATE SCHEMA d")
	f.exec("USE d")
	f.exec("CREATE TABLE c (a INT)")
	for _, tc := range []struct{ sql, want string }{
		{"CREATE TABLE IF NOT EXISTS c (a INT)", "Note 1050 Table 'c' already exists"},
		{"CREATE TABLE IF NOT EXISTS c AS SELECT 1 AS a", "Note 1050 Table 'c' already exists"},
		{"CREATE TABLE IF NOT EXISTS n (a INT)", ""},
		{"DROP TABLE IF EXISTS nope", "Note 1051 Unknown table 'd.nope'"},
		{"DROP TABLE IF EXISTS nope, n, nope2", "Note 1051 Unknown table 'd.nope,d.nope2'"},
		{"DROP TABLE IF EXISTS c", ""},
		{"CREATE DATABASE IF NOT EXISTS d", "Note 1007 Can't create database 'd'; database exists"},
		{"CREATE SCHEMA IF NOT EXISTS d", "Note 1007 Can't create database 'd'; database exists"},
		// A schema statement without a condition keeps the area (as
		// MariaDB's CREATE DATABASE does); a table statement clears it.
		{"CREATE SCHEMA IF NOT EXISTS d.e", "Note 1007 Can't create database 'd'; database exists"},
		{"CREATE SCHEMA IF NOT EXISTS d.e", "Note 1007 Can't create database 'd.e'; database exists"},
		{"DROP DATABASE IF EXISTS nodb", "Note 1008 Can't drop database 'nodb'; database doesn't exist"},
		{"DROP SCHEMA IF EXISTS d.e", "Note 1008 Can't drop database 'nodb'; database doesn't exist"},
		{"BEGIN; CREATE TABLE IF NOT EXISTS n (a INT); CREATE TABLE IF NOT EXISTS n (a INT)", "Note 1050 Table 'n' already exists"},
		{"COMMIT", "Note 1050 Table 'n' already exists"},
		{"DROP TABLE n", ""},
	} {
		f.exec(tc.sql)
		if got := f.warnings(); got != tc.want {
			t.Errorf("%s: SHOW WARNINGS %q, want %q", tc.sql, got, tc.want)
		}
	}
}
