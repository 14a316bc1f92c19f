#!/usr/bin/env node
// bench-peer.mjs <suite> <json-args>
//
// The reference peer's side of lancecat's side-by-side benchmarks (conformance/bench). One
// long-running node process per call; every operation is timed inside node with
// process.hrtime.bigint(), so process start-up and module loading are not measured.
// Prints one JSON document on stdout; on failure prints {"error": "..."} and exits 1.
//
// Suites:
//   catalog {"dir", "size", "ops", "namespaces"}
//     Builds a directory catalog in dir whose `__manifest` holds the namespace "bench" with
//     `size` table entries plus `namespaces` other namespaces (written directly as a Lance table
//     with the three indices, as gen-fixtures.mjs does: seconds instead of a quadratic build),
//     then times `ops` operations of each kind through the namespace API:
//     createTable (createEmptyTable), createNamespace, listTables (tableNames of "bench"),
//     describeTable (openTable + schema + version), tableExistsHit / tableExistsMiss (openTable;
//     the node API has no tableExists), renameTable (refused by the local namespace: the message
//     is returned as renameError), dropTable. Result: {"ns": {op: [nanoseconds...]}, "counts":
//     {...}, "renameError"}.
//   batch {"dir", "size", "creates"}
//     Seeds like catalog, then creates `creates` tables one by one (the reference has no
//     multi-table transaction). Result: {"totalNs", "samples": [ns...], "listed"}.
//   bytes {"dir", "creates"}
//     Creates `creates` empty tables one by one in namespace "bench" of a fresh catalog and
//     reports the total time and the bytes under dir/__manifest.
//   dataset {"path", "repeat", "offset", "limit", "column"}
//     Reads the Lance dataset at path through the query API: full scan, one column, a row range
//     (offset/limit). Result: {"ns": {op: [...]}, "rows": {op: n}}.
//   fts {"dir", "rows", "queries": {"one": [q...], "multi": [...], "phrase": [...]}, "withPosition"}
//     Creates table docs in dir from the JSONL rows ({"id", "text"}), times
//     createIndex("text", Index.fts({withPosition})) (LANCE_CPU_THREADS >= 2: lance-env.mjs),
//     sums the bytes under _indices, then times each query (one, multi: MatchQuery; phrase:
//     PhraseQuery; top 10) after one untimed warm-up per kind. Wall and process CPU time of the
//     load, the build and each kind's queries. Result: {"loadNs", "loadCpuNs", "buildNs",
//     "buildCpuNs", "indexBytes", "ns": {kind: [...]}, "cpuNs": {kind: total}, "hits": {kind:
//     [rows...]}}.
//   vector {"dir", "table", "k", "queries" (a JSON file of query vectors), "where", "nprobes",
//           "refine", "ef", "indices": [{"type", "factory", "numPartitions", "numSubVectors",
//           "m", "efConstruction"}]}
//     Opens table in the catalog dir (a copy of the one lancecat loaded) and times the top-k
//     searches of every query: exact (bypassVectorIndex) without and with the prefilter
//     where(...); then per index createIndex("v", Index[factory](...)) (replacing the previous
//     one), the bytes of the _indices directories it added, and the ANN searches at nprobes /
//     refineFactor / ef, without and with the prefilter. One untimed warm-up query per pass.
//     The process's CPU time (process.cpuUsage: user + system of every thread) is measured over
//     each pass and each build. Result: {"exact": {ns, ids, cpuNs}, "exactFiltered": {...},
//     "indices": {type: {buildNs, buildCpuNs, indexBytes, ann: {ns, ids, cpuNs}, filtered}}}.
import "./lance-env.mjs"; // before lancedb: LANCE_CPU_THREADS >= 2 (see there)
import * as lancedb from "@lancedb/lancedb";
import * as fs from "node:fs";
import * as path from "node:path";
import { schemaFromJSON, tableFromColumns, openDataset } from "./arrowjson.mjs";

const now = () => process.hrtime.bigint();
const since = (t0) => Number(now() - t0);

// Same shape as catalog.Row / the reference's __manifest.
const MANIFEST_SCHEMA = { fields: [
  { name: "object_id", type: "utf8", nullable: false, metadata: { "lance-schema:unenforced-primary-key:position": "0" } },
  { name: "object_type", type: "utf8", nullable: false },
  { name: "location", type: "utf8", nullable: true },
  { name: "metadata", type: "utf8", nullable: true },
  { name: "base_objects", type: { list: { name: "object_id", type: "utf8", nullable: true } }, nullable: true },
] };

