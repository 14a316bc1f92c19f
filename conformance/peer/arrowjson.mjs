// arrowjson.mjs: shared helpers of the peer scripts (gen-fixtures.mjs, dump.mjs, peer.mjs).
//
//  - a JSON parser that keeps number literals as text (Num), so 64-bit integers survive;
//  - the schema JSON notation (type names) <-> apache-arrow Schema;
//  - column values in the JSONL convention -> apache-arrow Data (built by hand with makeData, so
//    timestamps, decimals and 64-bit integers keep full precision);
//  - apache-arrow Data -> JSON text in the JSONL convention (see JSONL.md).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { createRequire } from "node:module";

// @lancedb/lancedb loads the CommonJS build of apache-arrow; use the same instance, or its
// instanceof checks and IPC writer see foreign classes.
export const arrow = createRequire(import.meta.url)("apache-arrow");

// ---------------------------------------------------------------- JSON with exact numbers

/** A JSON number literal kept as its source text. */
export class Num {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

/** Parses JSON; numbers become Num (their exact text). */
export function parseJSON(text) {
  let i = 0;
  const ws = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  const fail = (m) => { throw new Error(`invalid JSON at offset ${i}: ${m}`); };
  function value() {
    ws();
    const c = text[i];
    if (c === "{") {
      i++; const o = {}; ws();
      if (text[i] === "}") { i++; return o; }
      for (;;) {
        ws(); if (text[i] !== '"') fail("expected key");
        const k = str(); ws(); if (text[i] !== ":") fail("expected :"); i++;
        o[k] = value(); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; return o; }
        fail("expected , or }");
      }
    }
    if (c === "[") {
      i++; const a = []; ws();
      if (text[i] === "]") { i++; return a; }
      for (;;) {
        a.push(value()); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; return a; }
        fail("expected , or ]");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) { i += 4; return true; }
    if (text.startsWith("false", i)) { i += 5; return false; }
    if (text.startsWith("null", i)) { i += 4; return null; }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("unexpected character");
    i += m[0].length;
    return new Num(m[0]);
  }
  function str() {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') { if (text[i] === "\\") i++; i++; }
    if (i >= text.length) fail("unterminated string");
    i++;
    return JSON.parse(text.slice(start, i));
  }
  const v = value(); ws();
  if (i !== text.length) fail("trailing data");
  return v;
}

/** Converts Num values back to plain JS (numbers; integers beyond 2^53 to BigInt). */
export function plain(v) {
  if (v instanceof Num) {
    if (/^-?\d+$/.test(v.text)) {
      const b = BigInt(v.text);
      return (b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= -BigInt(Number.MAX_SAFE_INTEGER)) ? Number(b) : b;
    }
    return Number(v.text);
  }
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    const o = {}; for (const [k, x] of Object.entries(v)) o[k] = plain(x); return o;
  }
  return v;
}

// ---------------------------------------------------------------- schema notation

const PRIMS = {
  bool: () => new arrow.Bool(),
  int8: () => new arrow.Int8(), int16: () => new arrow.Int16(), int32: () => new arrow.Int32(), int64: () => new arrow.Int64(),
  uint8: () => new arrow.Uint8(), uint16: () => new arrow.Uint16(), uint32: () => new arrow.Uint32(), uint64: () => new arrow.Uint64(),
  float16: () => new arrow.Float16(), float32: () => new arrow.Float32(), float64: () => new arrow.Float64(),
  utf8: () => new arrow.Utf8(), large_utf8: () => new arrow.LargeUtf8(),
  binary: () => new arrow.Binary(), large_binary: () => new arrow.LargeBinary(),
  date32: () => new arrow.DateDay(),
};
const UNITS = { s: arrow.TimeUnit.SECOND, ms: arrow.TimeUnit.MILLISECOND, us: arrow.TimeUnit.MICROSECOND, ns: arrow.TimeUnit.NANOSECOND };
const UNIT_NAMES = ["s", "ms", "us", "ns"];

