// Package conformance holds lancecat's cross-implementation tests: they run
// lancecat and the reference peer (Rust Lance via LanceDB, driven through
// conformance/peer) against the same catalogs and compare what each sees.
package conformance
