// multivec.mjs: peer side of the multivector (late-interaction MaxSim) tests.
//   node multivec.mjs create <dir> <table> <rows.jsonl> <dim>
//       a table (id int64, cat int64, mv list<fixed_size_list<float32>[dim]>) of the JSONL
//       rows ({"id", "cat", "mv": [[dim floats], ...] or null}); prints {rows}
//   node multivec.mjs search <dir> <table> <queries.json>
//       runs each query ({"q": [[...], ...], "k", "metric", "where", "exact", "nprobes",
//       "refine"}) as table.search(q) (the peer's multivector query)
//       .distanceType(metric).limit(k) [.where(where)] [.bypassVectorIndex()]
//       [.nprobes(nprobes)] [.refineFactor(refine)];
//       prints [{"ids": [...], "dists": [_distance...]}...]
//   node multivec.mjs read <dir> <table>
//       prints {"type": mv's Arrow type, "rows": [{"id", "mv"}...]} ordered by id
//   node multivec.mjs index <dir> <table> <json>  json: {type, metric, numPartitions,
//       numSubVectors, m, efConstruction}: builds a vector index on mv (IVF_PQ, IVF_HNSW_SQ,
//       IVF_HNSW_PQ, IVF_FLAT); prints the index list
import * as fs from "node:fs";
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

const [op, dir, name, arg, extra] = process.argv.slice(2);
const db = await lancedb.connect(dir);

if (op === "create") {
  const dim = Number(extra);
  const rows = fs.readFileSync(arg, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
  const vec = new arrow.FixedSizeList(dim, new arrow.Field("item", new arrow.Float32(), true));
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("cat", new arrow.Int64(), true),
    new arrow.Field("mv", new arrow.List(new arrow.Field("item", vec, true)), true),
  ]);
  const tbl = await db.createTable(name, lancedb.makeArrowTable(rows, { schema }), { mode: "overwrite" });
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
} else if (op === "search") {
  const tbl = await db.openTable(name);
  const queries = JSON.parse(fs.readFileSync(arg, "utf8"));
  const out = [];
  for (const o of queries) {
    let q = tbl.search(o.q).column("mv").distanceType(o.metric).select(["id"]).limit(o.k);
    if (o.where) q = q.where(o.where);
    if (o.exact) q = q.bypassVectorIndex();
    if (o.nprobes) q = q.nprobes(o.nprobes);
    if (o.refine) q = q.refineFactor(o.refine);
    const res = await q.toArray();
    out.push({ ids: res.map((r) => Number(r.id)), dists: res.map((r) => r._distance) });
  }
  console.log(JSON.stringify(out));
} else if (op === "read") {
  const tbl = await db.openTable(name);
  const schema = await tbl.schema();
  const res = await tbl.query().select(["id", "mv"]).toArray();
  const rows = res
    .map((r) => ({ id: Number(r.id), mv: r.mv === null ? null : Array.from(r.mv.toArray(), (v) => Array.from(v.toArray())) }))
    .sort((a, b) => a.id - b.id);
  console.log(JSON.stringify({ type: String(schema.fields.find((f) => f.name === "mv").type), rows }));
} else if (op === "index") {
  const o = JSON.parse(arg);
  const tbl = await db.openTable(name);
  const opts = { distanceType: o.metric };
  for (const k of ["numPartitions", "numSubVectors", "m", "efConstruction"]) if (o[k] !== undefined) opts[k] = o[k];
  const make = { IVF_PQ: "ivfPq", IVF_HNSW_SQ: "hnswSq", IVF_HNSW_PQ: "hnswPq", IVF_FLAT: "ivfFlat" }[o.type];
  await tbl.createIndex("mv", { config: lancedb.Index[make](opts) });
  console.log(JSON.stringify((await tbl.listIndices()).map((i) => ({ name: i.name, indexType: i.indexType }))));
} else {
  throw new Error(`unknown op ${op}`);
}