/** Type notation -> arrow DataType. */
export function typeFromJSON(t) {
  if (typeof t === "string") {
    if (PRIMS[t]) return PRIMS[t]();
    let m = /^timestamp\[(s|ms|us|ns)(?:, *tz=([^\]]+))?\]$/.exec(t);
    if (m) return new arrow.Timestamp(UNITS[m[1]], m[2] ?? null);
    m = /^decimal128\((\d+), *(\d+)\)$/.exec(t);
    if (m) return new arrow.Decimal(Number(m[2]), Number(m[1]), 128);
    m = /^fixed_size_binary\[(\d+)\]$/.exec(t);
    if (m) return new arrow.FixedSizeBinary(Number(m[1]));
    throw new Error(`unknown type name ${JSON.stringify(t)}`);
  }
  if (t && typeof t === "object") {
    if (t.list) return new arrow.List(fieldFromJSON(t.list));
    if (t.large_list) throw new Error("large_list cannot be built by apache-arrow 18 (no LargeList type in arrow-js)");
    if (t.fixed_size_list) return new arrow.FixedSizeList(Number(plain(t.size)), fieldFromJSON(t.fixed_size_list));
    if (t.struct) return new arrow.Struct(t.struct.map(fieldFromJSON));
  }
  throw new Error(`unknown type ${JSON.stringify(t)}`);
}

export function fieldFromJSON(f) {
  const md = new Map(Object.entries(f.metadata ?? {}));
  return new arrow.Field(f.name, typeFromJSON(f.type), f.nullable !== false, md);
}

export function schemaFromJSON(s) {
  const fields = Array.isArray(s) ? s : s.fields;
  const md = new Map(Object.entries((Array.isArray(s) ? {} : s.metadata) ?? {}));
  return new arrow.Schema(fields.map(fieldFromJSON), md);
}

/** arrow DataType -> type notation. */
export function typeToJSON(t) {
  switch (t.typeId) {
    case arrow.Type.Bool: return "bool";
    case arrow.Type.Int: return `${t.isSigned ? "int" : "uint"}${t.bitWidth}`;
    case arrow.Type.Float: return ["float16", "float32", "float64"][t.precision];
    case arrow.Type.Utf8: return "utf8";
    case arrow.Type.LargeUtf8: return "large_utf8";
    case arrow.Type.Binary: return "binary";
    case arrow.Type.LargeBinary: return "large_binary";
    case arrow.Type.FixedSizeBinary: return `fixed_size_binary[${t.byteWidth}]`;
    case arrow.Type.Date: return t.unit === arrow.DateUnit.DAY ? "date32" : "date64";
    case arrow.Type.Timestamp: return `timestamp[${UNIT_NAMES[t.unit]}${t.timezone ? `, tz=${t.timezone}` : ""}]`;
    case arrow.Type.Decimal: return `decimal${t.bitWidth}(${t.precision},${t.scale})`;
    case arrow.Type.List: return { list: fieldToJSON(t.children[0]) };
    case arrow.Type.FixedSizeList: return { fixed_size_list: fieldToJSON(t.children[0]), size: t.listSize };
    case arrow.Type.Struct: return { struct: t.children.map(fieldToJSON) };
    case arrow.Type.Dictionary: return { dictionary: typeToJSON(t.dictionary), index: typeToJSON(t.indices) };
    case arrow.Type.Null: return "null";
    default: return `unsupported(${arrow.Type[t.typeId]})`;
  }
}

export function fieldToJSON(f) {
  const o = { name: f.name, type: typeToJSON(f.type), nullable: f.nullable };
  if (f.metadata && f.metadata.size) o.metadata = Object.fromEntries([...f.metadata].sort());
  return o;
}

export function schemaToJSON(s) {
  const o = { fields: s.fields.map(fieldToJSON) };
  if (s.metadata && s.metadata.size) o.metadata = Object.fromEntries([...s.metadata].sort());
  return o;
}

