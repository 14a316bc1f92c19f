#!/usr/bin/env node
// gen-compressed.mjs <dataset-dir> [rows]
//
// Writes, with the reference peer (LanceDB / Rust Lance), a Lance 2.1 dataset whose columns carry
// the field metadata that makes Rust Lance apply "general" buffer compression (LZ4 / zstd):
//
//   lance-encoding:compression        "lz4" | "zstd"   (also "none", "fsst": not general)
//   lance-encoding:compression-level  zstd level        (parsed as i32)
//   lance-encoding:bss                "off" | "on" | "auto"   (byte stream split of 32/64-bit floats)
//   lance-encoding:rle-threshold      float             (RLE when runs < values * threshold)
//
// In the 2.1 writer this metadata is honoured for mini-block pages (the inner encoding's first value
// buffer is compressed chunk by chunk when the page's buffer is >= 4 KiB and compression shrinks it)
// and for full-zip pages of variable-width values (each value compressed on its own). Column values
// are deterministic (seeded PRNG) and chosen to compress well, so the peer does compress them.
// For list<utf8> the metadata sits on the item field (the leaf the peer's compressor sees).
// Prints one JSON line: {dir, rows, columns, seconds, fileVersions}.
import * as lancedb from "@lancedb/lancedb";
import * as fs from "node:fs";
import * as path from "node:path";
import { schemaFromJSON, tableFromColumns, tableSchemaJSON } from "./arrowjson.mjs";

function prng(seed) { // mulberry32
  let a = seed >>> 0;
  const u32 = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const r = {
    u32,
    float: () => (u32() * 2 ** 21 + (u32() >>> 11)) / 2 ** 53,
    int: (n) => Math.floor(r.float() * n),
    range: (lo, hi) => lo + r.int(hi - lo + 1),
    chance: (p) => r.float() < p,
    pick: (arr) => arr[r.int(arr.length)],
    i64: () => BigInt.asIntN(64, (BigInt(u32()) << 32n) | BigInt(u32())),
  };
  return r;
}

const WORDS = ["alpha", "beta", "gamma", "delta", "lance", "arrow", "página", "데이터", "数据", "🦀", "naïve", "zürich", "o'brien", "quote\"d", "back\\slash", "tab\tsep", "line\nbreak"];
const text = (r, maxWords) => Array.from({ length: r.range(1, maxWords) }, () => r.pick(WORDS)).join(" ");
function longText(r, min, max) {
  const n = r.range(min, max);
  let s = "";
  while (s.length < n) s += text(r, 12) + " " + r.int(1000) + " ";
  return s.slice(0, n);
}

const md = (scheme, extra = {}) => ({ "lance-encoding:compression": scheme, ...extra });

/** The columns written once per scheme; name suffix _<scheme>. */
function schemeFields(scheme) {
  const level = scheme === "zstd" ? { "lance-encoding:compression-level": "6" } : {};
  return [
    { name: `i64_${scheme}`, type: "int64", metadata: md(scheme, level) },
    { name: `f64_${scheme}`, type: "float64", metadata: md(scheme) },
    { name: `f64_bss_${scheme}`, type: "float64", metadata: md(scheme, { "lance-encoding:bss": "on" }) },
    { name: `runs_${scheme}`, type: "int32", metadata: md(scheme, { "lance-encoding:bss": "off", "lance-encoding:rle-threshold": "0.9" }) },
    { name: `utf8_${scheme}`, type: "utf8", metadata: md(scheme) },
    { name: `long_${scheme}`, type: "utf8", metadata: md(scheme) },
    { name: `mid_${scheme}`, type: "utf8", metadata: md(scheme) },
    { name: `bin_${scheme}`, type: "binary", metadata: md(scheme) },
    { name: `list_${scheme}`, type: { list: { name: "item", type: "utf8", nullable: true, metadata: md(scheme) } }, metadata: md(scheme) },
    { name: `vec_${scheme}`, type: { fixed_size_list: { name: "item", type: "float32", nullable: true }, size: 16 }, metadata: md(scheme) },
    { name: `dict_${scheme}`, type: "utf8", metadata: md(scheme) },
  ];
}

const SCHEMA = { fields: [{ name: "id", type: "int64", nullable: false }, ...schemeFields("lz4"), ...schemeFields("zstd")] };

const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n;

