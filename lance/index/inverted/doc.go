// Package inverted reads and searches Lance's full-text (INVERTED / FTS)
// indices exactly as the reference lays them out under
// _indices/<uuid>/: metadata.lance (tokenizer params, partition ids,
// token-set format, posting tail codec, deleted fragments), and per
// partition part_<id>_tokens.lance (the token map: an fst or an Arrow
// table), part_<id>_invert.lance (one row per token: compressed posting
// blocks, max score, length, optional positions) and part_<id>_docs.lance
// (row address and token count of every document).
//
// Search scores documents with BM25 as the reference does (k1 = 1.2,
// b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5) + 1), N and the average
// document length over every partition, in float32), for match (OR / AND),
// phrase and boolean (must / should / must_not) queries, and scores the rows
// of fragments the index does not cover the way the reference's flat search
// does. It knows no SQL: lancecat's planner calls it.
//
// OpenCached keeps loaded segments (token maps, docs, decoded posting
// lists) across statements, bound to each dataset version asked for;
// top-k searches keep a heap and check deletions and the prefilter only
// for rows that would enter it.
package inverted