// Empty-schema table the create ops use (same as the Go side's).
const TABLE_SCHEMA = schemaFromJSON({ fields: [
  { name: "id", type: "int64", nullable: false },
  { name: "name", type: "utf8", nullable: true },
] });

/** Seed rows: namespaces "bench" and other_0.., then `size` tables bench$t000000... */
function seedColumns(size, namespaces) {
  const cols = { object_id: [], object_type: [], location: [], metadata: [], base_objects: [] };
  const push = (id, type, loc) => {
    cols.object_id.push(id); cols.object_type.push(type); cols.location.push(loc);
    cols.metadata.push(null); cols.base_objects.push(null);
  };
  push("bench", "namespace", null);
  for (let i = 0; i < namespaces; i++) push(`other_${i}`, "namespace", null);
  for (let i = 0; i < size; i++) {
    const id = `bench$t${String(i).padStart(6, "0")}`;
    const hex = ((Math.imul(i + 1, 2654435761) >>> 0).toString(16)).padStart(8, "0");
    push(id, "table", `${hex}_${id}`);
  }
  return cols;
}

async function seedCatalog(dir, size, namespaces) {
  const cols = seedColumns(size, namespaces);
  const n = cols.object_id.length;
  fs.mkdirSync(dir, { recursive: true });
  const work = path.join(dir, ".seed-work");
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const db = await lancedb.connect(work, { manifestEnabled: false });
  const t = await db.createTable("t", tableFromColumns(schemaFromJSON(MANIFEST_SCHEMA), cols, n));
  await t.createIndex("object_id", { config: lancedb.Index.btree(), name: "object_id_btree" });
  await t.createIndex("object_type", { config: lancedb.Index.bitmap(), name: "object_type_bitmap" });
  await t.createIndex("base_objects", { config: lancedb.Index.labelList(), name: "base_objects_label_list" });
  db.close();
  fs.renameSync(path.join(work, "t.lance"), path.join(dir, "__manifest"));
  fs.rmSync(work, { recursive: true, force: true });
}

async function timed(times, fn) {
  const t0 = now();
  const r = await fn();
  times.push(since(t0));
  return r;
}

async function catalogSuite(a) {
  const { dir, size, ops } = a;
  const namespaces = a.namespaces ?? 3;
  const t0 = now();
  await seedCatalog(dir, size, namespaces);
  const seedNs = since(t0);
  const db = await lancedb.connect(dir);
  const ns = { createTable: [], createNamespace: [], listTables: [], describeTable: [], tableExistsHit: [], tableExistsMiss: [], renameTable: [], dropTable: [] };
  const counts = {};
  const bench = ["bench"];
  const created = [];
  // Warm-up (untimed): the first call opens `__manifest`.
  counts.listedBeforeCreates = (await db.tableNames(bench, { limit: 1_000_000 })).length;
  for (let i = 0; i < ops; i++) {
    const name = `new${String(i).padStart(4, "0")}`;
    await timed(ns.createTable, () => db.createEmptyTable(name, TABLE_SCHEMA, bench));
    created.push(name);
  }
  for (let i = 0; i < ops; i++) {
    await timed(ns.createNamespace, () => db.createNamespace([`nsnew${String(i).padStart(4, "0")}`]));
  }
  for (let i = 0; i < ops; i++) {
    const names = await timed(ns.listTables, () => db.tableNames(bench, { limit: 1_000_000 }));
    counts.listed = names.length;
  }
  for (let i = 0; i < ops; i++) {
    const name = created[i % created.length];
    const fields = await timed(ns.describeTable, async () => {
      const t = await db.openTable(name, bench);
      const s = await t.schema();
      await t.version();
      return s.fields.length;
    });
    counts.describedFields = fields;
  }
  let hits = 0, misses = 0;
  for (let i = 0; i < ops; i++) {
    const name = created[(i * 7) % created.length];
    const ok = await timed(ns.tableExistsHit, () => db.openTable(name, bench).then(() => true, () => false));
    if (ok) hits++;
  }
  for (let i = 0; i < ops; i++) {
    const ok = await timed(ns.tableExistsMiss, () => db.openTable(`missing${i}`, bench).then(() => true, () => false));
    if (!ok) misses++;
  }
  counts.existsHits = hits;
  counts.existsMisses = misses;
  // Rename: the local directory namespace refuses it ("not supported"); the
  // refusal is reported and the Go side prints n/a.
  let renameError = null;
  const toDrop = [];
  for (let i = 0; i < ops; i++) {
    const from = created[i], to = `ren${String(i).padStart(4, "0")}`;
    if (renameError === null) {
      try {
        await timed(ns.renameTable, () => db.renameTable(from, to, { namespacePath: bench }));
        toDrop.push(to);
        continue;
      } catch (e) {
        renameError = String(e?.message ?? e).split("\n")[0];
        ns.renameTable = [];
      }
    }
    toDrop.push(from);
  }
  for (const name of toDrop) {
    await timed(ns.dropTable, () => db.dropTable(name, bench));
  }
  counts.listedAfterDrops = (await db.tableNames(bench, { limit: 1_000_000 })).length;
  db.close();
  return { seedNs, ns, counts, renameError };
}

