// Package planner turns parsed lancecat SQL statements (package sqlparse) into
// plans and runs them against a directory catalog (package catalog): the
// namespace and table DDL, the SHOW family, DESCRIBE, the CALL procedures,
// transactions over atomic catalog batches, SELECT over the
// information_schema views (with WHERE conditions on schema and table names
// pushed down to catalog lookups), SELECT over table data and INSERT ...
// VALUES (data.go, insert.go: Lance datasets read and appended through
// lance/dataset on Options.Store; the type and value mapping is package
// sqltypes). It
// knows nothing about database/sql (the driver adapts its results), and
// nothing about the TiDB parser: statements and expressions arrive as
// sqlparse's own types.
//
// Every SELECT is a source of rows (a lance/scan scan of a table, the rows
// the catalog lists for an information_schema view, the one row of a
// SELECT without FROM) feeding one selectPipeline (pipeline.go): WHERE,
// COUNT, ORDER BY (top-k under LIMIT, else a sort within Options.MaxRows),
// OFFSET/LIMIT and the projection.
//
// A SELECT whose FROM joins relations runs on the engine packages instead
// (join.go): the FROM clause is a planner/plan tree of Scan and Join
// nodes built by one builder (buildFrom), names are bound by planner/expr,
// the rules of planner/plan push filters and projection into the scans and
// choose hash or nested-loop joins, and planner/exec runs the operators.
// The scans are the paths above behind the plan.Table seam (sourceTable),
// and what runs over the joined rows (WHERE's remainder, aggregates,
// ORDER BY, LIMIT, the projection) is still the selectPipeline. Set
// operations (setop.go) combine their operands' plans and CTEs (cte.go)
// are inlined as derived tables before planning. Still on the old code
// only: every SELECT without a join (single table, view, derived table,
// no FROM), subqueries, DML and SHOW.
//
// A Session is one connection's state: the current namespace set by USE and
// the open transaction, if any. Every Exec runs one statement and returns a
// Result (a fully materialized, typed result set, or a count of affected
// rows).
//
// Errors are *catalog.Error values carrying a Lance namespace error code
// (the catalog's own errors pass through unchanged; the planner's errors use
// CodeInvalidInput, CodeUnsupported, ...), or *sqlparse.Error for syntax.
package planner
