// DuckDB's side of lancecat's ingest benchmark (conformance/bench, suite ingest):
//   node ingest.mjs '{"db", "ddl", "file", "format": "csv" | "parquet"}'
// Creates table t (ddl) in a new database file db and runs COPY t FROM file, then CHECKPOINT,
// so the rows are in the database file (as lancecat's are in its data files) when the time
// stops. One process per load, so the caller's getrusage of it is the load's peak RSS. Prints
// {"ns", "cpuNs" (user + system, all threads, over the same span), "rows"} or {"error"}.
import { DuckDBInstance } from '@duckdb/node-api';

try {
  const args = JSON.parse(process.argv[2]);
  const db = await DuckDBInstance.create(args.db);
  const conn = await db.connect();
  await conn.run(args.ddl);
  const path = args.file.replaceAll("'", "''");
  const opts = args.format === 'parquet' ? '(FORMAT parquet)' : '(FORMAT csv, HEADER true)';
  const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
  await conn.run(`COPY t FROM '${path}' ${opts}`);
  await conn.run('CHECKPOINT');
  const ns = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(c0); // the whole process: DuckDB's threads too
  const cpuNs = (cpu.user + cpu.system) * 1000;
  const reader = await conn.runAndReadAll('SELECT count(*) FROM t');
  const rows = Number(reader.getRows()[0][0]);
  conn.closeSync?.();
  db.closeSync?.();
  console.log(JSON.stringify({ ns, cpuNs, rows }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.stack ?? e) }));
  process.exit(1);
}
