// stream-table.mjs: the large table of the streaming measurement (issue 11).
//   node stream-table.mjs gen  <catalog-dir> <rows>   writes table "t" (id int64, s utf8) in the
//                                                     root namespace, in fragments of 250,000 rows
//   node stream-table.mjs read <catalog-dir>          t.query().select(["id","s"]).toArrow() and prints
//                                                     {rows, seconds, cpuSeconds, maxRSSBytes, idSum}
import * as lancedb from "@lancedb/lancedb";
import { schemaFromJSON, tableFromColumns } from "./arrowjson.mjs";

const [mode, dir, n] = process.argv.slice(2);
const CHUNK = 250000;
const SCHEMA = schemaFromJSON({ fields: [{ name: "id", type: "int64", nullable: false }, { name: "s", type: "utf8", nullable: false }] });

// s is 10 to 40 bytes, deterministic in i.
function sValue(i) {
  return `row-${i}-` + "abcdefghijklmnopqrstuvwxyz0123456789".slice(0, (i * 7919) % 30);
}

if (mode === "gen") {
  const total = Number(n);
  const db = await lancedb.connect(dir);
  let t;
  for (let start = 0; start < total; start += CHUNK) {
    const m = Math.min(CHUNK, total - start);
    const ids = new Array(m);
    const s = new Array(m);
    for (let i = 0; i < m; i++) {
      ids[i] = BigInt(start + i);
      s[i] = sValue(start + i);
    }
    const table = tableFromColumns(SCHEMA, { id: ids, s }, m);
    if (t === undefined) t = await db.createTable("t", table);
    else await t.add(table);
  }
  process.stdout.write(JSON.stringify({ rows: await t.countRows() }) + "\n");
} else if (mode === "read") {
  const db = await lancedb.connect(dir);
  const t = await db.openTable("t");
  const t0 = process.hrtime.bigint(), cpu0 = process.cpuUsage();
  const tbl = await t.query().select(["id", "s"]).toArrow();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0), cpuSeconds = (cpu.user + cpu.system) / 1e6;
  let idSum = 0n;
  for (const b of tbl.batches) for (const v of b.getChild("id").toArray()) idSum += BigInt(v);
  process.stdout.write(JSON.stringify({ rows: tbl.numRows, seconds, cpuSeconds, maxRSSBytes: process.resourceUsage().maxRSS * 1024, idSum: idSum.toString() }) + "\n");
} else {
  process.stderr.write("usage: stream-table.mjs gen <dir> <rows> | read <dir>\n");
  process.exit(2);
}
