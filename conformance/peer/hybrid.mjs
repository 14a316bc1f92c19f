// hybrid.mjs: peer side of the hybrid (vector + full-text, RRF) search test.
//   node hybrid.mjs create <dir> <table> <rows.jsonl> <opts.json>
//       a table of the JSONL rows ({"id", "cat", "v": [dim floats], "text"}); opts
//       {"dim": n, "vector": {"type": "IVF_FLAT"|"IVF_PQ", "metric", "numPartitions",
//       "numSubVectors"} or null, "fts": true|false}: the indices to build; prints the index list
//   node hybrid.mjs search <dir> <table> <queries.json>
//       runs each query ({"v": [...], "q": "text", "metric", "limit", "where", "k"}) as
//       table.query().nearestTo(v).distanceType(metric).fullTextSearch(q).where(where).limit(limit)
//       with the default reranker (RRF, k = 60) or RRFReranker.create(k); prints
//       [{"hits": [{"id", "score"}...], "vec": [ids], "fts": [{"id", "score"}...]}...]: the fused rows in the
//       peer's order with _relevance_score, and each leg alone: the vector leg's ids, the
//       full-text leg's limit + 1 best rows with their BM25 scores
import * as fs from "node:fs";
import "./lance-env.mjs"; // before lancedb: LANCE_CPU_THREADS >= 2 (see there)
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

const [op, dir, name, arg] = process.argv.slice(2);
const db = await lancedb.connect(dir);

if (op === "create") {
  const opts = JSON.parse(fs.readFileSync(process.argv[6], "utf8"));
  const rows = fs.readFileSync(arg, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("cat", new arrow.Int64(), true),
    new arrow.Field("v", new arrow.FixedSizeList(opts.dim, new arrow.Field("item", new arrow.Float32(), true)), true),
    new arrow.Field("text", new arrow.Utf8(), true),
  ]);
  const tbl = await db.createTable(name, lancedb.makeArrowTable(rows, { schema }), { mode: "overwrite" });
  if (opts.vector) {
    const o = opts.vector;
    const io = { distanceType: o.metric || "l2" };
    for (const k of ["numPartitions", "numSubVectors"]) if (o[k] !== undefined) io[k] = o[k];
    const make = { IVF_FLAT: "ivfFlat", IVF_PQ: "ivfPq" }[o.type];
    await tbl.createIndex("v", { config: lancedb.Index[make](io) });
  }
  if (opts.fts) await tbl.createIndex("text", { config: lancedb.Index.fts() });
  console.log(JSON.stringify((await tbl.listIndices()).map((i) => ({ name: i.name, indexType: i.indexType }))));
} else if (op === "search") {
  const tbl = await db.openTable(name);
  const queries = JSON.parse(fs.readFileSync(arg, "utf8"));
  const out = [];
  for (const o of queries) {
    let q = tbl.query().nearestTo(o.v).distanceType(o.metric || "l2").fullTextSearch(o.q).select(["id"]).limit(o.limit);
    if (o.where) q = q.where(o.where);
    if (o.k !== undefined) q = q.rerank(await lancedb.rerankers.RRFReranker.create(o.k));
    const rows = await q.toArray();
    let vq = tbl.query().nearestTo(o.v).distanceType(o.metric || "l2").select(["id"]).limit(o.limit);
    // one row more than the limit: the test needs to see a tie at the cut
    let fq = tbl.query().fullTextSearch(o.q).select(["id", "_score"]).limit(o.limit + 1);
    if (o.where) {
      vq = vq.where(o.where);
      fq = fq.where(o.where);
    }
    out.push({
      hits: rows.map((r) => ({ id: Number(r.id), score: r._relevance_score })),
      vec: (await vq.toArray()).map((r) => Number(r.id)),
      fts: (await fq.toArray()).map((r) => ({ id: Number(r.id), score: r._score })),
    });
  }
  console.log(JSON.stringify(out));
} else {
  throw new Error(`unknown op ${op}`);
}
