#!/usr/bin/env node
// gen-fixtures.mjs <outdir> <set|name[,name...]>
//
// Builds lancecat's test fixtures with the reference peer (LanceDB / Rust Lance), each in its own
// subdirectory <outdir>/<name> (written under a temporary name, then renamed into place).
// Row content is deterministic (seeded PRNG); file names (UUIDs) and the 8-hex location prefixes
// the namespace API draws for tables are not.
//
// Sets: small = catalog-3, catalog-v1, types-1000, deleted-rows, types-v2.0, indexed
//       large = catalog-5000, catalog-100000, types-100000, types-v2.2, types-v2.2-100000
//       (types-v2.2*: Lance 2.2 files, with constant columns that 2.2 writes as inline constants)
// For each fixture one JSON line goes to stdout: {name, seconds, bytes, files, fileVersions, ...}.
import * as lancedb from "@lancedb/lancedb";
import * as fs from "node:fs";
import * as path from "node:path";
import { schemaFromJSON, tableFromColumns, halfToNumber, tableSchemaJSON } from "./arrowjson.mjs";

export const SETS = {
  small: ["catalog-3", "catalog-v1", "types-1000", "deleted-rows", "types-v2.0", "indexed"],
  large: ["catalog-5000", "catalog-100000", "types-100000", "types-v2.2", "types-v2.2-100000"],
};

// ---------------------------------------------------------------- deterministic PRNG

