#!/usr/bin/env node
// peer.mjs <op> <json-args>
//
// Runs one operation of the reference peer (LanceDB / Rust Lance) for lancecat's conformance
// tests. Prints one JSON document on stdout. On failure prints {"error": "<peer message>",
// "op": "<op>"} on stdout and exits with status 1 (status 2: bad usage).
//
// Catalog ops take {"uri": dir, "namespace": [..], "name": table, ...}; connection options
// "manifestEnabled" (bool) and "storageOptions" ({..}) are passed to lancedb.connect.
// Dataset ops ("dataset.*") take {"path": datasetDir, ...} and open that one Lance dataset.
// Rows are JSON objects in the JSONL.md value convention; schemas use the JSONL.md notation.
// Row results are printed in the same convention (64-bit integers exact).
import * as lancedb from "@lancedb/lancedb";
import {
  parseJSON, plain, schemaFromJSON, inferSchema, tableFromRows, tableSchemaJSON,
  readableProjection, batchLines, openDataset,
} from "./arrowjson.mjs";

const [op, rawArgs = "{}"] = process.argv.slice(2);
if (!op) {
  process.stderr.write("usage: peer.mjs <op> <json-args>\n");
  process.exit(2);
}

let cleanup = () => {};
const J = (v) => JSON.stringify(v);

async function connect(a) {
  if (typeof a.uri !== "string") throw new Error("missing \"uri\"");
  const opts = {};
  if (a.manifestEnabled !== undefined) opts.manifestEnabled = a.manifestEnabled;
  if (a.storageOptions) opts.storageOptions = a.storageOptions;
  return await lancedb.connect(a.uri, opts);
}
const ns = (a) => a.namespace ?? [];
function needName(a) { if (typeof a.name !== "string") throw new Error("missing \"name\""); return a.name; }

/** The table an op works on: a dataset by path, or a catalog table by uri+namespace+name. */
async function table(a) {
  if (typeof a.path === "string") {
    const ds = await openDataset(a.path);
    const prev = cleanup;
    cleanup = () => { prev(); ds.cleanup(); };
    if (a.version !== undefined) await ds.table.checkout(a.version);
    return ds.table;
  }
  const db = await connect(a);
  const t = await db.openTable(needName(a), ns(a), a.version !== undefined ? { version: a.version } : undefined);
  return t;
}

function rowsTable(rawRows, schemaJSON) {
  const rows = rawRows ?? [];
  return tableFromRows(schemaFromJSON(schemaJSON ?? inferSchema(rows)), rows);
}

async function queryRows(t, a) {
  const schema = await tableSchemaJSON(t);
  let q = t.query();
  const proj = readableProjection(schema, a.columns ?? null);
  if (a.columns || !Array.isArray(proj)) q = q.select(proj);
  if (a.where) q = q.where(a.where);
  if (a.limit !== undefined) q = q.limit(a.limit);
  if (a.offset !== undefined) q = q.offset(a.offset);
  const lines = [];
  for await (const batch of q) for (const l of batchLines(batch)) lines.push(l);
  return `{"rows":[${lines.join(",")}]}`;
}

const INDEX = { btree: () => lancedb.Index.btree(), bitmap: () => lancedb.Index.bitmap(), labelList: () => lancedb.Index.labelList(), label_list: () => lancedb.Index.labelList() };

