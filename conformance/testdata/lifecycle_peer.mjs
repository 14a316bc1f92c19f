#!/usr/bin/env node
// lifecycle_peer.mjs <json-args>: the reference peer's side of conformance/lifecycle_peer_test.go.
//
// Args: {uri, namespace: [..], name, steps: [{op, ...}]}. The steps run in order on one opened
// table, in one Node process; the output is {"results": [...]}, one entry per step:
//   versions                         [{version, timestamp}] (listVersions)
//   tags                             {name: version} (tags().list())
//   createTag {tag, version}         tags().create
//   deleteTag {tag}
//   checkout {ref}                   checkout(version number or tag name), then the step result is
//                                    {version, ids} (ids sorted) of what the table reads there
//   latest                           checkoutLatest, then {version, ids}
//   rows {where?}                    {version, ids} of the current checkout
//   add {rows}                       appends [{id, name}] rows (id BIGINT)
//   delete {where}
//   restore                          restore() the checked-out version
//   optimize {cleanup?: bool}        optimize(); with cleanup, prune every version older than now
//   indices                          [{name, indexedRows, unindexedRows}] (listIndices + indexStats)
//   mergeInsert {rows}               mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
// A failing step's entry is {"error": "..."} and the following steps still run.
import { createRequire } from "node:module";
import { parseJSON, plain } from "../peer/arrowjson.mjs";

const lancedb = createRequire(new URL("../peer/package.json", import.meta.url))("@lancedb/lancedb");
const J = (v) => JSON.stringify(v, (k, x) => (typeof x === "bigint" ? Number(x) : x));

async function ids(t, where) {
  let q = t.query().select(["id"]);
  if (where) q = q.where(where);
  const out = [];
  for await (const b of q) for (const r of b.toArray()) out.push(Number(r.id));
  out.sort((a, b) => a - b);
  return { version: await t.version(), ids: out };
}

const rowsOf = (rows) => rows.map((r) => ({ id: BigInt(r.id), name: r.name ?? null }));

async function step(t, s) {
  switch (s.op) {
    case "versions": return (await t.listVersions()).map((v) => ({ version: v.version, timestamp: v.timestamp.toISOString() }));
    case "tags": {
      const l = await (await t.tags()).list();
      const out = {};
      for (const [k, v] of Object.entries(l)) out[k] = v.version;
      return out;
    }
    case "createTag": await (await t.tags()).create(s.tag, s.version); return {};
    case "deleteTag": await (await t.tags()).delete(s.tag); return {};
    case "checkout": await t.checkout(s.ref); return await ids(t);
    case "latest": await t.checkoutLatest(); return await ids(t);
    case "rows": return await ids(t, s.where);
    case "add": await t.add(rowsOf(s.rows)); return { version: await t.version() };
    case "delete": await t.delete(s.where); return { version: await t.version() };
    case "restore": await t.restore(); return { version: await t.version() };
    case "optimize": {
      const o = s.cleanup ? { cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true } : {};
      const st = await t.optimize(o);
      return { version: await t.version(), stats: st };
    }
    case "indices": {
      const out = [];
      for (const ix of await t.listIndices()) {
        const st = await t.indexStats(ix.name);
        out.push({ name: ix.name, indexedRows: st?.numIndexedRows, unindexedRows: st?.numUnindexedRows });
      }
      return out;
    }
    case "mergeInsert": {
      const r = await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rowsOf(s.rows));
      return { version: r.version, inserted: r.numInsertedRows, updated: r.numUpdatedRows };
    }
  }
  throw new Error(`unknown step ${J(s.op)}`);
}

let out, code = 0;
try {
  const a = plain(parseJSON(process.argv[2] ?? "{}"));
  const db = await lancedb.connect(a.uri);
  const t = await db.openTable(a.name, a.namespace ?? []);
  const results = [];
  for (const s of a.steps ?? []) {
    try { results.push({ ok: await step(t, s) }); } catch (e) { results.push({ error: String(e?.message ?? e) }); }
  }
  out = J({ results });
} catch (e) {
  out = J({ error: String(e?.message ?? e) });
  code = 1;
}
process.stdout.write(out + "\n", () => process.exit(code));