function prng(seed) {
  let a = seed >>> 0;
  const u32 = () => { // mulberry32
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const r = {
    u32,
    float: () => (u32() * 2 ** 21 + (u32() >>> 11)) / 2 ** 53, // [0,1)
    int: (n) => Math.floor(r.float() * n), // [0,n)
    range: (lo, hi) => lo + r.int(hi - lo + 1), // [lo,hi]
    chance: (p) => r.float() < p,
    pick: (arr) => arr[r.int(arr.length)],
    u64: () => (BigInt(u32()) << 32n) | BigInt(u32()),
    i64: () => BigInt.asIntN(64, r.u64()),
    bytes: (n) => { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = u32() & 0xff; return b; },
  };
  return r;
}

const WORDS = ["alpha", "beta", "gamma", "delta", "lance", "arrow", "página", "데이터", "数据", "🦀", "x", "naïve", "zürich", "o'brien", "quote\"d", "back\\slash", "tab\tsep", "line\nbreak"];
function text(r, maxWords) {
  const n = r.range(1, maxWords);
  const w = [];
  for (let i = 0; i < n; i++) w.push(r.pick(WORDS));
  return w.join(" ");
}
function longText(r, min, max) {
  const n = r.range(min, max);
  let s = "";
  while (s.length < n) s += text(r, 12) + " " + r.u32().toString(36) + " ";
  return s.slice(0, n);
}

// ---------------------------------------------------------------- types fixture

const TYPES_SCHEMA = {
  fields: [
    { name: "id", type: "int64", nullable: false },
    { name: "bool", type: "bool" },
    { name: "int8", type: "int8" }, { name: "int16", type: "int16" }, { name: "int32", type: "int32" }, { name: "int64", type: "int64" },
    { name: "uint8", type: "uint8" }, { name: "uint16", type: "uint16" }, { name: "uint32", type: "uint32" }, { name: "uint64", type: "uint64" },
    { name: "float16", type: "float16" }, { name: "float32", type: "float32" }, { name: "float64", type: "float64" },
    { name: "utf8", type: "utf8" }, { name: "large_utf8", type: "large_utf8" }, { name: "long_utf8", type: "utf8" },
    { name: "binary", type: "binary" }, { name: "large_binary", type: "large_binary" },
    { name: "date32", type: "date32" },
    { name: "ts_s", type: "timestamp[s]" }, { name: "ts_ms", type: "timestamp[ms]" },
    { name: "ts_us", type: "timestamp[us]" }, { name: "ts_ns", type: "timestamp[ns]" },
    { name: "ts_us_utc", type: "timestamp[us, tz=UTC]" }, { name: "ts_ns_berlin", type: "timestamp[ns, tz=Europe/Berlin]" },
    { name: "dec_18_2", type: "decimal128(18,2)" }, { name: "dec_38_10", type: "decimal128(38,10)" },
    { name: "list_i32", type: { list: { name: "item", type: "int32", nullable: true } } },
    { name: "list_utf8", type: { list: { name: "item", type: "utf8", nullable: true } } },
    { name: "struct", type: { struct: [
      { name: "a", type: "int32", nullable: true },
      { name: "b", type: "utf8", nullable: true },
      { name: "c", type: { list: { name: "item", type: "float64", nullable: true } }, nullable: true },
    ] } },
    { name: "list_struct", type: { list: { name: "item", nullable: true, type: { struct: [
      { name: "x", type: "int64", nullable: true },
      { name: "y", type: "utf8", nullable: true },
    ] } } } },
    { name: "vector", type: { fixed_size_list: { name: "item", type: "float32", nullable: true }, size: 8 } },
    { name: "low_card", type: "utf8" },
    { name: "runs_i32", type: "int32" },
    { name: "all_null_i64", type: "int64" }, { name: "all_null_utf8", type: "utf8" },
    { name: "const_i64", type: "int64" }, { name: "const_utf8", type: "utf8" },
    { name: "large_list_src", type: { list: { name: "item", type: "int64", nullable: true } } },
  ],
};

const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n, U64_MAX = 2n ** 64n - 1n;
const DAY_MIN = -719162, DAY_MAX = 2932896; // 0001-01-01 .. 9999-12-31
const SEC_MIN = BigInt(DAY_MIN) * 86400n, SEC_MAX = BigInt(DAY_MAX) * 86400n + 86399n;

function typesColumns(n, seed) {
  const r = prng(seed);
  const cols = {};
  const col = (name, special, gen, pNull = 0.1) => {
    const v = new Array(n);
    for (let i = 0; i < n; i++) v[i] = i < special.length ? special[i] : (r.chance(pNull) ? null : gen(i));
    cols[name] = v;
  };
  const sint = (bits) => () => Number(BigInt.asIntN(bits, r.u64()));
  const uint = (bits) => () => Number(BigInt.asUintN(bits, r.u64()));
  const randFloat = () => (r.float() - 0.5) * 10 ** r.range(-8, 8);
  const bigRange = (lo, hi) => lo + (r.u64() * (2n ** 64n) + r.u64()) % (hi - lo + 1n);

  col("id", [], (i) => BigInt(i), 0);
  col("bool", [true, false, null], () => r.chance(0.5));
  col("int8", [-128, 127, 0, null], sint(8));
  col("int16", [-32768, 32767, 0, null], sint(16));
  col("int32", [-2147483648, 2147483647, 0, null], sint(32));
  col("int64", [I64_MIN, I64_MAX, 0n, null, -1n, 9007199254740993n], () => r.i64());
  col("uint8", [0, 255, 1, null], uint(8));
  col("uint16", [0, 65535, 1, null], uint(16));
  col("uint32", [0, 4294967295, 1, null], uint(32));
  col("uint64", [0n, U64_MAX, 1n, null, 2n ** 63n, 18446744073709551557n], () => r.u64());
  col("float16", [-65504, 65504, -0, NaN, Infinity, -Infinity, 2 ** -24, 0.1, null, 1 / 3],
    () => { let h; do { h = r.u32() & 0xffff; } while (((h >> 10) & 0x1f) === 31); return halfToNumber(h); });
  col("float32", [-3.4028234663852886e38, 3.4028234663852886e38, -0, NaN, Infinity, -Infinity, 1.401298464324817e-45, Math.fround(0.1), null, 1.1754943508222875e-38],
    () => Math.fround(randFloat()));
  col("float64", [-Number.MAX_VALUE, Number.MAX_VALUE, -0, NaN, Infinity, -Infinity, 5e-324, 0.1, null, 1e21, 1e-7, 123456789012345680000],
    () => randFloat());
  col("utf8", ["", null, "a", "ü€𝄞", longText(r, 1100, 1500)],
    () => (r.chance(0.03) ? longText(r, 1025, 1500) : r.chance(0.1) ? "" : text(r, 4)));
  col("large_utf8", ["", null, "large"], () => (r.chance(0.02) ? longText(r, 1025, 1200) : text(r, 3)));
  // Any value of 256+ bytes in a page makes the 2.1 writer pick the full-zip layout.
  col("long_utf8", [null, ""], () => (r.chance(0.1) ? longText(r, 1025, 1100) : text(r, 2)), 0.05);
  col("binary", [new Uint8Array(0), null, new Uint8Array([0, 255, 0])], () => r.bytes(r.range(0, 40)));
  col("large_binary", [new Uint8Array(0), null], () => r.bytes(r.range(0, 24)));
  col("date32", [DAY_MIN, DAY_MAX, 0, -1, null, 11016], () => r.range(DAY_MIN, DAY_MAX));
  col("ts_s", [SEC_MIN, SEC_MAX, 0n, -1n, null], () => bigRange(SEC_MIN, SEC_MAX));
  col("ts_ms", [SEC_MIN * 1000n, SEC_MAX * 1000n + 999n, 0n, -1n, null], () => bigRange(SEC_MIN * 1000n, SEC_MAX * 1000n));
  col("ts_us", [SEC_MIN * 1000000n, 0n, -1n, null, 1700000000123456n], () => bigRange(SEC_MIN * 1000000n, SEC_MAX * 1000000n));
  col("ts_ns", [I64_MIN, I64_MAX, 0n, -1n, null], () => r.i64());
  col("ts_us_utc", [0n, -1n, null, 1700000000123456n], () => bigRange(-2208988800000000n, 4102444800000000n)); // 1900..2100
  col("ts_ns_berlin", [0n, -1n, null, 1700000000123456789n], () => r.i64());
  col("dec_18_2", ["0.00", "-0.01", "9999999999999999.99", "-9999999999999999.99", null, "12.30"],
    () => bigRange(-(10n ** 18n) + 1n, 10n ** 18n - 1n));
  col("dec_38_10", [(10n ** 38n) - 1n, -(10n ** 38n) + 1n, 0n, null, 1n], () => bigRange(-(10n ** 38n) + 1n, 10n ** 38n - 1n));
  const list = (gen, pEmpty = 0.1, pElemNull = 0.1, maxLen = 6) => () => {
    if (r.chance(pEmpty)) return [];
    const k = r.range(1, maxLen), out = [];
    for (let j = 0; j < k; j++) out.push(r.chance(pElemNull) ? null : gen());
    return out;
  };
  col("list_i32", [[], null, [null], [-2147483648, 2147483647, 0]], list(sint(32)));
  col("list_utf8", [[], null, [null, ""], ["a", "b"]], list(() => (r.chance(0.1) ? "" : text(r, 2))));
  col("struct", [null, { a: null, b: null, c: null }, { a: 1, b: "", c: [] }, { a: -1, b: "x", c: [null, NaN, -0] }],
    () => ({ a: r.chance(0.1) ? null : sint(32)(), b: r.chance(0.1) ? null : text(r, 2), c: r.chance(0.1) ? null : list(randFloat)() }), 0.08);
  col("list_struct", [null, [], [null], [{ x: null, y: null }], [{ x: I64_MIN, y: "" }, null, { x: I64_MAX, y: "z" }]],
    list(() => ({ x: r.chance(0.1) ? null : r.i64(), y: r.chance(0.1) ? null : text(r, 2) }), 0.1, 0.1, 4));
  col("vector", [null, [0, -0, NaN, Infinity, -Infinity, 1, null, 3.4028234663852886e38]],
    () => Array.from({ length: 8 }, () => (r.chance(0.01) ? null : Math.fround(r.float() * 2 - 1))), 0.05);
  const colors = ["red", "green", "blue", "cyan"];
  col("low_card", [], () => r.pick(colors), 0.05);
  let runVal = 0, runLeft = 0;
  col("runs_i32", [], () => { if (runLeft-- <= 0) { runVal = r.range(-3, 3); runLeft = r.range(50, 400); } return runVal; }, 0);
  col("all_null_i64", [], () => null, 1);
  col("all_null_utf8", [], () => null, 1);
  col("const_i64", [], () => 42n, 0);
  col("const_utf8", [], () => "constant", 0);
  col(LARGE_LIST_SRC, [[], null, [null], [I64_MIN, I64_MAX]], list(() => r.i64()));
  return cols;
}

// large_list cannot be expressed in apache-arrow 18: the rows carry its values as a list<int64>
// column, the peer casts that into a new column (its own data file per fragment) and the source
// column is dropped again (metadata only: its data stays in the first data file, unreferenced).
const LARGE_LIST_SRC = "large_list_src";
const LARGE_LIST_SQL = `arrow_cast(${LARGE_LIST_SRC}, 'LargeList(Int64)')`;

// Columns the 2.2 fixtures add: Lance 2.2 writes constant pages with an inline value (and
// compressed levels when the constant has nulls or sits in a list) for them.
const CONSTANT_FIELDS = [
  { name: "const_bool", type: "bool" },
  { name: "const_null_i32", type: "int32" },
  { name: "const_vec", type: { fixed_size_list: { name: "item", type: "float32", nullable: true }, size: 2 } },
  { name: "const_list_i64", type: { list: { name: "item", type: "int64", nullable: true } } },
  { name: "const_null_utf8", type: "utf8" },
  { name: "const_long_vec", type: { fixed_size_list: { name: "item", type: "float64", nullable: true }, size: 6 } },
  { name: "const_list_utf8", type: { list: { name: "item", type: "utf8", nullable: true } } },
];

function constantColumns(n) {
  const cols = { const_bool: [], const_null_i32: [], const_vec: [], const_list_i64: [], const_null_utf8: [], const_long_vec: [], const_list_utf8: [] };
  for (let i = 0; i < n; i++) {
    cols.const_bool.push(true);
    cols.const_null_i32.push(i % 3 === 1 ? null : 7);
    cols.const_vec.push([1.5, -2]);
    cols.const_list_i64.push(i % 5 === 0 ? [] : i % 7 === 0 ? null : [5n, 5n, 5n]);
    cols.const_null_utf8.push(i % 4 === 2 ? null : "same text");
    cols.const_long_vec.push([0.25, 0.5, 1, 2, 4, 8]);
    cols.const_list_utf8.push(i % 6 === 0 ? null : i % 4 === 0 ? [] : ["ab", "ab"]);
  }
  return cols;
}

async function writeTypes(dir, n, seed, storageVersion, constants = false) {
  const schemaJSON = constants ? { fields: [...TYPES_SCHEMA.fields, ...CONSTANT_FIELDS] } : TYPES_SCHEMA;
  const schema = schemaFromJSON(schemaJSON);
  const columns = constants ? { ...typesColumns(n, seed), ...constantColumns(n) } : typesColumns(n, seed);
  const data = tableFromColumns(schema, columns, n);
  return await withDatasetDir(dir, async (db) => {
    const opts = storageVersion ? { dataStorageVersion: storageVersion } : {};
    const t = await db.createTable("t", data, opts);
    await t.addColumns([{ name: "large_list_i64", valueSql: LARGE_LIST_SQL }]);
    await t.dropColumns([LARGE_LIST_SRC]);
    return { rows: await t.countRows(), columns: (await tableSchemaJSON(t)).fields.length };
  });
}

// ---------------------------------------------------------------- helpers

/** Runs fn(db) with a plain (manifest disabled) connection; the table "t" becomes dir. */
async function withDatasetDir(dir, fn) {
  const work = dir + ".work";
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const db = await lancedb.connect(work, { manifestEnabled: false });
  const info = await fn(db);
  db.close();
  fs.renameSync(path.join(work, "t.lance"), dir);
  fs.rmSync(work, { recursive: true, force: true });
  return info;
}

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p)); else out.push(p);
  }
  return out;
}

