// Package manifest is the Lance-backed persistence of a directory catalog:
// it implements catalog.ManifestTable over the `__manifest` Lance table and
// catalog.Datasets over Lance datasets, both through lance/dataset, and
// wires them into catalog.Open for a root URI.
//
// # Write path
//
// Every catalog write commits one new version of `__manifest` with a
// put-if-absent of its version file on top of exactly the version the
// catalog planned on (dataset.RowChangeOptions.ExactBase, and overwrites
// never rebase): a concurrent commit of any kind is a
// catalog.ErrCommitConflict and the catalog re-plans the change on the new
// version, because its existence and uniqueness checks read the old one.
// That is the reference's own discipline, so lancecat and the peer writing
// one catalog serialize on version numbers.
//
// A commit takes one of two shapes (ManifestTable.Commit):
//
//   - Incremental (the common case): the upserted rows are written as one
//     small fragment, and the rows they replace plus the deleted rows get
//     deletion-file updates; their row addresses come from the snapshot
//     (lance/scan: object_id IN the ids through the BTREE plus a scan of
//     the object_id column of fragments no index covers, or memory). dataset.Update records it as Lance would:
//     Append, Delete, or Update {removed_fragment_ids, updated_fragments,
//     new_fragments}. The three indices are left as they are: their
//     fragment bitmaps do not cover the new fragment (every Lance reader,
//     the peer included, scans uncovered fragments) and rows they point at
//     that were deleted are filtered by the deletion files. The peer reads,
//     lists and describes such versions and folds them back into one
//     fragment with its next write (incremental_peer_test.go).
//   - Full rewrite (dataset.StageOverwrite, the three indices built over
//     the staged rows, one Overwrite version), as the reference writes
//     every change: when the rows outside index coverage plus the deleted
//     rows would exceed max(WriteOptions.RewriteMinRows,
//     live rows / WriteOptions.RewriteDivisor) (defaults 1,000 and 20, i.e.
//     5%), when the table metadata changes (root namespace properties), on
//     the primary-key migration, when the base version has no object_id
//     index (an empty catalog's first commit), and always with
//     WriteOptions.AlwaysRewrite. Why those defaults: a reader in another
//     process scans every uncovered row on each lookup at a few
//     microseconds a row, so 1,000 rows keep a cold lookup near the
//     reference's; a full rewrite costs ~2.5 us a row, so paying it once
//     per live/20 changes adds ~50 us to each commit at any catalog size.
//
// Between full rewrites, uncovered fragments are merged in size tiers
// (log-structured): a fragment's tier is floor(log_F(live rows)) with
// F = WriteOptions.MergeFanout (default 4); once F fragments share a tier
// (the change's new fragment counted, rows it deletes not), they and every
// smaller uncovered fragment are folded into the change's own new
// fragment: their live rows are carried into it and they are removed
// (Update.removed_fragment_ids, rows rewritten as Lance's merge-insert
// records them; no index touched, as none covers them). The merge costs no
// version of its own, and its rows come from the writer's snapshot in
// memory (one scan of those fragments when another process wrote them).
// So at most (F-1) fragments per tier stay uncovered, each row is
// rewritten O(log_F) times before the next full rewrite, and no commit
// pays O(catalog) more often than once per 5% of the catalog changed.
//
// Crash safety: data, deletion and index files are written before the
// version file that references them, without a sync of their own, and
// made durable in one parallel round together with the version file's
// content before that file is created (storage.PutIfAbsentAfterSync); a
// commit that does not land deletes what it staged, one whose outcome is
// unknown keeps it. A table the commit names that no directory listing
// shows (any table but a root table in compatibility mode) is created the
// same way but not synced on its own (dataset.CreateOptions.DeferSync):
// its files, version file included, ride on the `__manifest` commit's
// round of syncs (catalog.ManifestChange.Sync), so a durable `__manifest`
// version never names a table a crash can lose, and a create costs two
// rounds of fsyncs (files, then the version's directory entry) instead of
// four. A crash before that commit can leave a partial table directory no
// entry names; the orphan sweep of Vacuum removes it.

// The writer keeps the rows of the versions it commits in memory without
// re-reading them: an incremental commit's snapshot is the previous one
// plus a delta (derived.go), walked by lookups and materialized in storage
// order by listings, so the commit stays O(change) in memory as well.
//
// # Read path
//
// Reads push down to those indices through lance/scan, the one scanner
// (indexed.go): a snapshot turns Get into object_id = id and Scan's
// RowFilter into object_id prefix, object_type IN and base_objects has-any
// predicates; the scanner answers them with the BTREE, BITMAP and
// LABEL_LIST, reads only the matching rows plus the fragments no index
// covers (rows another client appended), and keeps row addresses and index
// files to itself. Versions without usable indices, broad listings and
// long-lived use of one version fall back to decoding the whole table once;
// a listing then reads the decoded rows in place (catalog.RowVisitor).
package manifest