// ---------------------------------------------------------------- float helpers

const f32buf = new Float32Array(1);
const u32view = new Uint32Array(f32buf.buffer);

/** Rounds a double to the nearest float16 (ties to even) and returns its bits. */
export function toHalfBits(v) {
  f32buf[0] = v; // double -> float32 first would double-round; do it directly instead:
  if (Number.isNaN(v)) return 0x7e00;
  const sign = (v < 0 || Object.is(v, -0)) ? 0x8000 : 0;
  let a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a >= 65520) return sign | 0x7c00; // rounds to infinity
  if (a < 2 ** -24 / 2) return sign; // below half the smallest subnormal (tie at exactly half -> even = 0)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--; else if (2 ** (e + 1) <= a) e++;
  if (e < -14) { // subnormal: units of 2^-24
    const q = roundEven(a / 2 ** -24);
    return sign | q; // q may reach 1024 = smallest normal, encoded correctly
  }
  const m = roundEven((a / 2 ** e - 1) * 1024);
  let exp = e + 15, man = m;
  if (man === 1024) { man = 0; exp++; }
  if (exp >= 31) return sign | 0x7c00;
  return sign | (exp << 10) | man;
}
function roundEven(x) {
  const f = Math.floor(x), d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
export function halfToNumber(h) {
  const s = (h & 0x8000) ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
const f16round = (x) => halfToNumber(toHalfBits(x));

/** Shortest decimal (ECMAScript Number layout) that rounds back to v in the given width. */
export function floatText(v, width) {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Infinity) return '"Infinity"';
  if (v === -Infinity) return '"-Infinity"';
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  if (width === 64) return String(v);
  const round = width === 32 ? Math.fround : f16round;
  for (let p = 1; p <= 17; p++) {
    const [mant, ex] = v.toExponential(p - 1).split("e");
    const digits = BigInt(mant.replace(".", ""));
    const e10 = Number(ex) - (p - 1);
    let best = null, bestDist = Infinity;
    for (const d of [digits, digits - 1n, digits + 1n]) {
      const c = Number(`${d}e${e10}`);
      if (round(c) === v) {
        const dist = Math.abs(c - v);
        if (dist < bestDist) { best = c; bestDist = dist; }
      }
    }
    if (best !== null) return String(best);
  }
  return String(v);
}

// ---------------------------------------------------------------- dates

function civilFromDays(z) { // days since 1970-01-01 -> [y, m, d]
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}
function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
const pad = (n, w) => String(n).padStart(w, "0");
function yearText(y) { return y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? "-" + pad(-y, 6) : "+" + pad(y, 6)); }
export function dateText(days) { const [y, m, d] = civilFromDays(days); return `${yearText(y)}-${pad(m, 2)}-${pad(d, 2)}`; }
const NS_PER = [1000000000n, 1000000n, 1000n, 1n];
export function timestampText(raw, unit, zoned) {
  const ns = BigInt(raw) * NS_PER[unit];
  let secs = ns / 1000000000n, frac = ns % 1000000000n;
  if (frac < 0n) { frac += 1000000000n; secs -= 1n; }
  let days = secs / 86400n, sod = secs % 86400n;
  if (sod < 0n) { sod += 86400n; days -= 1n; }
  const s = Number(sod);
  return `${dateText(Number(days))}T${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(frac, 9)}${zoned ? "Z" : ""}`;
}
function parseDate(s) {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)$/.exec(s);
  if (!m) throw new Error(`bad date ${s}`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}
