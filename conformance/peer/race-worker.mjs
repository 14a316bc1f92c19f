#!/usr/bin/env node
// race-worker.mjs <root> <namespace> <worker-name> <count>
//
// One peer process of the mixed catalog race: in namespace <namespace> of the
// catalog at <root> it creates and drops <count> tables named
// <worker>_tmp<i>, then creates <count> tables <worker>_keep<i> that it keeps.
// A failed operation is retried (a conflict that exhausted the peer's own
// retries is not a lost write: nothing landed); a retried create that finds
// its table, or a retried drop that finds it gone, counts as done, because
// the earlier attempt may have landed. Prints {"ok":true,"retries":N}.
//
// race-worker.mjs --open <root> <namespace> <name>...: opens every named table
// and prints {"opened":N} (or fails naming the first that does not open).
import * as lancedb from "@lancedb/lancedb";
import { schemaFromJSON } from "./arrowjson.mjs";

if (process.argv[2] === "--open") {
  const [root, nsName, ...names] = process.argv.slice(3);
  const db = await lancedb.connect(root);
  for (const n of names) {
    const t = await db.openTable(n, [nsName]);
    await t.countRows();
  }
  process.stdout.write(JSON.stringify({ opened: names.length }) + "\n");
  process.exit(0);
}

const [root, nsName, worker, countArg] = process.argv.slice(2);
const count = Number(countArg);
const ns = [nsName];
const schema = schemaFromJSON([{ name: "id", type: "int64", nullable: false }]);
const db = await lancedb.connect(root);
let retries = 0;

async function attempt(what, fn, doneIf) {
  for (let i = 0; ; i++) {
    try {
      await fn();
      return;
    } catch (e) {
      if (i > 0 && (await doneIf())) return;
      if (i >= 50) throw new Error(`${what}: ${e.message}`);
      retries++;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    }
  }
}
const exists = async (name) => (await db.tableNames(ns, { limit: 100000 })).includes(name);

for (let i = 0; i < count; i++) {
  const tmp = `${worker}_tmp${i}`;
  await attempt(`create ${tmp}`, () => db.createEmptyTable(tmp, schema, ns), () => exists(tmp));
  await attempt(`drop ${tmp}`, () => db.dropTable(tmp, ns), async () => !(await exists(tmp)));
}
for (let i = 0; i < count; i++) {
  const keep = `${worker}_keep${i}`;
  await attempt(`create ${keep}`, () => db.createEmptyTable(keep, schema, ns), () => exists(keep));
}
process.stdout.write(JSON.stringify({ ok: true, retries }) + "\n");
