#!/usr/bin/env node
// peer_optimize.mjs <dataset-dir>
//
// Runs the reference peer's table.optimize() (compaction, index
// optimization) on one Lance dataset and prints {"indices": [...]} after it.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peerDir = path.resolve(here, "../../../conformance/peer");
const { openDataset } = await import(pathToFileURL(path.join(peerDir, "arrowjson.mjs")).href);

const ds = await openDataset(process.argv[2]);
try {
  const stats = await ds.table.optimize();
  process.stdout.write(JSON.stringify({ stats, indices: await ds.table.listIndices() }, (k, v) => typeof v === "bigint" ? v.toString() : v) + "\n");
} finally {
  ds.cleanup();
}