function parseTimestamp(s, unit) {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)?$/.exec(s);
  if (!m) throw new Error(`bad timestamp ${s}`);
  const days = BigInt(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])));
  let secs = days * 86400n + BigInt(Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]));
  if (m[8] && m[8] !== "Z") {
    const sign = m[8][0] === "-" ? -1n : 1n;
    secs -= sign * BigInt(Number(m[8].slice(1, 3)) * 3600 + Number(m[8].slice(4, 6)) * 60);
  }
  const ns = secs * 1000000000n + BigInt((m[7] ?? "").padEnd(9, "0"));
  return ns / NS_PER[unit];
}
export function decimalText(v, scale) {
  const neg = v < 0n;
  let s = (neg ? -v : v).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, "0");
    s = s.slice(0, s.length - scale) + "." + s.slice(s.length - scale);
  }
  return neg ? "-" + s : s;
}
function parseDecimal(x, scale) {
  if (typeof x === "bigint") return x;
  const s = String(x);
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) throw new Error(`bad decimal ${s}`);
  const frac = (m[3] ?? "");
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new Error(`decimal ${s} has more than ${scale} fractional digits`);
  const v = BigInt(m[2] + frac.slice(0, scale).padEnd(scale, "0"));
  return m[1] ? -v : v;
}

// ---------------------------------------------------------------- values -> arrow Data

function bitmap(values) {
  const n = values.length;
  let nulls = 0;
  const bm = new Uint8Array(((n + 63) >> 6) << 3);
  for (let i = 0; i < n; i++) {
    if (values[i] === null || values[i] === undefined) nulls++; else bm[i >> 3] |= 1 << (i & 7);
  }
  return { nullCount: nulls, nullBitmap: nulls ? bm : new Uint8Array(0) };
}
const numOf = (x) => (x instanceof Num ? x.text : x);
function toBig(x) {
  x = numOf(x);
  if (typeof x === "bigint") return x;
  if (typeof x === "number") { if (!Number.isInteger(x)) throw new Error(`not an integer: ${x}`); return BigInt(x); }
  if (typeof x === "string" && /^-?\d+$/.test(x)) return BigInt(x);
  throw new Error(`not an integer: ${x}`);
}
function toFloat(x) {
  x = numOf(x);
  if (x === "NaN") return NaN;
  if (x === "Infinity") return Infinity;
  if (x === "-Infinity") return -Infinity;
  return typeof x === "bigint" ? Number(x) : Number(x);
}
function toBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (typeof x === "string") return new Uint8Array(Buffer.from(x, "base64"));
  throw new Error(`binary value must be base64 text or bytes`);
}
const enc = new TextEncoder();

