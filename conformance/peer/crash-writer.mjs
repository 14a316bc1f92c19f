#!/usr/bin/env node
// crash-writer.mjs: the reference's side of lancecat's multi-process kill -9 test
// (conformance/crash_kill_test.go).
//
// crash-writer.mjs write <root> <namespace> <appends> <idBase> [<tables>]
//   creates namespace <namespace> and its table "p" with 4 rows, then appends 4 rows <appends>
//   times, while lancecat writers work on the same catalog; with <tables> > 1 it goes on with
//   tables "p1", "p2", ... the same way. Ids are <idBase>, <idBase>+1, ...; column v = id * 2.
//   Before each operation it prints {"begin":"namespace"|"create"|"add","table":..,"ids":[...]}
//   (what a kill may leave half done), after it has returned one line
//   {"table":"<namespace>.p","ids":[...]} (a committed write), and {"ok":true,"retries":N} at the
//   end. A failed catalog operation is retried (nothing landed, or the retry finds it landed).
//
// crash-writer.mjs dump <root>
//   lists the root namespaces and the tables of the root and of each of them, opens every table
//   and reads its columns id and v; prints {"namespaces":[...],"tables":{"ns.t":{"fields":[..],
//   "rows":[[id,v],...]}},"errors":["ns.t: message",...]} (ids and v as exact decimal strings).
import * as lancedb from "@lancedb/lancedb";
import { schemaFromJSON, tableFromRows } from "./arrowjson.mjs";

const [mode, root, ...rest] = process.argv.slice(2);
// An object-store catalog's storage options come as JSON in LANCECAT_CRASH_STORAGE_OPTIONS.
const storageOptions = process.env.LANCECAT_CRASH_STORAGE_OPTIONS ? JSON.parse(process.env.LANCECAT_CRASH_STORAGE_OPTIONS) : undefined;
const db = await lancedb.connect(root, storageOptions ? { storageOptions } : {});
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");

if (mode === "dump") {
  const res = { namespaces: [], tables: {}, errors: [] };
  res.namespaces = (await db.listNamespaces([])).namespaces;
  for (const n of [null, ...res.namespaces]) {
    const path = n === null ? [] : [n];
    for (const name of await db.tableNames(path, { limit: 100000 })) {
      const key = [...path, name].join(".");
      try {
        const t = await db.openTable(name, path);
        const fields = (await t.schema()).fields.map((f) => f.name);
        const rows = [];
        for await (const batch of t.query().select(["id", "v"])) {
          const id = batch.getChild("id"), v = batch.getChild("v");
          for (let i = 0; i < batch.numRows; i++) {
            const vv = v.get(i);
            rows.push([String(id.get(i)), vv === null ? null : String(vv)]);
          }
        }
        res.tables[key] = { fields, rows };
      } catch (e) {
        res.errors.push(`${key}: ${e.message ?? e}`);
      }
    }
  }
  // process.exit right after a large write to a pipe would cut the output short.
  process.stdout.write(JSON.stringify(res) + "\n", () => process.exit(0));
  await new Promise(() => {});
}

if (mode !== "write") {
  process.stderr.write("usage: crash-writer.mjs write <root> <namespace> <appends> <idBase> | dump <root>\n");
  process.exit(2);
}
const [nsName, appendsArg, idBaseArg, tablesArg = "1"] = rest;
const appends = Number(appendsArg);
const nTables = Number(tablesArg);
let next = Number(idBaseArg);
const schema = schemaFromJSON([
  { name: "id", type: "int64", nullable: false },
  { name: "v", type: "int64", nullable: true },
]);
const rows = (n) => Array.from({ length: n }, () => { const id = next++; return { id, v: id * 2 }; });
let retries = 0;

async function attempt(what, fn, doneIf) {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i > 0 && (await doneIf())) return;
      if (i >= 50) throw new Error(`${what}: ${e.message}`);
      retries++;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    }
  }
}

const ns = [nsName];
out({ begin: "namespace", table: nsName });
await attempt(`create namespace ${nsName}`, () => db.createNamespace(ns),
  async () => (await db.listNamespaces([])).namespaces.includes(nsName));
for (let k = 0; k < nTables; k++) {
  const name = k === 0 ? "p" : `p${k}`;
  const first = rows(4);
  out({ begin: "create", table: `${nsName}.${name}`, ids: first.map((r) => r.id) });
  await attempt(`create ${nsName}.${name}`, () => db.createTable(name, tableFromRows(schema, first), ns),
    async () => (await db.tableNames(ns)).includes(name));
  out({ table: `${nsName}.${name}`, ids: first.map((r) => r.id) });
  const t = await db.openTable(name, ns);
  for (let i = 0; i < appends; i++) {
    const batch = rows(4);
    out({ begin: "add", table: `${nsName}.${name}`, ids: batch.map((r) => r.id) });
    // Appends to a table only this process writes: a failure is a failure, never retried.
    await t.add(tableFromRows(schema, batch));
    out({ table: `${nsName}.${name}`, ids: batch.map((r) => r.id) });
  }
}
out({ ok: true, retries });
