// Timestamps of raw records: Avro timestamp-micros longs on the wire, RFC 3339 strings in JSON and in decoded records.

/**
 * The largest magnitude an int64 may have in a decoded record. Decoded records are emitted as JSON,
 * whose numbers are IEEE doubles, so larger values would silently lose precision; avsc refuses the
 * last two safe integers too ("potential precision loss"), so we use its bound everywhere.
 */
export const MAX_INT64_MAGNITUDE = 9_007_199_254_740_990;

// RFC 3339 section 5.6: date-time = full-date "T" full-time; full-time = partial-time time-offset;
// time-secfrac = "." 1*DIGIT; time-offset = "Z" / time-numoffset. "T" and "Z" may be lowercase (5.6 NOTE).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/**
 * Microseconds since the Unix epoch for an RFC 3339 date-time, or undefined when the text is not one or
 * lies outside what a decoded record can hold (about the years 1685 to 2254, ±2^53 µs). Fractions finer
 * than a microsecond are truncated. A leap second (:60) rolls over into the next minute, as Date does.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // Date.UTC maps the years 0-99 to 1900-1999; those years are out of range anyway.
  if (year < 100) return undefined;
  let offsetMinutes = 0;
  if (z === undefined) {
    const oh = Number(ohs);
    const om = Number(oms);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const micros = ms * 1000 + (frac === undefined ? 0 : Number(frac.slice(0, 6).padEnd(6, '0'))) - offsetMinutes * 60_000_000;
  return Math.abs(micros) <= MAX_INT64_MAGNITUDE ? micros : undefined;
}

/** Two ASCII digits at `at` as a number, or -1. */
function twoDigits(b: Uint8Array, at: number): number {
  const h = (b[at] as number) - 0x30;
  const l = (b[at + 1] as number) - 0x30;
  return h >= 0 && h <= 9 && l >= 0 && l <= 9 ? h * 10 + l : -1;
}

/**
 * parseRfc3339 of the ASCII text in bytes [s, e), read without making a string (the JSON fast path,
 * json-scan.ts): the same grammar, bounds and result.
 */
