// Package manifest is the Lance-backed persistence of a directory catalog:
// it implements catalog.ManifestTable over the `__manifest` Lance table and
// catalog.Datasets over Lance datasets, both through lance/dataset, and
// wires them into catalog.Open for a root URI.
//
// Every catalog write is a copy-on-write rewrite of `__manifest` into a new
// version committed with put-if-absent, as the reference implementation
// does, so the peer (Rust Lance) reads every version lancecat writes. With
// ManifestChange.BuildIndices (the default) the rewrite is staged
// (dataset.StageOverwrite), the three scalar indices the reference keeps
// (object_id_btree, object_type_bitmap, base_objects_label_list) are built
// over the staged version with lance/index, and data and indices are
// committed in one version; staged files of a commit that does not land are
// deleted.
//
// Reads push down to those indices (indexed.go): a snapshot answers Get
// with the BTREE and Scan with the BTREE prefix, BITMAP and LABEL_LIST
// searches, fetching only the matching rows by row address plus a scan of
// fragments no index covers (rows another client appended); versions
// without usable indices, broad listings and long-lived use of one version
// fall back to decoding the whole table once.
//
// Where an incremental write path plugs in: ManifestTable.Commit rewrites
// every row (O(catalog size)). The peer also accepts an appended one-row
// fragment plus a deletion file for the replaced row (see
// shared/notes/lance-facts.md), which would make a commit O(change); it
// needs dataset.Append + dataset.Delete in one commit and indices that
// report the uncovered fragment, and periodic compaction back into one
// fragment. commitRows is the single place to switch.
package manifest
