// fts.mjs: peer side of the full-text search tests (lance/index/inverted, conformance).
//   node fts.mjs create <dir> <table> <rows.jsonl> <opts.json>
//       a table of the JSONL rows ({"id": n, "text": "..."}; text may be null) with an FTS
//       index on text built with the options (lancedb.Index.fts options: baseTokenizer,
//       withPosition, lowercase, stem, removeStopWords, asciiFolding, maxTokenLength,
//       ngramMinLength, ngramMaxLength, prefixOnly, language); prints the index list
//   node fts.mjs table <dir> <table> <rows.jsonl>      the table without an index
//   node fts.mjs add <dir> <table> <rows.jsonl>        append rows (a fragment the index does not cover)
//   node fts.mjs delete <dir> <table> <predicate>      delete rows
//   node fts.mjs index <dir> <table> <opts.json>       (re)build the FTS index on text
//   node fts.mjs search <dir> <table> <queries.json>
//       runs each query ({"kind": "match"|"phrase"|"bool", "q", "op", "slop", "limit", "where",
//       "clauses": [[occur, query]...]}) and prints [[{"id", "score"}...]...] in the peer's order
import * as fs from "node:fs";
import "./lance-env.mjs"; // before lancedb: LANCE_CPU_THREADS >= 2 (see there)
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

const [op, dir, name, arg] = process.argv.slice(2);
const db = await lancedb.connect(dir);

function readRows(path) {
  const lines = fs.readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0);
  const rows = lines.map((l) => JSON.parse(l));
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("text", new arrow.Utf8(), true),
  ]);
  return lancedb.makeArrowTable(rows, { schema });
}

function ftsQuery(q) {
  switch (q.kind) {
    case "match":
      return new lancedb.MatchQuery(q.q, "text", { operator: q.op === "AND" ? lancedb.Operator.And : lancedb.Operator.Or });
    case "phrase":
      return new lancedb.PhraseQuery(q.q, "text", { slop: q.slop ?? 0 });
    case "bool":
      return new lancedb.BooleanQuery(q.clauses.map(([occur, sub]) => [occur, ftsQuery(sub)]));
    default:
      throw new Error(`unknown query kind ${q.kind}`);
  }
}

if (op === "create") {
  const tbl = await db.createTable(name, readRows(arg), { mode: "overwrite" });
  const opts = JSON.parse(fs.readFileSync(process.argv[6], "utf8"));
  await tbl.createIndex("text", { config: lancedb.Index.fts(opts) });
  console.log(JSON.stringify((await tbl.listIndices()).map((i) => ({ name: i.name, indexType: i.indexType, details: i.indexDetails }))));
} else if (op === "table") {
  await db.createTable(name, readRows(arg), { mode: "overwrite" });
  console.log("ok");
} else if (op === "index") {
  const tbl = await db.openTable(name);
  const opts = JSON.parse(fs.readFileSync(arg, "utf8"));
  await tbl.createIndex("text", { config: lancedb.Index.fts(opts), replace: true });
  console.log("ok");
} else if (op === "add") {
  const tbl = await db.openTable(name);
  await tbl.add(readRows(arg));
  console.log("ok");
} else if (op === "delete") {
  const tbl = await db.openTable(name);
  await tbl.delete(arg);
  console.log("ok");
} else if (op === "search") {
  const tbl = await db.openTable(name);
  const queries = JSON.parse(fs.readFileSync(arg, "utf8"));
  const out = [];
  for (const q of queries) {
    let s = tbl.search(ftsQuery(q), "fts").select(["id", "_score"]).limit(q.limit ?? 10);
    if (q.where) s = s.where(q.where);
    const rows = await s.toArray();
    out.push(rows.map((r) => ({ id: Number(r.id), score: r._score })));
  }
  console.log(JSON.stringify(out));
} else if (op === "time") {
  // time <dir> <table> <queries.json> <reps>: median and p99 ms per query
  const tbl = await db.openTable(name);
  const queries = JSON.parse(fs.readFileSync(arg, "utf8"));
  const reps = Number(process.argv[6] ?? 50);
  const out = [];
  for (const q of queries) {
    const ms = [];
    for (let i = 0; i < reps; i++) {
      const t0 = process.hrtime.bigint();
      await tbl.search(ftsQuery(q), "fts").select(["id", "_score"]).limit(q.limit ?? 10).toArray();
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    out.push({ median: ms[Math.floor(ms.length / 2)], p99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))] });
  }
  console.log(JSON.stringify(out));
} else {
  throw new Error(`unknown op ${op}`);
}
