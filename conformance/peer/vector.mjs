// vector.mjs: peer side of the vector search tests.
//   node vector.mjs create <dir> <table> <n> <dim> <seed> [fragRows]
//        a table (id int64, cat int64, v fixed_size_list<float32>[dim]) of n rows drawn
//        around 16 seeded cluster centres, written in fragments of fragRows rows
//   node vector.mjs index <dir> <table> <json>  json: {type, metric, name, numPartitions,
//        numSubVectors, numBits, m, efConstruction, replace}; prints the index list
//   node vector.mjs append <dir> <table> <n> <dim> <seed> <firstId>
//   node vector.mjs delete <dir> <table> <predicate>
//   node vector.mjs optimize <dir> <table>      (merges new rows into the vector index)
//   node vector.mjs bench <dir> <table> <json>  the searches of the array timed: {ms:[...], ids:[[...]]}
//   node vector.mjs timeindex <dir> <table> <json>  builds an index, prints {ms}
//   node vector.mjs search <dir> <table> <json> json: {q:[...], k, metric, nprobes, refine, ef,
//        where, exact} or an array of them; prints {ids:[...], dists:[...]} (or an array) as JSON
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

const [op, dir, table, ...rest] = process.argv.slice(2);
const db = await lancedb.connect(dir);

// mulberry32: a small seeded PRNG (the Go side regenerates the same rows).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function rows(n, dim, seed, firstId) {
  const r = rng(seed);
  const centres = [];
  for (let c = 0; c < 16; c++) {
    const v = [];
    for (let j = 0; j < dim; j++) v.push(r() * 20 - 10);
    centres.push(v);
  }
  const out = [];
  for (let i = 0; i < n; i++) {
    const c = centres[Math.floor(r() * 16)];
    const v = new Array(dim);
    for (let j = 0; j < dim; j++) v[j] = Math.fround(c[j] + (r() * 2 - 1));
    out.push({ id: firstId + i, cat: (firstId + i) % 10, v });
  }
  return out;
}

function schema(dim) {
  return new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("cat", new arrow.Int64(), true),
    new arrow.Field("v", new arrow.FixedSizeList(dim, new arrow.Field("item", new arrow.Float32(), true)), true),
  ]);
}

if (op === "create") {
  const [n, dim, seed, fragRows] = rest.map(Number);
  const data = rows(n, dim, seed, 0);
  const per = fragRows || n;
  const tbl = await db.createTable(table, lancedb.makeArrowTable(data.slice(0, per), { schema: schema(dim) }));
  for (let i = per; i < n; i += per) await tbl.add(lancedb.makeArrowTable(data.slice(i, i + per), { schema: schema(dim) }));
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
} else if (op === "append") {
  const [n, dim, seed, firstId] = rest.map(Number);
  const tbl = await db.openTable(table);
  await tbl.add(lancedb.makeArrowTable(rows(n, dim, seed, firstId), { schema: schema(dim) }));
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
} else if (op === "delete") {
  const tbl = await db.openTable(table);
  await tbl.delete(rest[0]);
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
} else if (op === "optimize") {
  const tbl = await db.openTable(table);
  await tbl.optimize();
  console.log(JSON.stringify({ rows: await tbl.countRows() }));
} else if (op === "index") {
  const o = JSON.parse(rest[0]);
  const tbl = await db.openTable(table);
  const opts = { distanceType: o.metric || "l2" };
  for (const k of ["numPartitions", "numSubVectors", "numBits", "m", "efConstruction", "sampleRate", "maxIterations"]) {
    if (o[k] !== undefined) opts[k] = o[k];
  }
  const make = { IVF_FLAT: "ivfFlat", IVF_PQ: "ivfPq", IVF_RQ: "ivfRq", IVF_HNSW_SQ: "hnswSq", IVF_HNSW_PQ: "hnswPq" }[o.type];
  await tbl.createIndex("v", { config: lancedb.Index[make](opts), name: o.name, replace: o.replace ?? true });
  const idx = await tbl.listIndices();
  console.log(JSON.stringify(idx.map((i) => ({ name: i.name, indexType: i.indexType }))));
} else if (op === "search") {
  // one query object, or an array of them (one result per query)
  const arg = JSON.parse(rest[0]);
  const tbl = await db.openTable(table);
  const one = async (o) => {
    let q = tbl.search(o.q).limit(o.k).select(["id"]).withRowId();
    if (o.metric) q = q.distanceType(o.metric);
    if (o.nprobes) q = q.nprobes(o.nprobes);
    if (o.refine) q = q.refineFactor(o.refine);
    if (o.ef) q = q.ef(o.ef);
    if (o.where) q = q.where(o.where);
    if (o.exact) q = q.bypassVectorIndex();
    const res = await q.toArray();
    const out = { ids: res.map((r) => Number(r.id)), dists: res.map((r) => r._distance) };
    if (o.explain) out.plan = await q.explainPlan(true);
    return out;
  };
  if (Array.isArray(arg)) {
    const all = [];
    for (const o of arg) all.push(await one(o));
    console.log(JSON.stringify(all));
  } else {
    console.log(JSON.stringify(await one(arg)));
  }
} else if (op === "bench") {
  // times each search of the array (after one warm-up pass) in this process
  const arg = JSON.parse(rest[0]);
  const tbl = await db.openTable(table);
  const run = async (o) => {
    let q = tbl.search(o.q).limit(o.k).select(["id"]);
    if (o.nprobes) q = q.nprobes(o.nprobes);
    if (o.refine) q = q.refineFactor(o.refine);
    if (o.where) q = q.where(o.where);
    if (o.exact) q = q.bypassVectorIndex();
    return (await q.toArray()).map((r) => Number(r.id));
  };
  for (const o of arg) await run(o);
  const ms = [];
  const ids = [];
  for (const o of arg) {
    const t0 = process.hrtime.bigint();
    ids.push(await run(o));
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(JSON.stringify({ ms, ids }));
} else if (op === "timeindex") {
  const o = JSON.parse(rest[0]);
  const t0 = process.hrtime.bigint();
  const tbl = await db.openTable(table);
  const make = { IVF_FLAT: "ivfFlat", IVF_PQ: "ivfPq", IVF_HNSW_SQ: "hnswSq", IVF_HNSW_PQ: "hnswPq" }[o.type];
  const opts = { distanceType: o.metric || "l2" };
  for (const k of ["numPartitions", "numSubVectors"]) if (o[k] !== undefined) opts[k] = o[k];
  await tbl.createIndex("v", { config: lancedb.Index[make](opts), name: o.name, replace: true });
  console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
} else {
  throw new Error(`unknown op ${op}`);
}