/** batch {dir, size, creates}: `creates` tables created one by one in a seeded catalog. */
async function batchSuite(a) {
  const { dir, size, creates } = a;
  await seedCatalog(dir, size, a.namespaces ?? 3);
  const db = await lancedb.connect(dir);
  const bench = ["bench"];
  await db.tableNames(bench, { limit: 1_000_000 }); // warm-up, as the catalog suite
  const samples = [];
  const t0 = now();
  for (let i = 0; i < creates; i++) {
    await timed(samples, () => db.createEmptyTable(`b${String(i).padStart(6, "0")}`, TABLE_SCHEMA, bench));
  }
  const totalNs = since(t0);
  const listed = (await db.tableNames(bench, { limit: 1_000_000 })).length;
  db.close();
  return { totalNs, samples, listed };
}

function dirBytes(dir) {
  let total = 0, files = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else { total += fs.statSync(p).size; files++; }
    }
  };
  walk(dir);
  return { bytes: total, files };
}

async function bytesSuite(a) {
  const { dir, creates } = a;
  fs.mkdirSync(dir, { recursive: true });
  const db = await lancedb.connect(dir);
  await db.createNamespace(["bench"]);
  const t0 = now();
  for (let i = 0; i < creates; i++) {
    await db.createEmptyTable(`t${String(i).padStart(6, "0")}`, TABLE_SCHEMA, ["bench"]);
  }
  const totalNs = since(t0);
  const listed = (await db.tableNames(["bench"], { limit: 1_000_000 })).length;
  db.close();
  const versions = fs.readdirSync(path.join(dir, "__manifest", "_versions")).filter((f) => f.endsWith(".manifest")).length;
  return { totalNs, listed, versions, ...dirBytes(path.join(dir, "__manifest")) };
}

async function countRows(q) {
  let rows = 0;
  for await (const batch of q) rows += batch.numRows;
  return rows;
}

async function datasetSuite(a) {
  const { repeat = 5, offset = 50000, limit = 1000, column = "object_id" } = a;
  const ds = await openDataset(a.path);
  try {
    const t = ds.table;
    const ns = { fullScan: [], oneColumn: [], rowRange: [] };
    const rows = {};
    const runs = {
      fullScan: () => t.query(),
      oneColumn: () => t.query().select([column]),
      rowRange: () => t.query().offset(offset).limit(limit),
    };
    // One untimed warm-up read per op (opens the data files, fills the OS cache like the Go side).
    for (const [op, q] of Object.entries(runs)) {
      rows[op] = await countRows(q());
      for (let i = 0; i < repeat; i++) {
        const n = await timed(ns[op], () => countRows(q()));
        if (n !== rows[op]) throw new Error(`${op}: ${n} rows, warm-up read ${rows[op]}`);
      }
    }
    return { ns, rows };
  } finally {
    ds.cleanup();
  }
}

