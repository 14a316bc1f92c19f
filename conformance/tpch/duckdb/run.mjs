// Runs the TPC-H queries in DuckDB for conformance/tpch's benchmark:
// node run.mjs <dir of .tsv files> <queries.json> [--values]. queries.json
// holds {"tables": [{"name", "ddl"}], "queries": [{"n", "sql"}]}. Prints one
// JSON line per query: {"n", "ms", "rows"} or {"n", "error"}; the load first
// as {"load_ms"}. With --values each query's line also carries "values": its
// rows as JSON (DECIMAL and BIGINT as text, DATE as YYYY-MM-DD), for
// conformance/tpch's answer test against DuckDB.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, spec, mode] = process.argv.slice(2);
const withValues = mode === '--values';
const { tables, queries } = JSON.parse(readFileSync(spec, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
let t0 = performance.now();
for (const t of tables) {
  await conn.run(t.ddl);
  const path = join(dir, t.name + '.tsv').replaceAll("'", "''");
  await conn.run(`COPY ${t.name} FROM '${path}' (FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE '')`);
}
console.log(JSON.stringify({ load_ms: performance.now() - t0 }));
for (const q of queries) {
  try {
    t0 = performance.now();
    const reader = await conn.runAndReadAll(q.sql);
    const rows = reader.getRows().length;
    const ms = performance.now() - t0;
    const line = { n: q.n, ms, rows };
    if (withValues) line.values = reader.getRowsJson();
    console.log(JSON.stringify(line));
  } catch (e) {
    console.log(JSON.stringify({ n: q.n, error: String(e.message || e) }));
  }
}
