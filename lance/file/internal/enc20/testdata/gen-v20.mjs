#!/usr/bin/env node
// gen-v20.mjs <peer-dir> <out-dataset-dir> <rows> [dataStorageVersion]
//
// Writes a Lance dataset with the reference peer (conformance/peer's pinned
// @lancedb/lancedb) in file format 2.0, covering what the 2.0 writer does at
// scale: several pages per column, list item pages not aligned with list
// pages, dictionary-encoded low-cardinality strings, long strings, nulls.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import path from "node:path";

const [peerDir, out, rowsArg, version = "2.0"] = process.argv.slice(2);
if (!peerDir || !out || !rowsArg) {
  process.stderr.write("usage: gen-v20.mjs <peer-dir> <out-dataset-dir> <rows> [version]\n");
  process.exit(2);
}
const require = createRequire(path.join(peerDir, "package.json"));
const lancedb = require("@lancedb/lancedb");
const { schemaFromJSON, tableFromColumns } = await import(pathToFileURL(path.join(peerDir, "arrowjson.mjs")).href);

const n = Number(rowsArg);
let s = 0x9e3779b97f4a7c15n;
const u64 = () => { s ^= s << 13n; s &= 0xffffffffffffffffn; s ^= s >> 7n; s ^= s << 17n; s &= 0xffffffffffffffffn; return s; };
const u32 = () => Number(u64() & 0xffffffffn);
const float = () => u32() / 2 ** 32;
const chance = (p) => float() < p;
const range = (lo, hi) => lo + (u32() % (hi - lo + 1));
const words = ["lance", "arrow", "page", "column", "zone", "delta", "ü€", "x", "catalog", "namespace"];
const text = (k) => Array.from({ length: range(1, k) }, () => words[u32() % words.length]).join(" ");
const i64 = () => BigInt.asIntN(64, u64());

const schema = schemaFromJSON({ fields: [
  { name: "id", type: "int64", nullable: false },
  { name: "i32", type: "int32" },
  { name: "u16", type: "uint16" },
  { name: "i64", type: "int64" },
  { name: "f64", type: "float64" },
  { name: "flag", type: "bool" },
  { name: "name", type: "utf8" },
  { name: "low_card", type: "utf8" },
  { name: "long_text", type: "large_utf8" },
  { name: "bin", type: "binary" },
  { name: "nums", type: { list: { name: "item", type: "int64" } } },
  { name: "tags", type: { list: { name: "item", type: "utf8" } } },
  { name: "st", type: { struct: [
    { name: "a", type: "int32" }, { name: "b", type: "utf8" },
    { name: "c", type: { list: { name: "item", type: "float64" } } }] } },
  { name: "ls", type: { list: { name: "item", type: { struct: [
    { name: "x", type: "int64" }, { name: "y", type: "utf8" }] } } } },
  { name: "vec", type: { fixed_size_list: { name: "item", type: "float32" }, size: 16 } },
  { name: "nothing", type: "int64" },
  { name: "zstd_text", type: "utf8", metadata: { "lance-encoding:compression": "zstd" } },
  { name: "lz4_bin", type: "large_binary", metadata: { "lance-encoding:compression": "lz4" } },
  ...(process.env.GEN_V20_PACKED ? [{ name: "packed", type: { struct: [{ name: "p", type: "int32" }, { name: "q", type: "float64" }] }, metadata: { "lance-encoding:packed": "true" } }] : []),
] });

const cols = {};
const col = (name, gen, pNull = 0.1) => { const v = new Array(n); for (let i = 0; i < n; i++) v[i] = chance(pNull) ? null : gen(i); cols[name] = v; };
const list = (gen, maxLen) => () => (chance(0.1) ? [] : Array.from({ length: range(1, maxLen) }, () => (chance(0.1) ? null : gen())));
const colors = ["red", "green", "blue", "cyan", "magenta"];
col("id", (i) => BigInt(i), 0);
col("i32", () => (u32() | 0));
col("u16", () => range(0, 1000));
col("i64", () => i64());
col("f64", () => (float() - 0.5) * 1e6);
col("flag", () => chance(0.5));
col("name", () => text(4), 0.05);
col("low_card", () => colors[u32() % colors.length], 0.05);
col("long_text", () => (chance(0.02) ? "L".repeat(range(1000, 3000)) + text(10) : text(3)));
col("bin", () => Uint8Array.from({ length: range(0, 30) }, () => u32() & 0xff));
col("nums", list(() => i64(), 8));
col("tags", list(() => text(2), 5));
col("st", () => ({ a: chance(0.1) ? null : u32() | 0, b: chance(0.1) ? null : text(2), c: chance(0.1) ? null : list(() => float(), 4)() }), 0.05);
col("ls", list(() => ({ x: chance(0.1) ? null : i64(), y: chance(0.1) ? null : text(2) }), 4));
col("vec", () => Array.from({ length: 16 }, () => (chance(0.01) ? null : Math.fround(float() * 2 - 1))), 0.05);
col("nothing", () => null, 1);
col("zstd_text", () => text(6));
col("lz4_bin", () => Uint8Array.from({ length: range(0, 60) }, (_, j) => j % 7));
if (process.env.GEN_V20_PACKED) col("packed", () => ({ p: u32() | 0, q: float() }), 0);

const data = tableFromColumns(schema, cols, n);
const work = out + ".work";
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(out, { recursive: true, force: true });
const db = await lancedb.connect(work, { manifestEnabled: false });
const t = await db.createTable("t", data, { dataStorageVersion: version });
const rows = await t.countRows();
db.close();
fs.renameSync(path.join(work, "t.lance"), out);
fs.rmSync(work, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ rows }) + "\n");
