// tpch-load.mjs: the peer writes TPC-H tables from the Go generator's TSV files (conformance/tpch).
//   node tpch-load.mjs <catalog-dir> <spec.json>
// spec.json: [{name, file, schema: {fields: [{name, type, nullable}]}}, ...]. Each file has one row a
// line, fields separated by tabs (no escapes, no NULLs). Each table is created in the root namespace
// with the given Arrow schema, in batches of 100,000 rows. Prints {table: rows, ...}.
import * as fs from "node:fs";
import * as readline from "node:readline";
import * as lancedb from "@lancedb/lancedb";
import { schemaFromJSON, tableFromColumns } from "./arrowjson.mjs";

const [dir, specFile] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));
const CHUNK = 100000;
const db = await lancedb.connect(dir);
const out = {};
for (const t of spec) {
  const schema = schemaFromJSON(t.schema);
  const names = t.schema.fields.map((f) => f.name);
  let cols = names.map(() => []), n = 0, tbl, total = 0;
  const flush = async () => {
    const c = {};
    names.forEach((name, i) => { c[name] = cols[i]; });
    const batch = tableFromColumns(schema, c, n);
    if (tbl === undefined) tbl = await db.createTable(t.name, batch);
    else await tbl.add(batch);
    total += n;
    cols = names.map(() => []);
    n = 0;
  };
  const rl = readline.createInterface({ input: fs.createReadStream(t.file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line === "") continue;
    const f = line.split("\t");
    if (f.length !== names.length) throw new Error(`${t.file}: ${f.length} fields, want ${names.length}: ${line}`);
    for (let i = 0; i < f.length; i++) cols[i].push(f[i]);
    if (++n === CHUNK) await flush();
  }
  if (n > 0 || tbl === undefined) await flush();
  out[t.name] = total;
}
process.stdout.write(JSON.stringify(out) + "\n");
