// What a WebAssembly SIMD pass over a JSON record would cost, against the JSON scan and the Avro
// validation of the same content: `npx tsx bench/profile/json-simd-probe.ts [rounds]`.
//
// The pass is the first stage of a SIMD JSON parser: each record is copied into the module's memory and
// classified 16 bytes at a time into a bitmap of the bytes a string's end may be at (a quote, a backslash,
// a control character). A scan would then find each string's end from the bitmap instead of reading its
// bytes. The probe times the copy, the copy and the pass, and the pass plus a JavaScript walk from each
// special byte to the next over the bitmap (the least any second stage in JavaScript does), beside the
// JSON scan and the Avro validation of the bench's records (bench/results/PROFILE.md, "A SIMD pass over
// JSON records").
import { measure } from '../lib/measure.js';
import { prepareRoute } from '../hotpath/route-measure.js';

/** Where the bitmap starts in the module's memory (page 1); a record is copied to offset 0 (page 0, 64 KiB). */
const BITMAP_AT = 65_536;

/** An unsigned LEB128, as the WebAssembly binary format writes sizes, indices and offsets. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

const SIMD = 0xfd;
const splat = (byte: number): number[] => [SIMD, 0x0c, ...new Array<number>(16).fill(byte)];

/**
 * The module: memory "mem" (2 pages) and classify(len): for each 16 bytes from offset 0 up to len, the
 * bitmask of its quotes, backslashes and bytes below 0x20, as a 16-bit word at BITMAP_AT + block * 2.
 */
function classifierModule(): Uint8Array {
  const v = 2; // locals: 0 len (the parameter), 1 i, 2 v
  const code = [
    ...[0x02, 0x40], // block
    ...[0x03, 0x40], // loop
    ...[0x20, 1, 0x20, 0, 0x4f, 0x0d, 1], // if (i >= len) break
    ...[0x20, 1, SIMD, 0x00, 0x00, 0x00, 0x21, v], // v = v128.load(i)
    ...[0x20, 1, 0x41, 3, 0x76], // the bitmap word's address: i >> 3
    ...[0x20, v, ...splat(0x22), SIMD, 0x23], // i8x16.eq(v, '"')
    ...[0x20, v, ...splat(0x5c), SIMD, 0x23, SIMD, ...leb(0x50)], // | i8x16.eq(v, '\\')
    ...[0x20, v, ...splat(0x20), SIMD, 0x26, SIMD, ...leb(0x50)], // | i8x16.lt_u(v, 0x20)
    ...[SIMD, ...leb(0x64)], // i8x16.bitmask
    ...[0x3b, 0x01, ...leb(BITMAP_AT)], // i32.store16
    ...[0x20, 1, 0x41, 16, 0x6a, 0x21, 1], // i += 16
    ...[0x0c, 0], // continue
    ...[0x0b, 0x0b], // end loop, end block
    ...[0x20, 1, 0x0b], // return i
  ];
  const body = [2, 1, 0x7f, 1, 0x7b, ...code];
  const name = (s: string): number[] => [...leb(s.length), ...Buffer.from(s)];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 2]),
    ...section(7, [2, ...name('mem'), 0x02, 0, ...name('classify'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

/** The part of the WebAssembly API the probe uses (the project's TypeScript libraries do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
const instance = new wasm.Instance(new wasm.Module(classifierModule()));
const classify = instance.exports.classify as (len: number) => number;
const memory = new Uint8Array((instance.exports.mem as { readonly buffer: ArrayBuffer }).buffer);
const bitmap = new Uint16Array(memory.buffer, BITMAP_AT);

/** The position of the first special byte at or after i, from the bitmap, or len. */
function specialFrom(i: number, len: number): number {
  for (let block = i >> 4; block << 4 < len; block++) {
    const m = ((bitmap[block] as number) >> (block === i >> 4 ? i & 15 : 0)) << (block === i >> 4 ? i & 15 : 0);
    if (m !== 0) {
      const at = (block << 4) + 31 - Math.clz32(m & -m);
      return at < len ? at : len;
    }
  }
  return len;
}

/** The bitmap checked against the bytes: every special byte of a record, and no other, is found; returns how many. */
function checkBitmap(b: Buffer): number {
  memory.set(b);
  classify(b.length);
  let expected = 0;
  for (let k = 0; k < b.length; k++) {
    const c = b[k] as number;
    if (c === 0x22 || c === 0x5c || c < 0x20) expected++;
  }
  let found = 0;
  for (let i = specialFrom(0, b.length); i < b.length; i = specialFrom(i + 1, b.length)) {
    const c = b[i] as number;
    if (!(c === 0x22 || c === 0x5c || c < 0x20)) throw new Error(`the bitmap names byte ${i} (${c}), which is not special`);
    found++;
  }
  if (found !== expected) throw new Error(`the bitmap found ${found} special bytes of ${expected}`);
  return found;
}

const rounds = Number(process.argv[2] ?? 3);
const base = { records: 4096, httpShare: 0.8, mode: 'filterable', subscriptions: 0 } as const;
const json = prepareRoute({ ...base, form: 'json', decoder: { validateAll: true, fastJson: true } });
const avro = prepareRoute({ ...base, form: 'avro', decoder: { validateAll: true } });
const values = json.records.map((r) => r.msg.value as Buffer);
const specials = values.reduce((sum, b) => sum + checkBitmap(b), 0) / values.length;

const subjects: Record<string, { fn: (input: never) => unknown; inputs: readonly unknown[] }> = {
  'avro: validate (the cheap read and the whole record checked)': { fn: avro.fn as (input: never) => unknown, inputs: avro.records },
  'json: the scan (the same checks)': { fn: json.fn as (input: never) => unknown, inputs: json.records },
  'copy into the module': { fn: ((b: Buffer) => (memory.set(b), b.length)) as (input: never) => unknown, inputs: values },
  'copy and SIMD pass': { fn: ((b: Buffer) => (memory.set(b), classify(b.length))) as (input: never) => unknown, inputs: values },
  'copy, SIMD pass and a walk over its special bytes': {
    fn: ((b: Buffer) => {
      memory.set(b);
      const len = b.length;
      classify(len);
      // Every set bit of every block, lowest first: the least a second stage that visits each special byte does.
      let n = 0;
      for (let block = 0; block << 4 < len; block++) {
        for (let m = bitmap[block] as number; m !== 0; m &= m - 1) n += 31 - Math.clz32(m & -m);
      }
      return n;
    }) as (input: never) => unknown,
    inputs: values,
  },
};
const best = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, s] of Object.entries(subjects)) {
    const m = measure(s.fn, s.inputs as never[], { runs: 5, runMs: 100, warmupMs: 150 });
    best.set(name, Math.min(best.get(name) ?? Infinity, m.nsPerOp));
  }
}
const meanBytes = values.reduce((sum, b) => sum + b.length, 0) / values.length;
console.log(`${values.length} records, ${Math.round(meanBytes)} bytes of JSON and ${Math.round(specials)} special bytes on average; CPU ns a record, the fastest of ${rounds} rounds:`);
for (const name of Object.keys(subjects)) console.log(`${name}\t${Math.round(best.get(name) as number)}`);
