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
// The query engine (issue 15) is the packages planner/plan (logical
// nodes, rewrite rules, the one EXPLAIN printer), planner/exec (operators
// with Next(ctx)/Close and one Budget per query) and planner/expr (the
// binder and the function registry). The builder's entry point is
// buildSelect (tree.go): the plan tree of a SELECT, its result columns
// and run; a feature adding a node (a window, INSERT ... SELECT) starts
// from it.
//
// A SELECT whose FROM joins relations is one tree end to end (join.go,
// tree.go): the FROM clause is built by buildFrom into Scan and Join
// nodes, names are bound by planner/expr, the rules of planner/plan push
// filters and projection into the scans and choose hash or nested-loop
// joins, and above the join stand Filter (WHERE's remainder), Aggregate
// and a HAVING Filter, Sort (top-k under LIMIT, else the spilling sort of
// spill.go), Limit and Project, each run by a planner/exec operator. The
// scans are the single-table paths behind the plan.Table seam
// (sourceTable). Set operations (setop.go) combine their operands' plans
// and CTEs (cte.go) are inlined as derived tables before planning.
//
// Still on the older paths: every SELECT without a join is a source of
// rows (a lance/scan scan of a table, data.go; the rows the catalog lists
// for an information_schema view, infoschema.go; a derived table; the one
// row of a SELECT without FROM) feeding one selectPipeline
// (pipeline.go): WHERE, COUNT, ORDER BY (top-k under LIMIT, else a sort
// within Options.MaxRows), OFFSET/LIMIT and the projection. buildSelect
// shows such a query as one leaf of the tree. So are subqueries, DML and
// SHOW.
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
