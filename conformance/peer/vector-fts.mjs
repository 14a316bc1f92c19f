// vector-fts.mjs: peer side of the vector/full-text index test.
//   node vector-fts.mjs create <dir>   a table "vt" (id, v: 8-dim float32 vectors, text) of 300
//                                       rows with an IVF_PQ index on v and an FTS index on text
//   node vector-fts.mjs search <dir>   on "vt": the ids of the 3 rows nearest [9 x 8] and of the rows
//                                       whose text matches "banana", as JSON
import "./lance-env.mjs"; // before lancedb: LANCE_CPU_THREADS >= 2 (see there)
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

const [op, dir] = process.argv.slice(2);
const db = await lancedb.connect(dir);
if (op === "create") {
  const rows = [];
  for (let i = 0; i < 300; i++) {
    const v = [];
    for (let j = 0; j < 8; j++) v.push(Math.sin(i * 0.37 + j));
    rows.push({ id: i, v, text: `doc ${i} ${i % 3 === 0 ? "apple" : "pear"}` });
  }
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("v", new arrow.FixedSizeList(8, new arrow.Field("item", new arrow.Float32(), true)), true),
    new arrow.Field("text", new arrow.Utf8(), true),
  ]);
  const tbl = await db.createTable("vt", lancedb.makeArrowTable(rows, { schema }));
  await tbl.createIndex("v", { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }) });
  await tbl.createIndex("text", { config: lancedb.Index.fts() });
  const idx = await tbl.listIndices();
  console.log(JSON.stringify(idx.map((i) => ({ name: i.name, indexType: i.indexType }))));
} else if (op === "search") {
  const tbl = await db.openTable("vt");
  const q = [9, 9, 9, 9, 9, 9, 9, 9]; // far from the peer's rows (all within [-1, 1])
  const near = await tbl.search(q).limit(3).select(["id"]).toArray();
  const fts = await tbl.search("banana", "fts").limit(1000).select(["id"]).toArray();
  console.log(JSON.stringify({ near: near.map((r) => Number(r.id)), fts: fts.map((r) => Number(r.id)).sort((a, b) => a - b) }));
} else {
  throw new Error(`unknown op ${op}`);
}
