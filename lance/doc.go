// Package lance is the root of lancecat's implementation of the Lance format.
// It knows no SQL and no catalog; everything above it (manifest/, catalog/,
// planner/) reads and writes Lance only through these packages:
//
//   - lance/schema (package lanceschema): Lance's flattened field list and its
//     mapping to Arrow schemas.
//   - lance/file (package lancefile): data files of file format 2.0 and 2.1,
//     the container and the structural encodings; 2.0 page codecs live in
//     lance/file/internal/enc20.
//   - lance/dataset: a Lance table: versions and their manifests, fragments,
//     deletion files, scans and commits (put-if-absent, rebase rules).
//   - lance/index: the scalar indices (BTREE, BITMAP, LABEL_LIST) and their
//     row sets.
//   - lance/scan: the one filtered reader: columns, single-column predicates,
//     limit and offset over a dataset version, through an index where one
//     answers (Plan says which); row addresses and index files stay below it.
//   - lance/internal/pb: the protobuf bindings of Lance's wire schemas.
//
// The packages of lance/file and lance/schema keep the names lancefile and
// lanceschema: "file" and "schema" are the most common local variable names
// in the code that uses them. Object stores are in storage/, beside lance/.
package lance