/** Builds an arrow Data of the given type from JS values (null = null). */
export function buildData(type, values) {
  const n = values.length;
  const { nullCount, nullBitmap } = bitmap(values);
  const base = { type, length: n, nullCount, nullBitmap };
  const T = arrow.Type;
  switch (type.typeId) {
    case T.Bool: {
      const data = new Uint8Array(((n + 63) >> 6) << 3);
      values.forEach((v, i) => { if (v) data[i >> 3] |= 1 << (i & 7); });
      return arrow.makeData({ ...base, data });
    }
    case T.Int: {
      const A = type.ArrayType;
      const data = new A(n);
      const big = type.bitWidth === 64;
      values.forEach((v, i) => { if (v !== null && v !== undefined) data[i] = big ? toBig(v) : Number(toBig(v)); });
      return arrow.makeData({ ...base, data });
    }
    case T.Float: {
      if (type.precision === arrow.Precision.HALF) {
        const data = new Uint16Array(n);
        values.forEach((v, i) => { if (v !== null && v !== undefined) data[i] = toHalfBits(toFloat(v)); });
        return arrow.makeData({ ...base, data });
      }
      const data = new type.ArrayType(n);
      values.forEach((v, i) => { if (v !== null && v !== undefined) data[i] = toFloat(v); });
      return arrow.makeData({ ...base, data });
    }
    case T.Utf8: case T.LargeUtf8: case T.Binary: case T.LargeBinary: {
      const isStr = type.typeId === T.Utf8 || type.typeId === T.LargeUtf8;
      const large = type.typeId === T.LargeUtf8 || type.typeId === T.LargeBinary;
      const parts = values.map((v) => (v === null || v === undefined ? new Uint8Array(0) : isStr ? enc.encode(v) : toBytes(v)));
      const total = parts.reduce((a, p) => a + p.length, 0);
      const data = new Uint8Array(total);
      const valueOffsets = large ? new BigInt64Array(n + 1) : new Int32Array(n + 1);
      let off = 0;
      parts.forEach((p, i) => { data.set(p, off); off += p.length; valueOffsets[i + 1] = large ? BigInt(off) : off; });
      return arrow.makeData({ ...base, data, valueOffsets });
    }
    case T.FixedSizeBinary: {
      const data = new Uint8Array(n * type.byteWidth);
      values.forEach((v, i) => { if (v !== null && v !== undefined) data.set(toBytes(v), i * type.byteWidth); });
      return arrow.makeData({ ...base, data });
    }
    case T.Date: {
      const data = new Int32Array(n);
      values.forEach((v, i) => { if (v !== null && v !== undefined) data[i] = typeof v === "string" ? parseDate(v) : Number(numOf(v)); });
      return arrow.makeData({ ...base, data });
    }
    case T.Timestamp: {
      const data = new BigInt64Array(n);
      values.forEach((v, i) => { if (v !== null && v !== undefined) data[i] = typeof v === "string" ? parseTimestamp(v, type.unit) : toBig(v); });
      return arrow.makeData({ ...base, data });
    }
    case T.Decimal: {
      const data = new Uint32Array(n * 4);
      values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        let x = BigInt.asUintN(128, parseDecimal(numOf(v), type.scale));
        for (let w = 0; w < 4; w++) { data[i * 4 + w] = Number(x & 0xffffffffn); x >>= 32n; }
      });
      return arrow.makeData({ ...base, data });
    }
    case T.List: {
      const valueOffsets = new Int32Array(n + 1);
      const flat = [];
      values.forEach((v, i) => { if (v) for (const x of v) flat.push(x); valueOffsets[i + 1] = flat.length; });
      const child = buildData(type.children[0].type, flat);
      return arrow.makeData({ ...base, valueOffsets, child });
    }
    case T.FixedSizeList: {
      const size = type.listSize, flat = [];
      values.forEach((v) => {
        if (v && v.length !== size) throw new Error(`fixed_size_list value has ${v.length} items, want ${size}`);
        for (let k = 0; k < size; k++) flat.push(v ? v[k] : null);
      });
      const child = buildData(type.children[0].type, flat);
      return arrow.makeData({ ...base, child });
    }
    case T.Struct: {
      const children = type.children.map((f) => buildData(f.type, values.map((v) => (v ? (v[f.name] ?? null) : null))));
      return arrow.makeData({ ...base, children });
    }
    default:
      throw new Error(`cannot build values of type ${type}`);
  }
}

/** Builds an arrow Table from row objects and an arrow Schema. */
export function tableFromRows(schema, rows) {
  const children = schema.fields.map((f) => buildData(f.type, rows.map((r) => (r[f.name] ?? null))));
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.Table(schema, [new arrow.RecordBatch(schema, data)]);
}

/** Builds an arrow Table from columns {name: values[]} and an arrow Schema. */
export function tableFromColumns(schema, cols, length) {
  const children = schema.fields.map((f) => buildData(f.type, cols[f.name] ?? new Array(length).fill(null)));
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length, nullCount: 0, children });
  return new arrow.Table(schema, [new arrow.RecordBatch(schema, data)]);
}

