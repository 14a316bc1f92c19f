#!/usr/bin/env node
// dump.mjs <dataset-dir> [--columns a,b] [--limit N] [--version N]
//
// Prints the peer's own read of a Lance dataset as JSON Lines, one object per row in the peer's
// natural scan order, with the value conventions of JSONL.md.
import { openDataset, tableSchemaJSON, readableProjection, batchLines } from "./arrowjson.mjs";

function usage(msg) {
  process.stderr.write(`${msg}\nusage: dump.mjs <dataset-dir> [--columns a,b] [--limit N] [--version N]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let dir = null, columns = null, limit = null, version = null;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const next = () => { if (i + 1 >= args.length) usage(`${a} needs a value`); return args[++i]; };
  if (a === "--columns") columns = next().split(",").filter((s) => s.length > 0);
  else if (a === "--limit") { limit = Number(next()); if (!Number.isInteger(limit) || limit < 0) usage("bad --limit"); }
  else if (a === "--version") { version = Number(next()); if (!Number.isInteger(version) || version < 1) usage("bad --version"); }
  else if (a.startsWith("--")) usage(`unknown flag ${a}`);
  else if (dir === null) dir = a;
  else usage("more than one dataset directory");
}
if (dir === null) usage("missing dataset directory");

async function write(text) {
  if (!process.stdout.write(text)) await new Promise((r) => process.stdout.once("drain", r));
}

let ds;
try {
  ds = await openDataset(dir);
  if (version !== null) await ds.table.checkout(version);
  const schema = await tableSchemaJSON(ds.table);
  let q = ds.table.query();
  const proj = readableProjection(schema, columns);
  if (columns !== null || !Array.isArray(proj)) q = q.select(proj);
  if (limit !== null) q = q.limit(limit);
  let buf = [];
  for await (const batch of q) {
    for (const line of batchLines(batch)) {
      buf.push(line);
      if (buf.length >= 1024) { await write(buf.join("\n") + "\n"); buf = []; }
    }
  }
  if (buf.length) await write(buf.join("\n") + "\n");
} catch (e) {
  process.stderr.write(`dump.mjs: ${e?.message ?? e}\n`);
  process.exitCode = 1;
} finally {
  ds?.cleanup();
}