export function rfc3339Micros(b: Uint8Array, s: number, e: number): number | undefined {
  if (e - s < 20) return undefined;
  const y1 = twoDigits(b, s);
  const y2 = twoDigits(b, s + 2);
  const month = twoDigits(b, s + 5);
  const day = twoDigits(b, s + 8);
  const hour = twoDigits(b, s + 11);
  const minute = twoDigits(b, s + 14);
  const second = twoDigits(b, s + 17);
  const t = b[s + 10];
  if (y1 < 0 || y2 < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (b[s + 4] !== 0x2d || b[s + 7] !== 0x2d || (t !== 0x54 && t !== 0x74) || b[s + 13] !== 0x3a || b[s + 16] !== 0x3a) return undefined;
  const year = y1 * 100 + y2;
  let k = s + 19;
  let fraction = 0;
  if (b[k] === 0x2e) {
    const first = ++k;
    let scale = 100_000;
    while (k < e && (b[k] as number) >= 0x30 && (b[k] as number) <= 0x39) {
      if (scale >= 1) fraction += ((b[k] as number) - 0x30) * scale;
      scale /= 10;
      k++;
    }
    if (k === first || k - first > 9) return undefined;
  }
  let offsetMinutes = 0;
  const z = b[k];
  if (z === 0x5a || z === 0x7a) k++;
  else if (z === 0x2b || z === 0x2d) {
    const oh = twoDigits(b, k + 1);
    const om = twoDigits(b, k + 4);
    if (oh < 0 || om < 0 || b[k + 3] !== 0x3a) return undefined;
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (z === 0x2d ? -1 : 1) * (oh * 60 + om);
    k += 6;
  } else return undefined;
  if (k !== e) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  if (year < 100) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const micros = ms * 1000 + fraction - offsetMinutes * 60_000_000;
  return Math.abs(micros) <= MAX_INT64_MAGNITUDE ? micros : undefined;
}

const MICROS_PER_DAY = 86_400_000_000;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** The civil time of the last civilTime() call: year, month, day, hour, minute, second, microseconds. */
const civil = new Int32Array(7);
/** The day (since the epoch) whose date is in civil[0..2]. */
let civilDay = Number.NaN;

/**
 * Splits a timestamp into its UTC civil date and time (into `civil`) with integer arithmetic: the
 * days-to-civil-date algorithm of H. Hinnant's "chrono-Compatible Low-Level Date Algorithms", which costs
 * several times less than Date and keeps microseconds.
 */
function civilTime(micros: number): void {
  const days = Math.floor(micros / MICROS_PER_DAY);
  let rem = micros - days * MICROS_PER_DAY;
  const hour = Math.floor(rem / 3_600_000_000);
  rem -= hour * 3_600_000_000;
  const minute = Math.floor(rem / 60_000_000);
  rem -= minute * 60_000_000;
  const second = Math.floor(rem / 1_000_000);
  civil[3] = hour;
  civil[4] = minute;
  civil[5] = second;
  civil[6] = rem - second * 1_000_000;
  // The records of a batch mostly fall on one day: its date is kept from the last call.
  if (days === civilDay) return;
  civilDay = days;
  // civil_from_days: eras of 400 years (146097 days) starting on 1 March 0000.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  civil[0] = yoe + era * 400 + (month <= 2 ? 1 : 0);
  civil[1] = month;
  civil[2] = doy - Math.floor((153 * mp + 2) / 5) + 1;
}

/** The canonical RFC 3339 text of a timestamp: UTC, "Z", always six fraction digits. */
export function formatMicros(micros: number): string {
  civilTime(micros);
  const c = civil as unknown as readonly number[];
  return `${c[0]}-${pad2(c[1] as number)}-${pad2(c[2] as number)}T${pad2(c[3] as number)}:${pad2(c[4] as number)}:${pad2(c[5] as number)}.${String(c[6]).padStart(6, '0')}Z`;
}

/** Writes `value` as `width` decimal digits (zero-padded) into `out` at `at`. */
function digits(out: Uint8Array, at: number, value: number, width: number): void {
  // Int32 arithmetic: % and / on doubles cost several times more (the parts are all below 2^31).
  let v = value | 0;
  for (let i = at + width - 1; i >= at; i--) {
    const q = (v / 10) | 0;
    out[i] = 0x30 + v - q * 10;
    v = q;
  }
}

/**
 * formatMicros' text as bytes into `out` at `at`, returning the end: the byte projections write
 * timestamps without making a string (src/projection/avro-projection.ts). Years outside 1000-9999 (none
 * within MAX_INT64_MAGNITUDE) go through formatMicros.
 */
export function writeMicros(out: Uint8Array, at: number, micros: number): number {
  civilTime(micros);
  const year = civil[0] as number;
  if (year < 1000 || year > 9999) {
    const text = formatMicros(micros);
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
    return at + text.length;
  }
  digits(out, at, year, 4);
  out[at + 4] = 0x2d;
  digits(out, at + 5, civil[1] as number, 2);
  out[at + 7] = 0x2d;
  digits(out, at + 8, civil[2] as number, 2);
  out[at + 10] = 0x54;
  digits(out, at + 11, civil[3] as number, 2);
  out[at + 13] = 0x3a;
  digits(out, at + 14, civil[4] as number, 2);
  out[at + 16] = 0x3a;
  digits(out, at + 17, civil[5] as number, 2);
  out[at + 19] = 0x2e;
  digits(out, at + 20, civil[6] as number, 6);
  out[at + 26] = 0x5a;
  return at + 27;
}

/** The first and last milliseconds an RFC 3339 text can write (years 0000 to 9999): an event's time is within them. */
export const EVENT_TIME_MIN_MS = -62_167_219_200_000;
export const EVENT_TIME_MAX_MS = 253_402_300_799_999;

/** Where formatMillis writes the text itself: four-digit years, within formatMicros' exact range. */
const FAST_MILLIS_FROM = Date.UTC(1000, 0, 1);
const FAST_MILLIS_TO = Math.floor(MAX_INT64_MAGNITUDE / 1000);

/**
 * Date.prototype.toISOString of a time in ms (three fraction digits), written by formatMicros for the
 * years 1000 to 2254: Date's own formatting cost about 0.5 µs, a tenth of routing a record (bench/results/PROFILE.md).
 */
export function formatMillis(ms: number): string {
  if (!Number.isInteger(ms) || ms < FAST_MILLIS_FROM || ms > FAST_MILLIS_TO) return new Date(ms).toISOString();
  return `${formatMicros(ms * 1000).slice(0, 23)}Z`;
}

/** formatMillis' text as bytes into `out` at `at`, returning the end. */
export function writeMillis(out: Uint8Array, at: number, ms: number): number {
  if (!Number.isInteger(ms) || ms < FAST_MILLIS_FROM || ms > FAST_MILLIS_TO) {
    const text = new Date(ms).toISOString();
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
    return at + text.length;
  }
  // writeMicros' text with three fraction digits: the other three are zeros.
  writeMicros(out, at, ms * 1000);
  out[at + 23] = 0x5a;
  return at + 24;
}