/** Footer versions of every *.lance data/index file: {"2.1": count, ...}. */
function fileVersions(dir) {
  const counts = {};
  for (const f of walk(dir)) {
    if (!f.endsWith(".lance")) continue;
    const fd = fs.openSync(f, "r");
    const size = fs.fstatSync(fd).size;
    const b = Buffer.alloc(8);
    fs.readSync(fd, b, 0, 8, size - 8);
    fs.closeSync(fd);
    const key = b.toString("latin1", 4, 8) === "LANC" ? `${b.readUInt16LE(0)}.${b.readUInt16LE(2)}` : "not-lance";
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

// ---------------------------------------------------------------- catalog fixtures

const EVENT_SCHEMA = { fields: [
  { name: "id", type: "int64", nullable: false },
  { name: "name", type: "utf8" },
  { name: "at", type: "timestamp[us, tz=UTC]" },
  { name: "score", type: "float64" },
] };
function eventRows(n, seed) {
  const r = prng(seed);
  const cols = { id: [], name: [], at: [], score: [] };
  for (let i = 0; i < n; i++) {
    cols.id.push(BigInt(i));
    cols.name.push(r.chance(0.1) ? null : text(r, 3));
    cols.at.push(1700000000000000n + BigInt(i) * 1000003n);
    cols.score.push(r.chance(0.1) ? null : r.float() * 100);
  }
  return tableFromColumns(schemaFromJSON(EVENT_SCHEMA), cols, n);
}

async function catalog3(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const db = await lancedb.connect(dir);
  await db.createNamespace(["analytics"], { properties: { owner: "data-team", description: "Analytics tables; \"quoted\" & unicode: zürich" } });
  await db.createNamespace(["analytics", "daily"], { properties: { retention: "30d" } });
  await db.createNamespace(["empty_ns"]);
  await db.createTable("root_t", eventRows(5, 1));
  await db.createTable("events", eventRows(20, 2), ["analytics"]);
  await db.createEmptyTable("pending", schemaFromJSON(EVENT_SCHEMA), ["analytics"]);
  await db.createTable("agg", eventRows(3, 3), ["analytics", "daily"]);
  const check = {
    rootNamespaces: (await db.listNamespaces([])).namespaces,
    analyticsTables: await db.tableNames(["analytics"]),
    rootTables: await db.tableNames([]),
  };
  db.close();
  return check;
}

async function catalogV1(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const db = await lancedb.connect(dir, { manifestEnabled: false });
  await db.createTable("alpha", eventRows(10, 4));
  await db.createTable("beta", eventRows(1, 5));
  await db.createEmptyTable("gamma", schemaFromJSON(EVENT_SCHEMA));
  const check = { rootTables: await db.tableNames() };
  db.close();
  return check;
}

const MANIFEST_SCHEMA = { fields: [
  { name: "object_id", type: "utf8", nullable: false, metadata: { "lance-schema:unenforced-primary-key:position": "0" } },
  { name: "object_type", type: "utf8", nullable: false },
  { name: "location", type: "utf8", nullable: true },
  { name: "metadata", type: "utf8", nullable: true },
  { name: "base_objects", type: { list: { name: "object_id", type: "utf8", nullable: true } }, nullable: true },
] };

function manifestColumns(n, seed) {
  const r = prng(seed);
  const nsTarget = Math.max(3, Math.floor(n / 20));
  const cols = { object_id: [], object_type: [], location: [], metadata: [], base_objects: [] };
  const namespaces = [], tables = [];
  const push = (id, type, loc, md, base) => {
    cols.object_id.push(id); cols.object_type.push(type); cols.location.push(loc); cols.metadata.push(md); cols.base_objects.push(base);
  };
  const hex8 = () => r.u32().toString(16).padStart(8, "0");
  let nsSeq = 0, tSeq = 0;
  while (cols.object_id.length < n) {
    if (namespaces.length < 3 || (namespaces.length < nsTarget && r.chance(0.06))) {
      // New namespace, 1-3 levels deep.
      const parents = namespaces.filter((p) => p.split("$").length < 3);
      const parent = r.chance(0.5) || parents.length === 0 ? null : r.pick(parents);
      const id = (parent ? parent + "$" : "") + `ns${String(nsSeq++).padStart(4, "0")}`;
      namespaces.push(id);
      const md = r.chance(0.6) ? null : JSON.stringify(Object.fromEntries(
        Array.from({ length: r.range(0, 3) }, (_, k) => [["owner", "team", "description", "retention"][k], text(r, 3)])));
      push(id, "namespace", null, md, null);
    } else {
      const ns = r.pick(namespaces);
      const id = `${ns}$t${String(tSeq++).padStart(6, "0")}`;
      let base = null;
      if (r.chance(0.08)) base = [];
      else if (r.chance(0.05) && tables.length) base = Array.from({ length: r.range(1, 3) }, () => r.pick(tables));
      const md = r.chance(0.9) ? null : JSON.stringify({ comment: text(r, 4) });
      tables.push(id);
      push(id, "table", `${hex8()}_${id}`, md, base);
    }
  }
  return { cols, namespaces, tables };
}

async function catalogN(dir, n, seed) {
  const { cols, namespaces, tables } = manifestColumns(n, seed);
  fs.mkdirSync(dir, { recursive: true });
  const work = path.join(dir, "__manifest");
  await withDatasetDir(work, async (db) => {
    const t = await db.createTable("t", tableFromColumns(schemaFromJSON(MANIFEST_SCHEMA), cols, n));
    await t.createIndex("object_id", { config: lancedb.Index.btree(), name: "object_id_btree" });
    await t.createIndex("object_type", { config: lancedb.Index.bitmap(), name: "object_type_bitmap" });
    await t.createIndex("base_objects", { config: lancedb.Index.labelList(), name: "base_objects_label_list" });
  });
  // Verify that the peer's namespace API serves it.
  const db = await lancedb.connect(dir);
  const top = namespaces.filter((s) => !s.includes("$"));
  const ns0 = namespaces[0].split("$");
  const listed = (await db.listNamespaces([], { limit: 100000 })).namespaces;
  const inNs0 = await db.tableNames(ns0, { limit: 100000 });
  const want = tables.filter((t) => t.startsWith(namespaces[0] + "$") && t.split("$").length === ns0.length + 1).length;
  db.close();
  if (listed.length !== top.length) throw new Error(`peer listed ${listed.length} root namespaces, want ${top.length}`);
  if (inNs0.length !== want) throw new Error(`peer listed ${inNs0.length} tables in ${ns0.join("$")}, want ${want}`);
  return { rows: n, namespaces: namespaces.length, tables: tables.length, rootNamespaces: listed.length, tablesInFirstNamespace: inNs0.length };
}

// ---------------------------------------------------------------- other tables

async function deletedRows(dir) {
  return await withDatasetDir(dir, async (db) => {
    const t = await db.createTable("t", eventRows(3000, 6));
    const del = await t.delete("id % 7 = 3 OR (id >= 1000 AND id < 1100)");
    // Second fragment: rows 3000..3499.
    const more = eventRows(3500, 6);
    await t.add(more.slice(3000));
    return { rows: await t.countRows(), deleted: del.numDeletedRows, fragments: (await t.stats()).fragmentStats.numFragments };
  });
}

const INDEXED_SCHEMA = { fields: [
  { name: "id", type: "int64", nullable: false },
  { name: "name", type: "utf8" },
  { name: "category", type: "utf8" },
  { name: "tags", type: { list: { name: "item", type: "utf8", nullable: true } } },
  { name: "value", type: "float64" },
] };
async function indexed(dir) {
  const n = 5000, r = prng(7);
  const cats = ["books", "games", "music", "tools", "food"];
  const tagPool = ["new", "sale", "hot", "eco", "gift", "bulk", "rare"];
  const cols = { id: [], name: [], category: [], tags: [], value: [] };
  for (let i = 0; i < n; i++) {
    cols.id.push(BigInt((i * 7919) % n)); // permuted ids, unique
    cols.name.push(r.chance(0.02) ? null : `item-${String(r.int(100000)).padStart(5, "0")}`);
    cols.category.push(r.chance(0.03) ? null : r.pick(cats));
    cols.tags.push(r.chance(0.05) ? null : Array.from({ length: r.int(4) }, () => r.pick(tagPool)));
    cols.value.push(r.float() * 1000);
  }
  return await withDatasetDir(dir, async (db) => {
    const t = await db.createTable("t", tableFromColumns(schemaFromJSON(INDEXED_SCHEMA), cols, n));
    await t.createIndex("id", { config: lancedb.Index.btree() });
    await t.createIndex("name", { config: lancedb.Index.btree() });
    await t.createIndex("category", { config: lancedb.Index.bitmap() });
    await t.createIndex("tags", { config: lancedb.Index.labelList() });
    return { rows: await t.countRows(), indices: (await t.listIndices()).map((i) => `${i.name}:${i.indexType}`) };
  });
}

// ---------------------------------------------------------------- driver

const BUILDERS = {
  "catalog-3": (d) => catalog3(d),
  "catalog-v1": (d) => catalogV1(d),
  "catalog-5000": (d) => catalogN(d, 5000, 5000),
  "catalog-100000": (d) => catalogN(d, 100000, 100000),
  "types-1000": (d) => writeTypes(d, 1000, 1000),
  "types-100000": (d) => writeTypes(d, 100000, 100000),
  "types-v2.0": (d) => writeTypes(d, 1000, 1000, "2.0"),
  "types-v2.2": (d) => writeTypes(d, 1000, 1000, "2.2", true),
  "types-v2.2-100000": (d) => writeTypes(d, 100000, 100000, "2.2", true),
  "deleted-rows": (d) => deletedRows(d),
  "indexed": (d) => indexed(d),
};

async function main() {
  const [outdir, which] = process.argv.slice(2);
  if (!outdir || !which) {
    process.stderr.write(`usage: gen-fixtures.mjs <outdir> <small|large|name[,name...]>\nfixtures: ${Object.keys(BUILDERS).join(", ")}\n`);
    process.exit(2);
  }
  const names = SETS[which] ?? which.split(",");
  for (const n of names) if (!BUILDERS[n]) { process.stderr.write(`unknown fixture ${n}\n`); process.exit(2); }
  fs.mkdirSync(outdir, { recursive: true });
  for (const name of names) {
    const final = path.join(outdir, name);
    const partial = path.join(outdir, `.${name}.partial`);
    fs.rmSync(partial, { recursive: true, force: true });
    fs.rmSync(partial + ".work", { recursive: true, force: true });
    const t0 = process.hrtime.bigint();
    const info = await BUILDERS[name](partial);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(partial, final);
    const files = walk(final);
    const bytes = files.reduce((a, f) => a + fs.statSync(f).size, 0);
    process.stdout.write(JSON.stringify({ name, seconds: Math.round(seconds * 1000) / 1000, bytes, files: files.length, fileVersions: fileVersions(final), ...info }) + "\n");
  }
}

await main().catch((e) => {
  process.stderr.write(`gen-fixtures.mjs: ${e?.stack ?? e}\n`);
  process.exit(1);
});