/** Infers a schema notation from rows (for ops given rows without a schema). */
export function inferSchema(rows) {
  const names = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!names.includes(k)) names.push(k);
  const infer = (vals) => {
    const v = vals.find((x) => x !== null && x !== undefined);
    if (v === undefined) return "utf8";
    if (typeof v === "boolean") return "bool";
    if (v instanceof Num) return vals.every((x) => x === null || (x instanceof Num && /^-?\d+$/.test(x.text))) ? "int64" : "float64";
    if (typeof v === "bigint") return "int64";
    if (typeof v === "number") return vals.every((x) => x === null || Number.isInteger(x)) ? "int64" : "float64";
    if (typeof v === "string") return "utf8";
    if (Array.isArray(v)) return { list: { name: "item", type: infer(vals.flatMap((x) => x ?? [])), nullable: true } };
    const keys = [];
    for (const x of vals) if (x) for (const k of Object.keys(x)) if (!keys.includes(k)) keys.push(k);
    return { struct: keys.map((k) => ({ name: k, type: infer(vals.map((x) => (x ? x[k] ?? null : null))), nullable: true })) };
  };
  return { fields: names.map((k) => ({ name: k, type: infer(rows.map((r) => r[k] ?? null)), nullable: true })) };
}

// ---------------------------------------------------------------- arrow Data -> JSON text

function valid(d, i) {
  if (!d.nullBitmap || d.nullBitmap.length === 0) return d.typeId !== arrow.Type.Null;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3] & (1 << (j & 7))) !== 0;
}
const dec = new TextDecoder("utf-8");

/** JSON text of value i of arrow Data d (JSONL convention). */
export function valueText(d, i) {
  if (!valid(d, i)) return "null";
  // apache-arrow slices data/offset buffers and struct/fixed-size-list children on slice(); only
  // the validity and boolean bitmaps keep the bit offset (d.offset).
  const t = d.type, T = arrow.Type, j = i, bit = d.offset + i;
  switch (t.typeId) {
    case T.Bool: return (d.values[bit >> 3] & (1 << (bit & 7))) ? "true" : "false";
    case T.Int: return String(d.values[j]);
    case T.Float:
      if (t.precision === arrow.Precision.HALF) return floatText(halfToNumber(d.values[j]), 16);
      return floatText(d.values[j], t.precision === arrow.Precision.SINGLE ? 32 : 64);
    case T.Utf8: case T.LargeUtf8:
      return JSON.stringify(dec.decode(d.values.subarray(Number(d.valueOffsets[j]), Number(d.valueOffsets[j + 1]))));
    case T.Binary: case T.LargeBinary:
      return JSON.stringify(Buffer.from(d.values.subarray(Number(d.valueOffsets[j]), Number(d.valueOffsets[j + 1]))).toString("base64"));
    case T.FixedSizeBinary:
      return JSON.stringify(Buffer.from(d.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth)).toString("base64"));
    case T.Date:
      if (t.unit === arrow.DateUnit.DAY) return JSON.stringify(dateText(d.values[j]));
      return JSON.stringify(dateText(Math.floor(Number(d.values[j]) / 86400000)));
    case T.Timestamp: return JSON.stringify(timestampText(d.values[j], t.unit, !!t.timezone));
    case T.Decimal: {
      const words = t.bitWidth / 32;
      let x = 0n;
      for (let w = words - 1; w >= 0; w--) x = (x << 32n) | BigInt(d.values[j * words + w]);
      return JSON.stringify(decimalText(BigInt.asIntN(t.bitWidth, x), t.scale));
    }
    case T.List: {
      const c = d.children[0], a = Number(d.valueOffsets[j]), b = Number(d.valueOffsets[j + 1]);
      const out = [];
      for (let k = a; k < b; k++) out.push(valueText(c, k));
      return "[" + out.join(",") + "]";
    }
    case T.FixedSizeList: {
      const c = d.children[0], s = t.listSize, out = [];
      for (let k = j * s; k < (j + 1) * s; k++) out.push(valueText(c, k));
      return "[" + out.join(",") + "]";
    }
    case T.Struct: {
      // Struct children carry their own offsets relative to the struct's storage.
      return "{" + t.children.map((f, k) => JSON.stringify(f.name) + ":" + valueText(d.children[k], j)).join(",") + "}";
    }
    case T.Dictionary: return valueText(d.dictionary.data[0], Number(d.values[j]));
    case T.Null: return "null";
    default: throw new Error(`cannot print values of type ${t}`);
  }
}

