#!/usr/bin/env node
// rewrite.mjs <src-dataset-dir> <dst-dir> [--append]
//
// The peer reads every row of the Lance dataset at src and writes the same rows, with its own
// writer and default settings, as table "t" of the directory <dst-dir> (dataset <dst-dir>/t.lance,
// file format 2.1). With --append the rows are instead appended to the dataset at <dst-dir>
// itself (a dataset directory), so the peer adds a fragment of its own next to ours. Used to
// compare the bytes of lancecat's data files with the peer's for the very same rows, and to prove
// the peer reads (and extends) what lancecat wrote. Prints {rows, version}.
import * as lancedb from "@lancedb/lancedb";
import { openDataset } from "./arrowjson.mjs";

const [src, dst, flag] = process.argv.slice(2);
if (!src || !dst) {
  process.stderr.write("usage: rewrite.mjs <src-dataset-dir> <dst-dir> [--append]\n");
  process.exit(2);
}
const ds = await openDataset(src);
let dstDs;
try {
  const data = await ds.table.query().toArrow();
  let t;
  if (flag === "--append") {
    dstDs = await openDataset(dst);
    t = dstDs.table;
    await t.add(data);
  } else {
    const db = await lancedb.connect(dst, { manifestEnabled: false });
    t = await db.createTable("t", data);
  }
  process.stdout.write(JSON.stringify({ rows: await t.countRows(), version: await t.version() }) + "\n");
} finally {
  ds.cleanup();
  if (dstDs) dstDs.cleanup();
}
