#!/usr/bin/env node
// select.mjs <dataset-dir> <json {"name": "SQL expression", ...}>
//
// Test helper of lance/file: prints the peer's read of SQL expressions
// over a Lance dataset as JSON Lines (conformance/peer/JSONL.md conventions).
// Used for types dump.mjs cannot print (e.g. time64, cast to int64 here).
import { openDataset, batchLines } from "../../../conformance/peer/arrowjson.mjs";

const [dir, exprs] = process.argv.slice(2);
if (!dir || !exprs) {
  process.stderr.write("usage: select.mjs <dataset-dir> <json-projection>\n");
  process.exit(2);
}
const ds = await openDataset(dir);
try {
  const out = [];
  for await (const batch of ds.table.query().select(JSON.parse(exprs))) {
    for (const line of batchLines(batch)) out.push(line);
  }
  process.stdout.write(out.map((l) => l + "\n").join(""));
} finally {
  ds.cleanup();
}