async function ftsSuite(a) {
  const { dir, rows: rowsPath, queries } = a;
  const withPosition = a.withPosition !== false;
  fs.mkdirSync(dir, { recursive: true });
  const db = await lancedb.connect(dir);
  const lines = fs.readFileSync(rowsPath, "utf8").split("\n").filter((l) => l.length > 0);
  const schema = schemaFromJSON({ fields: [
    { name: "id", type: "int64", nullable: false },
    { name: "text", type: "utf8", nullable: true },
  ] });
  let t0 = now(), cpu0 = process.cpuUsage();
  const data = lancedb.makeArrowTable(lines.map((l) => JSON.parse(l)), { schema });
  const tbl = await db.createTable("docs", data, { mode: "overwrite" });
  const loadNs = since(t0), loadCpuNs = cpuNsSince(cpu0);
  t0 = now(); cpu0 = process.cpuUsage();
  await tbl.createIndex("text", { config: lancedb.Index.fts({ withPosition }) });
  const buildNs = since(t0), buildCpuNs = cpuNsSince(cpu0);
  let indexBytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.split(path.sep).includes("_indices")) indexBytes += fs.statSync(p).size;
    }
  };
  walk(dir);
  const mk = (kind, q) => kind === "phrase"
    ? new lancedb.PhraseQuery(q, "text", { slop: 0 })
    : new lancedb.MatchQuery(q, "text");
  const search = async (kind, q) => (await tbl.search(mk(kind, q), "fts").select(["id", "_score"]).limit(10).toArray()).length;
  const ns = {}, hits = {}, cpuNs = {};
  for (const kind of ["one", "multi", "phrase"].filter((k) => queries[k])) {
    ns[kind] = []; hits[kind] = [];
    await search(kind, queries[kind][0]); // warm-up: opens the index
    const kindCpu0 = process.cpuUsage();
    for (const q of queries[kind]) {
      hits[kind].push(await timed(ns[kind], () => search(kind, q)));
    }
    cpuNs[kind] = cpuNsSince(kindCpu0);
  }
  db.close();
  return { loadNs, loadCpuNs, buildNs, buildCpuNs, indexBytes, ns, cpuNs, hits };
}

/** Bytes per index directory (dir/.../_indices/<uuid>) below root. */
function indexDirSizes(root) {
  const out = new Map();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (path.basename(path.dirname(path.dirname(p))) === "_indices") {
        out.set(path.dirname(p), (out.get(path.dirname(p)) ?? 0) + fs.statSync(p).size);
      }
    }
  };
  walk(root);
  return out;
}

/** The process's user + system CPU time (every thread, lance's included) since cpu0, in ns. */
function cpuNsSince(cpu0) {
  const d = process.cpuUsage(cpu0);
  return (d.user + d.system) * 1000;
}

async function vectorSuite(a) {
  const { dir, table, k, where, nprobes, refine, ef } = a;
  const queries = JSON.parse(fs.readFileSync(a.queries, "utf8"));
  const db = await lancedb.connect(dir);
  const tbl = await db.openTable(table);
  const search = async (q, o) => {
    let s = tbl.search(q).limit(k).select(["id"]);
    if (o.exact) s = s.bypassVectorIndex();
    else {
      if (nprobes) s = s.nprobes(nprobes);
      if (refine) s = s.refineFactor(refine);
      if (ef) s = s.ef(ef);
    }
    if (o.where) s = s.where(o.where);
    return (await s.toArray()).map((r) => Number(r.id));
  };
  const pass = async (o) => {
    await search(queries[0], o); // warm-up: opens the files and the index
    const ns = [], ids = [];
    const cpu0 = process.cpuUsage();
    for (const q of queries) ids.push(await timed(ns, () => search(q, o)));
    return { ns, ids, cpuNs: cpuNsSince(cpu0) };
  };
  const out = { exact: await pass({ exact: true }), exactFiltered: await pass({ exact: true, where }), indices: {} };
  for (const ix of a.indices) {
    const opts = { distanceType: "l2", numPartitions: ix.numPartitions };
    for (const key of ["numSubVectors", "m", "efConstruction"]) if (ix[key] !== undefined) opts[key] = ix[key];
    const before = indexDirSizes(dir);
    const t0 = now(), cpu0 = process.cpuUsage();
    await tbl.createIndex("v", { config: lancedb.Index[ix.factory](opts), name: "v_idx", replace: true });
    const buildNs = since(t0), buildCpuNs = cpuNsSince(cpu0);
    let indexBytes = 0;
    for (const [d, b] of indexDirSizes(dir)) if (!before.has(d)) indexBytes += b;
    out.indices[ix.type] = { buildNs, buildCpuNs, indexBytes, ann: await pass({}), filtered: await pass({ where }) };
  }
  db.close();
  return out;
}

const SUITES = { vector: vectorSuite, catalog: catalogSuite, bytes: bytesSuite, batch: batchSuite, dataset: datasetSuite, fts: ftsSuite };

async function main() {
  const [suite, raw = "{}"] = process.argv.slice(2);
  if (!SUITES[suite]) {
    process.stderr.write(`usage: bench-peer.mjs <${Object.keys(SUITES).join("|")}> <json-args>\n`);
    process.exit(2);
  }
  const out = await SUITES[suite](JSON.parse(raw));
  process.stdout.write(JSON.stringify(out) + "\n");
}

await main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e?.stack ?? e) }) + "\n");
  process.exit(1);
});
