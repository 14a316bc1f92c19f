#!/usr/bin/env node
// peer_lookup_bench.mjs <dataset-dir> <json: [{name, where}]> <iterations>
//
// Times filtered queries of the reference peer (LanceDB) on one Lance dataset
// for the lookup benchmark of lance/index: opens the dataset once, runs
// each query once to warm caches, then runs it <iterations> times and prints
// {"<name>": {"msPerQuery": x, "rows": n, "plan": "..."}}.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peerDir = path.resolve(here, "../../../conformance/peer");
const { openDataset } = await import(pathToFileURL(path.join(peerDir, "arrowjson.mjs")).href);

const [dir, queriesJSON, itersText = "20"] = process.argv.slice(2);
const queries = JSON.parse(queriesJSON);
const iters = Number(itersText);
const ds = await openDataset(dir);
const out = {};
try {
  for (const q of queries) {
    const run = async () => {
      let rows = 0;
      for await (const b of ds.table.query().where(q.where).select(["object_id"])) rows += b.numRows;
      return rows;
    };
    const rows = await run();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) await run();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / iters;
    const plan = await ds.table.query().where(q.where).explainPlan(false);
    out[q.name] = { msPerQuery: ms, rows, plan };
  }
} finally {
  ds.cleanup();
}
process.stdout.write(JSON.stringify(out) + "\n");