async function run(op, raw) {
  // Rows keep exact number text (Num); everything else is plain JS.
  const rows = raw.rows;
  const a = plain({ ...raw, rows: undefined });
  switch (op) {
    // ---- catalog (namespace) ops
    case "createNamespace": {
      const db = await connect(a);
      const r = await db.createNamespace(ns(a), { properties: a.properties, mode: a.mode });
      return J({ properties: r.properties ?? null });
    }
    case "listNamespaces": {
      const db = await connect(a);
      const r = await db.listNamespaces(ns(a), { limit: a.limit, pageToken: a.pageToken });
      return J({ namespaces: r.namespaces, pageToken: r.pageToken ?? null });
    }
    case "describeNamespace": {
      const db = await connect(a);
      const r = await db.describeNamespace(ns(a));
      return J({ properties: r.properties ?? null });
    }
    case "dropNamespace": {
      const db = await connect(a);
      const r = await db.dropNamespace(ns(a), { mode: a.mode, behavior: a.behavior });
      return J({ properties: r.properties ?? null });
    }
    case "catalogTrees": {
      // {"uris": [dir, ...]}: for each catalog, its root namespaces, and the tables of the root
      // and of each root namespace, opening every table; one node start for many catalogs.
      const out = [];
      for (const uri of a.uris ?? []) {
        const entry = { uri, namespaces: [], tables: {}, openErrors: [], error: null };
        try {
          const db = await lancedb.connect(uri);
          entry.namespaces = (await db.listNamespaces([])).namespaces;
          for (const n of [null, ...entry.namespaces]) {
            const path = n === null ? [] : [n];
            const names = await db.tableNames(path);
            entry.tables[n ?? ""] = names;
            for (const name of names) {
              try { await (await db.openTable(name, path)).countRows(); }
              catch (e) { entry.openErrors.push(`${[...path, name].join(".")}: ${e.message ?? e}`); }
            }
          }
        } catch (e) { entry.error = String(e.message ?? e); }
        out.push(entry);
      }
      return J({ catalogs: out });
    }
    case "tableNames": {
      const db = await connect(a);
      const o = {};
      if (a.limit !== undefined) o.limit = a.limit;
      if (a.startAfter !== undefined) o.startAfter = a.startAfter;
      return J({ tables: await db.tableNames(ns(a), o) });
    }
    case "createEmptyTable": {
      const db = await connect(a);
      const opts = a.dataStorageVersion ? { dataStorageVersion: a.dataStorageVersion } : {};
      if (a.mode) opts.mode = a.mode;
      if (a.existOk) opts.existOk = a.existOk;
      const t = await db.createEmptyTable(needName(a), schemaFromJSON(a.schema), ns(a), opts);
      return J({ name: t.name, version: await t.version() });
    }
    case "createTable": {
      const db = await connect(a);
      const opts = a.dataStorageVersion ? { dataStorageVersion: a.dataStorageVersion } : {};
      if (a.mode) opts.mode = a.mode;
      const t = await db.createTable(needName(a), rowsTable(rows, a.schema), ns(a), opts);
      return J({ name: t.name, version: await t.version(), rows: await t.countRows() });
    }
    case "openTable": case "dataset.open": case "dataset.schema": {
      const t = await table(a);
      return J({ schema: await tableSchemaJSON(t), rows: await t.countRows(), version: await t.version() });
    }
    case "countRows": case "dataset.countRows": {
      const t = await table(a);
      return J({ rows: await t.countRows(a.where) });
    }
    case "add": case "dataset.add": {
      const t = await table(a);
      const schema = await tableSchemaJSON(t);
      const r = await t.add(rowsTable(rows, schema), a.mode ? { mode: a.mode } : undefined);
      return J({ version: r.version ?? (await t.version()), rows: await t.countRows() });
    }
    case "delete": case "dataset.delete": {
      const t = await table(a);
      const r = await t.delete(a.where);
      return J({ deleted: r.numDeletedRows, version: r.version });
    }
    case "update": case "dataset.update": { // {where, valuesSql: {col: "sql expr"}}
      const t = await table(a);
      const r = await t.update({ where: a.where, valuesSql: a.valuesSql });
      return J({ updated: r.rowsUpdated, version: r.version });
    }
    case "query": case "dataset.query": {
      return await queryRows(await table(a), a);
    }
    case "dataset.queryMany": { // {queries: [{where, columns, limit, offset}]}: one process for many queries
      const t = await table(a);
      const parts = [];
      for (const q of a.queries ?? []) parts.push(await queryRows(t, q));
      return `{"results":[${parts.join(",")}]}`;
    }
    case "explainPlan": case "dataset.explainPlan": {
      const t = await table(a);
      let q = t.query();
      if (a.where) q = q.where(a.where);
      if (a.limit !== undefined) q = q.limit(a.limit);
      return J({ plan: await q.explainPlan(!!a.verbose) });
    }
    case "dropTable": {
      const db = await connect(a);
      await db.dropTable(needName(a), ns(a));
      return J({});
    }
    case "renameTable": {
      const db = await connect(a);
      await db.renameTable(needName(a), a.newName, { namespacePath: ns(a), newNamespacePath: a.newNamespace ?? ns(a) });
      return J({});
    }
    case "createIndex": case "dataset.createIndex": {
      const t = await table(a);
      const kind = INDEX[a.kind];
      if (!kind) throw new Error(`unknown index kind ${J(a.kind)} (btree, bitmap, labelList)`);
      const o = { config: kind() };
      if (a.indexName) o.name = a.indexName;
      await t.createIndex(a.column, o);
      return J({ indices: await t.listIndices() });
    }
    case "listIndices": case "dataset.listIndices": {
      const t = await table(a);
      return J({ indices: await t.listIndices() });
    }
    case "listVersions": case "dataset.listVersions": {
      const t = await table(a);
      return J({ versions: (await t.listVersions()).map((v) => ({ version: v.version, metadata: v.metadata })) });
    }
    case "batch": {
      // {"ops": [{"op": name, "args": {...}}, ...]}: several ops in one process (a node start
      // costs seconds); each op's result is {"ok": <its result>} or {"error": "<message>"}.
      const parts = [];
      for (const o of raw.ops ?? []) {
        const name = plain(o.op);
        if (name === "batch") throw new Error("batch ops do not nest");
        try {
          parts.push(`{"ok":${await run(name, o.args ?? {})}}`);
        } catch (e) {
          parts.push(J({ error: String(e?.message ?? e) }));
        }
      }
      return `{"results":[${parts.join(",")}]}`;
    }
    default:
      throw new Error(`unknown op ${J(op)}`);
  }
}

let out, code = 0;
try {
  const raw = parseJSON(rawArgs);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error("args must be a JSON object");
  out = await run(op, raw);
} catch (e) {
  out = J({ op, error: String(e?.message ?? e) });
  code = 1;
} finally {
  cleanup();
}
process.stdout.write(out + "\n", () => process.exit(code));
