// Package vector is Lance's vector search without SQL: distance functions,
// readers for the vector indices the reference writes (IVF_FLAT, IVF_PQ,
// IVF_HNSW_SQ, IVF_HNSW_PQ: the "v3" IVF index files index.idx and
// auxiliary.idx of an index segment), approximate search over them with the
// reference's semantics (nprobes, refine_factor, ef, prefilter), and an exact
// parallel top-k scan over a dataset's vector column.
//
// Distances follow Lance: Metric L2 is the squared Euclidean distance,
// Cosine is 1 - cos, Dot is 1 - x·y. The SQL layer converts them to the
// values its functions return.
//
// The float32 L2 and dot kernels (and their batch forms: one vector against
// many rows, which k-means assignment, encoding and the exact scan use; for
// 8-float PQ sub-vectors one against centroids laid out in columns) run in
// AVX2 assembly on amd64 and in portable Go elsewhere (or with the purego
// build tag); both sum in the same fixed order, so distances and seeded
// builds have the same bits on every machine (kernel.go).
package vector