function columns(n, seed) {
  const r = prng(seed);
  const cols = { id: Array.from({ length: n }, (_, i) => BigInt(i)) };
  // Small pools of "random" values: wide (no bit-packing gain) but repeating, so LZ4/zstd shrink them.
  const i64Pool = [I64_MIN, I64_MAX, 0n, -1n, ...Array.from({ length: 60 }, () => r.i64())];
  const f64Pool = [-0, NaN, Infinity, -Infinity, 5e-324, Number.MAX_VALUE, ...Array.from({ length: 120 }, () => (r.float() - 0.5) * 10 ** r.range(-6, 9))];
  const f32Pool = [-0, NaN, Infinity, 1, ...Array.from({ length: 40 }, () => Math.fround(r.float() * 2 - 1))];
  // Binary values: slices of one random 2 KiB buffer (distinct values, so no dictionary; repeating bytes).
  const binSrc = Uint8Array.from({ length: 2048 }, () => r.u32() & 0xff);
  const dictPool = ["red", "green", "blue", "cyan", "magenta", "yellow", "black", "white"];
  for (const s of ["lz4", "zstd"]) {
    const col = (name, gen, pNull = 0.1) => {
      cols[`${name}_${s}`] = Array.from({ length: n }, (_, i) => (r.chance(pNull) ? null : gen(i)));
    };
    col("i64", () => r.pick(i64Pool));
    col("f64", () => r.pick(f64Pool));
    col("f64_bss", (i) => (i % 1000) * 0.125 + r.pick([0, 0.5, 1024]));
    let runVal = 0, runLeft = 0;
    col("runs", () => { if (runLeft-- <= 0) { runVal = r.range(-100000, 100000); runLeft = r.range(2, 40); } return runVal; }, 0.02);
    col("utf8", () => (r.chance(0.1) ? "" : text(r, 5)));
    // Any value of 256+ bytes in a page makes the 2.1 writer pick the full-zip layout.
    col("long", () => (r.chance(0.15) ? longText(r, 1025, 1600) : text(r, 3)), 0.05);
    // 60..80 characters (< 256 bytes even in 3-byte UTF-8): mini-block, longer than utf8_*.
    col("mid", () => longText(r, 60, 80));
    col("bin", () => { const a = r.int(2000); return binSrc.slice(a, a + r.range(0, 48)); });
    col("list", () => {
      if (r.chance(0.1)) return [];
      return Array.from({ length: r.range(1, 6) }, () => (r.chance(0.1) ? null : text(r, 2) + " " + r.int(100000)));
    });
    col("vec", () => Array.from({ length: 16 }, () => (r.chance(0.02) ? null : r.pick(f32Pool))), 0.05);
    col("dict", () => r.pick(dictPool), 0.05);
  }
  return cols;
}

function fileVersions(dir) {
  const counts = {};
  for (const e of fs.readdirSync(path.join(dir, "data"))) {
    if (!e.endsWith(".lance")) continue;
    const fd = fs.openSync(path.join(dir, "data", e), "r");
    const size = fs.fstatSync(fd).size;
    const b = Buffer.alloc(8);
    fs.readSync(fd, b, 0, 8, size - 8);
    fs.closeSync(fd);
    const key = b.toString("latin1", 4, 8) === "LANC" ? `${b.readUInt16LE(0)}.${b.readUInt16LE(2)}` : "not-lance";
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function main() {
  const [dir, rowsArg = "20000"] = process.argv.slice(2);
  const n = Number(rowsArg);
  if (!dir || !Number.isInteger(n) || n < 1) {
    process.stderr.write("usage: gen-compressed.mjs <dataset-dir> [rows]\n");
    process.exit(2);
  }
  const t0 = process.hrtime.bigint();
  const work = dir + ".work";
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const db = await lancedb.connect(work, { manifestEnabled: false });
  const schema = schemaFromJSON(SCHEMA);
  const t = await db.createTable("t", tableFromColumns(schema, columns(n, 2024), n), { dataStorageVersion: "2.1" });
  const info = { rows: await t.countRows(), columns: (await tableSchemaJSON(t)).fields.length };
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(path.join(work, "t.lance"), dir);
  fs.rmSync(work, { recursive: true, force: true });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({ dir, ...info, seconds, fileVersions: fileVersions(dir) }) + "\n");
}

await main().catch((e) => {
  process.stderr.write(`gen-compressed.mjs: ${e?.stack ?? e}\n`);
  process.exit(1);
});