/** Yields one JSON text line per row of an arrow RecordBatch. */
export function* batchLines(batch) {
  const cols = batch.schema.fields.map((f, k) => [JSON.stringify(f.name), batch.data.children[k]]);
  for (let i = 0; i < batch.numRows; i++) {
    yield "{" + cols.map(([name, d]) => `${name}:${valueText(d, i)}`).join(",") + "}";
  }
}

// ---------------------------------------------------------------- opening a dataset by path

/**
 * Opens the Lance dataset at dir through the peer. LanceDB opens tables by name under a
 * directory, so a temporary directory holds a symlink `t.lance` -> dir and is opened with the
 * manifest disabled (plain directory listing). Returns {db, table, cleanup}.
 */
export async function openDataset(dir) {
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, "_versions"))) throw new Error(`not a Lance dataset (no _versions): ${abs}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "lancecat-peer-ds-"));
  fs.symlinkSync(abs, path.join(tmp, "t.lance"));
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });
  try {
    const db = await lancedb.connect(tmp, { manifestEnabled: false });
    const table = await db.openTable("t");
    return { db, table, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}

// ---------------------------------------------------------------- schema straight from IPC bytes

// apache-arrow 18 has no LargeList, so Table.schema() throws on tables holding one. The schema
// JSON is therefore decoded from the IPC schema message with arrow's generated flatbuffer classes.
const req = createRequire(import.meta.url);
const flatbuffers = req("flatbuffers");
const fb = {
  Message: req("apache-arrow/fb/message").Message,
  Footer: req("apache-arrow/fb/footer").Footer,
  Schema: req("apache-arrow/fb/schema").Schema,
  Int: req("apache-arrow/fb/int").Int,
  FloatingPoint: req("apache-arrow/fb/floating-point").FloatingPoint,
  Decimal: req("apache-arrow/fb/decimal").Decimal,
  Date: req("apache-arrow/fb/date").Date,
  Timestamp: req("apache-arrow/fb/timestamp").Timestamp,
  FixedSizeList: req("apache-arrow/fb/fixed-size-list").FixedSizeList,
  FixedSizeBinary: req("apache-arrow/fb/fixed-size-binary").FixedSizeBinary,
};

function fbMetadata(obj) {
  const n = obj.customMetadataLength();
  if (!n) return undefined;
  const kv = [];
  for (let k = 0; k < n; k++) { const e = obj.customMetadata(k); kv.push([e.key(), e.value()]); }
  return Object.fromEntries(kv.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
function fbType(f) {
  const tt = f.typeType();
  const child = () => fbField(f.children(0));
  switch (tt) {
    case 1: return "null";
    case 2: { const t = f.type(new fb.Int()); return `${t.isSigned() ? "int" : "uint"}${t.bitWidth()}`; }
    case 3: return ["float16", "float32", "float64"][f.type(new fb.FloatingPoint()).precision()];
    case 4: return "binary";
    case 5: return "utf8";
    case 6: return "bool";
    case 7: { const t = f.type(new fb.Decimal()); return `decimal${t.bitWidth()}(${t.precision()},${t.scale()})`; }
    case 8: return f.type(new fb.Date()).unit() === 0 ? "date32" : "date64";
    case 10: { const t = f.type(new fb.Timestamp()); const tz = t.timezone(); return `timestamp[${UNIT_NAMES[t.unit()]}${tz ? `, tz=${tz}` : ""}]`; }
    case 12: return { list: child() };
    case 13: { const cs = []; for (let k = 0; k < f.childrenLength(); k++) cs.push(fbField(f.children(k))); return { struct: cs }; }
    case 15: return `fixed_size_binary[${f.type(new fb.FixedSizeBinary()).byteWidth()}]`;
    case 16: return { fixed_size_list: child(), size: f.type(new fb.FixedSizeList()).listSize() };
    case 19: return "large_binary";
    case 20: return "large_utf8";
    case 21: return { large_list: child() };
    default: return `unsupported(${tt})`;
  }
}
function fbField(f) {
  const o = { name: f.name(), type: fbType(f), nullable: f.nullable() };
  const md = fbMetadata(f);
  if (md) o.metadata = md;
  return o;
}

/** Decodes the schema JSON from an Arrow IPC (file or stream) buffer holding a schema message. */
export function schemaJSONFromIPC(buf) {
  let s;
  if (buf.length >= 16 && buf.toString("latin1", 0, 6) === "ARROW1") {
    // IPC file: the schema sits in the footer (int32 length + "ARROW1" at the end).
    const flen = buf.readInt32LE(buf.length - 10);
    const start = buf.length - 10 - flen;
    const bb = new flatbuffers.ByteBuffer(new Uint8Array(buf.buffer, buf.byteOffset + start, flen));
    s = fb.Footer.getRootAsFooter(bb).schema(new fb.Schema());
  } else {
    let pos = 0;
    let len = buf.readInt32LE(pos); pos += 4;
    if (len === -1) { len = buf.readInt32LE(pos); pos += 4; }
    const bb = new flatbuffers.ByteBuffer(new Uint8Array(buf.buffer, buf.byteOffset + pos, len));
    s = fb.Message.getRootAsMessage(bb).header(new fb.Schema());
  }
  if (!s) throw new Error("no schema in IPC buffer");
  const fields = [];
  for (let k = 0; k < s.fieldsLength(); k++) fields.push(fbField(s.fields(k)));
  const o = { fields };
  const md = fbMetadata(s);
  if (md) o.metadata = md;
  return o;
}

/** The schema JSON of an open LanceDB table (works for LargeList columns too). */
export async function tableSchemaJSON(table) {
  return schemaJSONFromIPC(await table.inner.schema());
}

/**
 * Projection for reading a table through apache-arrow: every column by name, except top-level
 * large_list columns, which are read as arrow_cast(col, 'List(...)') (same values; arrow-js
 * cannot decode LargeList). Nested large_list is refused.
 */
export function readableProjection(schemaJSON, columns) {
  const byName = new Map(schemaJSON.fields.map((f) => [f.name, f]));
  const names = columns ?? schemaJSON.fields.map((f) => f.name);
  const hasLarge = (t) => typeof t === "object" && (t.large_list || (t.list && hasLarge(t.list.type)) ||
    (t.fixed_size_list && hasLarge(t.fixed_size_list.type)) || (t.struct && t.struct.some((c) => hasLarge(c.type))));
  const proj = {};
  let needsExpr = false;
  for (const n of names) {
    const f = byName.get(n);
    if (!f) throw new Error(`no column ${JSON.stringify(n)}`);
    const quoted = "`" + n.replaceAll("`", "``") + "`";
    if (typeof f.type === "object" && f.type.large_list) {
      if (hasLarge(f.type.large_list.type)) throw new Error(`column ${n}: nested large_list is not readable through apache-arrow 18`);
      proj[n] = `arrow_cast(${quoted}, 'List(${arrowCastName(f.type.large_list.type)})')`;
      needsExpr = true;
    } else if (hasLarge(f.type)) {
      throw new Error(`column ${n}: nested large_list is not readable through apache-arrow 18`);
    } else {
      proj[n] = quoted;
    }
  }
  return needsExpr ? proj : names;
}
function arrowCastName(t) {
  const m = { bool: "Boolean", int8: "Int8", int16: "Int16", int32: "Int32", int64: "Int64", uint8: "UInt8", uint16: "UInt16",
    uint32: "UInt32", uint64: "UInt64", float16: "Float16", float32: "Float32", float64: "Float64", utf8: "Utf8", large_utf8: "LargeUtf8",
    binary: "Binary", large_binary: "LargeBinary", date32: "Date32" };
  if (typeof t === "string" && m[t]) return m[t];
  throw new Error(`large_list of ${JSON.stringify(t)} is not supported by the dump projection`);
}
