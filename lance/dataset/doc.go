// Package dataset is the Lance table format layer: a dataset directory holds
// numbered versions (_versions/*.manifest), each an immutable manifest that
// lists the schema, the fragments (data files plus an optional deletion file),
// the index section and the transaction that produced it.
//
// The package discovers versions (both manifest naming schemes), decodes
// manifests completely, scans rows (applying deletion files and filling
// columns that a fragment's files do not carry with nulls) and commits new
// versions with an atomic put-if-absent of the next version file, the way
// Lance does, so that Lance (the "peer") and lancecat can write the same
// dataset concurrently.
//
// Data files are read and written through lance/file.
//
// Durability: every file of a commit (data, deletion, index and transaction
// files) is written with storage.PutDeferred, unsynced; the commit then
// creates the version file with storage.PutIfAbsentAfterSync, which on local
// disk fsyncs all of those files, their directories and the version file's
// content in one parallel round before the version file appears, then syncs
// its directory entry. A published version therefore never refers to a file a
// crash can lose, and a commit costs two rounds of fsyncs however many files
// it writes (storage.DurabilityNone: none at all, as the reference; object
// stores: none needed). The version hint is never synced: readers only start
// from it and probe for newer versions.
//
// Concurrency: a Dataset value is an immutable snapshot of one version. Every
// write method builds the next version from that snapshot and commits it; if
// another writer committed that version first, the method fails with an error
// wrapping ErrCommitConflict (Append rebases over compatible concurrent
// commits first). Files staged for a commit that did not land are deleted;
// files of a commit that may have landed are never deleted.
//
// Writer version: manifests written here carry writer_version {library:
// "lancecat", version: WriterLibraryVersion}. Lance keys some repairs of
// manifests written by its own old releases on writer_version (recomputing
// index fragment bitmaps when the library is "lance" and older than 0.8.15,
// recomputing physical row counts when writer_version is absent). Claiming to
// be "lance" would make those checks reason about a release that did not write
// the file; a different library name is explicitly treated as unaffected, and
// a present writer_version tells Lance that our physical_rows are trustworthy.
package dataset
