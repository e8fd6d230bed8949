// The string of a short run of Latin-1 (or ASCII) bytes, made in JavaScript: Buffer's latin1Slice is a call
// into the runtime that cost about 50 ns for an address of 7 to 15 bytes, String.fromCharCode of its bytes
// about 26 (bench/results/PROFILE.md, "Short strings"). The cheap read makes one such string a record, a
// client address, and the string cache one on each miss.

/** Longer runs go to latin1Slice: each length below is one case of the generated switch. */
const LONGEST_MADE_HERE = 16;

const cases = Array.from({ length: LONGEST_MADE_HERE }, (_, k) => {
  const n = k + 1;
  return `case ${n}: return String.fromCharCode(${Array.from({ length: n }, (_, i) => `b[a + ${i}]`).join(', ')});`;
});

/** The string whose UTF-16 code units are the bytes [a, e) of `b`, as `b.latin1Slice(a, e)` makes it. */
export const latin1Text = new Function('b', 'a', 'e', `switch (e - a) {\ncase 0: return '';\n${cases.join('\n')}\n}\nreturn b.latin1Slice(a, e);`) as (
  b: Buffer,
  a: number,
  e: number,
) => string;
