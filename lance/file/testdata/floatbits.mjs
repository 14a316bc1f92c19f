#!/usr/bin/env node
// floatbits.mjs <dataset-dir> <col,col,...>
//
// Test helper of lance/file: prints the peer's read of the given columns as JSON Lines,
// like dump.mjs (conformance/peer/JSONL.md), except that every floating-point value (float16,
// float32, float64, also inside lists, fixed-size lists and structs) is printed as the hex string
// of its raw IEEE bits ("3f800000"), zero padded to 4, 8 or 16 digits. That is exact (it tells
// apart NaN payloads too) and fast: the shortest-decimal search of dump.mjs costs the peer tens of
// seconds on the 800,000 float32 values of the types-100000 vector column.
import { arrow, openDataset, valueText } from "../../../conformance/peer/arrowjson.mjs";

const [dir, cols] = process.argv.slice(2);
if (!dir || !cols) {
  process.stderr.write("usage: floatbits.mjs <dataset-dir> <col,col,...>\n");
  process.exit(2);
}
const names = cols.split(",").filter((s) => s.length > 0);

function valid(d, i) {
  if (!d.nullBitmap || d.nullBitmap.length === 0) return d.typeId !== arrow.Type.Null;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3] & (1 << (j & 7))) !== 0;
}

const views = new WeakMap();
function bitsOf(d) {
  let v = views.get(d);
  if (!v) {
    const a = d.values;
    const W = { 2: Uint16Array, 4: Uint32Array, 8: BigUint64Array }[a.BYTES_PER_ELEMENT];
    v = new W(a.buffer, a.byteOffset, a.length);
    views.set(d, v);
  }
  return v;
}

function text(d, i) {
  if (!valid(d, i)) return "null";
  const t = d.type, T = arrow.Type;
  switch (t.typeId) {
    case T.Float: {
      const v = bitsOf(d);
      return '"' + v[i].toString(16).padStart(v.BYTES_PER_ELEMENT * 2, "0") + '"';
    }
    case T.List: {
      const c = d.children[0], a = Number(d.valueOffsets[i]), b = Number(d.valueOffsets[i + 1]), out = [];
      for (let k = a; k < b; k++) out.push(text(c, k));
      return "[" + out.join(",") + "]";
    }
    case T.FixedSizeList: {
      const c = d.children[0], s = t.listSize, out = [];
      for (let k = i * s; k < (i + 1) * s; k++) out.push(text(c, k));
      return "[" + out.join(",") + "]";
    }
    case T.Struct:
      return "{" + t.children.map((f, k) => JSON.stringify(f.name) + ":" + text(d.children[k], i)).join(",") + "}";
    default:
      return valueText(d, i);
  }
}

async function write(s) {
  if (!process.stdout.write(s)) await new Promise((r) => process.stdout.once("drain", r));
}

let ds;
try {
  ds = await openDataset(dir);
  let buf = [];
  for await (const batch of ds.table.query().select(names)) {
    const cs = batch.schema.fields.map((f, k) => [JSON.stringify(f.name), batch.data.children[k]]);
    for (let i = 0; i < batch.numRows; i++) {
      buf.push("{" + cs.map(([n, d]) => n + ":" + text(d, i)).join(",") + "}");
      if (buf.length >= 1024) { await write(buf.join("\n") + "\n"); buf = []; }
    }
  }
  if (buf.length) await write(buf.join("\n") + "\n");
} catch (e) {
  process.stderr.write(`floatbits.mjs: ${e?.stack ?? e}\n`);
  process.exitCode = 1;
} finally {
  ds?.cleanup();
}
