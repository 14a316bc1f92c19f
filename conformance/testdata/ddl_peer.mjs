#!/usr/bin/env node
// ddl_peer.mjs <cmd> <json-args>: the reference peer's side of conformance/ddl_peer_test.go.
//
// It batches many peer operations into one Node process (starting the peer costs seconds on a
// loaded machine), using the pinned @lancedb/lancedb and the helpers of conformance/peer.
//
//   snapshot {uri}      walks the catalog the way a LanceDB user would: every namespace
//                       (listNamespaces from the root, describeNamespace) and every table
//                       (tableNames, openTable: schema, countRows). Types are in the JSONL.md
//                       notation, plus "time32[unit]" / "time64[unit]" (which that notation lacks);
//                       and the `__manifest` rows (object_id, object_type, location, metadata).
//   add {uri, tables: [{namespace, name, rows}]}
//                       appends rows (JSONL.md value convention) to each table, built against the
//                       table's own schema; returns the new row counts.
//   create {uri, namespaces: [{path, properties}], tables: [{namespace, name, schema, rows}]}
//                       creates namespaces, then tables (createTable with rows, or createEmptyTable
//                       when rows is absent).
//   queries {path, queries: [{where, limit, offset, columns}]}: opens the dataset at path and
//                       runs each query; results[i] is the rows of query i (JSONL.md convention).
//
// Prints one JSON document; on failure {"error": "..."} and exit status 1.
import { createRequire } from "node:module";
import {
  parseJSON, plain, schemaFromJSON, tableFromRows, typeToJSON, batchLines, readableProjection, tableSchemaJSON, arrow, openDataset,
} from "../peer/arrowjson.mjs";

const lancedb = createRequire(new URL("../peer/package.json", import.meta.url))("@lancedb/lancedb");
const J = (v) => JSON.stringify(v);
const UNITS = ["s", "ms", "us", "ns"];

function typeJSON(t) {
  switch (t.typeId) {
    case arrow.Type.Time: return `time${t.bitWidth}[${UNITS[t.unit]}]`;
    case arrow.Type.List: return { list: fieldJSON(t.children[0]) };
    case arrow.Type.FixedSizeList: return { fixed_size_list: fieldJSON(t.children[0]), size: t.listSize };
    case arrow.Type.Struct: return { struct: t.children.map(fieldJSON) };
    default: return typeToJSON(t);
  }
}
function fieldJSON(f) {
  const o = { name: f.name, type: typeJSON(f.type), nullable: f.nullable };
  if (f.metadata && f.metadata.size) o.metadata = Object.fromEntries([...f.metadata].sort());
  return o;
}

async function snapshot(a) {
  const db = await lancedb.connect(a.uri);
  const namespaces = [], tables = [];
  const walk = async (path) => {
    if (path.length > 0) {
      const d = await db.describeNamespace(path);
      namespaces.push({ path, properties: d.properties ?? {} });
    }
    for (const name of await db.tableNames(path)) {
      let t;
      try { t = await db.openTable(name, path); } catch (e) {
        // A declared table is listed but has no dataset to open yet.
        tables.push({ namespace: path, name, openError: String(e?.message ?? e) });
        continue;
      }
      let s;
      try { s = await t.schema(); } catch (e) { tables.push({ namespace: path, name, schema: await tableSchemaJSON(t), rows: await t.countRows() }); continue; }
      const schema = { fields: s.fields.map(fieldJSON) };
      if (s.metadata && s.metadata.size) schema.metadata = Object.fromEntries([...s.metadata].sort());
      tables.push({ namespace: path, name, schema, rows: await t.countRows() });
    }
    const children = (await db.listNamespaces(path)).namespaces;
    for (const c of children) await walk([...path, c]);
  };
  await walk([]);
  // The catalog entries themselves, read as a plain Lance table: table properties live in the
  // `metadata` column of `__manifest` rows.
  const manifest = [];
  const ds = await openDataset(a.uri + "/__manifest");
  try {
    for await (const b of ds.table.query().select(["object_id", "object_type", "location", "metadata"])) {
      for (const l of batchLines(b)) manifest.push(JSON.parse(l));
    }
  } finally {
    ds.cleanup();
  }
  return J({ namespaces, tables, manifest });
}

async function run(cmd, raw) {
  const a = plain({ ...raw, tables: undefined });
  switch (cmd) {
    case "snapshot":
      return await snapshot(a);
    case "add": {
      const db = await lancedb.connect(a.uri);
      const out = [];
      for (const spec of raw.tables) {
        const t = await db.openTable(plain(spec.name), plain(spec.namespace ?? []));
        const schema = schemaFromJSON(await tableSchemaJSON(t));
        await t.add(tableFromRows(schema, spec.rows));
        out.push({ name: plain(spec.name), rows: await t.countRows() });
      }
      return J({ tables: out });
    }
    case "create": {
      const db = await lancedb.connect(a.uri);
      for (const n of a.namespaces ?? []) await db.createNamespace(n.path, { properties: n.properties });
      for (const spec of raw.tables ?? []) {
        const ns = plain(spec.namespace ?? []), name = plain(spec.name);
        const schema = schemaFromJSON(plain(spec.schema));
        if (spec.rows) await db.createTable(name, tableFromRows(schema, spec.rows), ns);
        else await db.createEmptyTable(name, schema, ns);
      }
      return J({});
    }
    case "queries": {
      // {path, queries: [{where, limit, offset, columns}]}: the dataset at path (a table of a
      // catalog or a fixture), read through the peer's query API once per query.
      const ds = await openDataset(a.path);
      try {
        const t = ds.table;
        const schema = await tableSchemaJSON(t);
        const results = [];
        for (const qa of a.queries) {
          let q = t.query();
          const proj = readableProjection(schema, qa.columns ?? null);
          if (qa.columns || !Array.isArray(proj)) q = q.select(proj);
          if (qa.where) q = q.where(qa.where);
          if (qa.limit !== undefined) q = q.limit(qa.limit);
          if (qa.offset !== undefined) q = q.offset(qa.offset);
          const lines = [];
          for await (const batch of q) for (const l of batchLines(batch)) lines.push(l);
          results.push(`[${lines.join(",")}]`);
        }
        return `{"results":[${results.join(",")}]}`;
      } finally {
        ds.cleanup();
      }
    }
  }
  throw new Error(`unknown command ${J(cmd)}`);
}

const [cmd, rawArgs = "{}"] = process.argv.slice(2);
let out, code = 0;
try {
  out = await run(cmd, parseJSON(rawArgs));
} catch (e) {
  out = J({ error: String(e?.message ?? e) });
  code = 1;
}
process.stdout.write(out + "\n", () => process.exit(code));
