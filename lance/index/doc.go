// Package index reads, searches and builds Lance scalar indices (BTREE,
// BITMAP and LABEL_LIST) exactly as Rust Lance lays them out under a
// dataset's _indices/<uuid>/ directory, so that indices written by Lance
// answer lancecat's lookups and indices written here are used by Lance.
//
// Open loads an index (every segment of one name) of a dataset version;
// Index.Search answers equality, IN, range, string-prefix and IS NULL
// predicates (BTREE, BITMAP) or array_has_any / array_has_all (LABEL_LIST)
// with the row addresses of the matching live rows of the fragments the index
// covers, and lists the fragments it does not cover for the caller to scan.
// A BTREE search reads its small page lookup once, then only the data pages
// whose [min, max] can hold a match. Matcher evaluates the same queries on
// Arrow columns, for rows no index covers. Reading the matching rows is
// lance/scan's job. CreateIndex / Build write new index files and
// register them in a new dataset version.
//
// Row sets use Lance's RowIdTreeMap serialization (RowSet), decoded with
// every length checked. Datasets with stable row ids are not supported yet.
package index
