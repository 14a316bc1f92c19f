#!/usr/bin/env node
// ingest.mjs <op> <json-args>
//
// The reference peer's side of lancecat's ingest benchmark (conformance/bench, suite ingest).
// One node process per call, so the caller's getrusage of it is this operation's peak RSS; the
// operation is timed inside node with process.hrtime.bigint() (start-up and module loading are
// not counted). Prints one JSON document on stdout; on failure prints {"error": "..."}, exits 1.
//
// Ops (dir is a LanceDB directory connection; the table is "t"):
//   load {"dir", "arrows", "per"}
//     Streams the Arrow IPC stream file `arrows` (record batches of the generator's chunk size)
//     into a new table: one createEmptyTable with the stream's schema, then one table.add per
//     `per` rows (the batches read so far, as one Arrow table). add of lancedb 0.31 takes an
//     in-memory table (it serializes it to one IPC buffer), so adding the whole file at once
//     would hold every row in node twice; `per` rows at a time is its streaming form. Timed:
//     reading the file and every add. Result: {"ns", "cpuNs" (process.cpuUsage over the same
//     span, all threads), "rows" (countRows), "adds"}.
//   fragments {"dir", "arrows"}
//     createEmptyTable, then one add per record batch of the file (one fragment each), untimed
//     by the caller's reckoning but reported. Result: {"ns", "rows", "adds"}.
//   optimize {"dir"}
//     table.optimize() with its defaults (compaction, index optimize, prune of versions older
//     than 7 days: none here). Timed. Result: {"ns", "cpuNs", "rows", "compaction": {...}}.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as lancedb from "@lancedb/lancedb";

// lancedb's dist is CommonJS and checks `instanceof arrow.Table`: the tables handed to add must
// come from the same (CommonJS) instance of apache-arrow, not from its ES module build.
const arrow = createRequire(import.meta.url)("apache-arrow");

const [op, argJSON] = process.argv.slice(2);

// cpuSince is the process's user + system CPU nanoseconds since c0 (every thread: Lance's
// tokio workers included).
function cpuSince(c0) {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) * 1000;
}

async function openReader(path) {
  const reader = await arrow.RecordBatchReader.from(fs.createReadStream(path));
  await reader.open();
  return reader;
}

async function main() {
  const args = JSON.parse(argJSON ?? "{}");
  const db = await lancedb.connect(args.dir);
  switch (op) {
    case "load":
    case "fragments": {
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      const reader = await openReader(args.arrows);
      const tbl = await db.createEmptyTable("t", reader.schema, { mode: "overwrite" });
      const per = op === "load" ? args.per : 1;
      let pending = [], rows = 0, adds = 0;
      const flush = async () => {
        if (pending.length === 0) return;
        await tbl.add(new arrow.Table(reader.schema, pending));
        pending = [];
        rows = 0;
        adds++;
      };
      for await (const batch of reader) {
        pending.push(batch);
        rows += batch.numRows;
        if (rows >= per) await flush();
      }
      await flush();
      const ns = Number(process.hrtime.bigint() - t0), cpuNs = cpuSince(c0);
      return { ns, cpuNs, rows: await tbl.countRows(), adds };
    }
    case "optimize": {
      const tbl = await db.openTable("t");
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      const stats = await tbl.optimize();
      const ns = Number(process.hrtime.bigint() - t0), cpuNs = cpuSince(c0);
      return { ns, cpuNs, rows: await tbl.countRows(), compaction: stats.compaction };
    }
    default:
      throw new Error(`unknown op ${op}`);
  }
}

try {
  console.log(JSON.stringify(await main()));
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.stack ?? e) }));
  process.exit(1);
}
