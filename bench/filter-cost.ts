// Filter cost bench (issue 38, finding 2): the costliest filters the API accepts, their evaluation
// time warm and cold, and the event-loop lag while a batch of an account's records is matched against
// as many of them as the account may hold, before and after the work bounds.
//
//   npx tsx bench/filter-cost.ts      (writes bench/results/filter-cost.md and .json)
//
// "Before" is the review's 3,819-character filter, which the step bound accepted, 55 times, over 200
// records matched in one turn of the event loop (the ingest worker's loop had no turn bound). "After"
// is the costliest filter of each shape below the work bound, as many as ACCOUNT_FILTER_COST_LIMIT
// admits, matched with the ingest worker's TurnBudget. Records carry the longest names a record may.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { compileFilter, MAX_EVALUATION_COST } from '../src/cel/compile.js';
import { compileProgram } from '../src/cel/compiler/program.js';
import { filterEnv } from '../src/cel/filter-env.js';
import { DEFAULT_ACCOUNT_FILTER_COST, FILTER_LIMITS } from '../src/cel/limits.js';
import { SubscriptionMatcher } from '../src/cel/matcher.js';
import type { CompiledFilter } from '../src/cel/types.js';
import { FILTERABLE } from '../src/events/catalog.js';
import { ROUTE_TURN_MS, TurnBudget } from '../src/ingest/turn-budget.js';
import { expensiveFilter } from '../test/support/costly-filters.js';

const TYPE = 'http_request_complete.v0';
const RECORDS = 200;
const BEFORE_FILTERS = 55;

const maxName = FILTERABLE['conn.server_name']?.maxLength ?? 253;
const maxIp = FILTERABLE['conn.client_ip']?.maxLength ?? 45;
const record = (i: number): unknown => ({
  conn: {
    server_name: `${'a'.repeat(maxName - 16)}.${String(i).padStart(3, '0')}.example.com`.slice(0, maxName),
    server_ip: `2001:db8:${'a'.repeat(maxIp - 14)}::${i % 10}`.slice(0, maxIp),
    client_ip: `2001:db8:${'b'.repeat(maxIp - 14)}::${i % 10}`.slice(0, maxIp),
    server_port: 443,
  },
});
const records = Array.from({ length: RECORDS }, (_, i) => record(i));

const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
/** Shapes of costly filters, each growing with its parameter. */
const SHAPES: Readonly<Record<string, (n: number) => string>> = {
  'search (field + literal).contains(pattern)': (n) => `(ev.conn.server_name + "${'a'.repeat(n)}").contains("${'a'.repeat(40)}b")`,
  'search field.contains(long pattern)': (n) => `ev.conn.server_name.contains("${'a'.repeat(n)}b")`,
  'join in a loop': (n) => `${list(n)}.exists(i, (ev.conn.server_name + ev.conn.client_ip + string(i)).endsWith("zz"))`,
  'size() in a loop': (n) => `${list(n)}.exists(i, size(ev.conn.server_name) == i + 1000)`,
  'nested loops': (n) => `${list(n)}.exists(a, ${list(n)}.exists(b, a * b == ev.conn.server_port + 1))`,
  'regex over a joined string': (n) => `(ev.conn.server_name + "${'a'.repeat(n)}").matches("(a|b)*c(a|b)*d")`,
  'map and search': (n) => `${list(n)}.map(i, ev.conn.server_name + string(i)).exists(s, s.contains("zzz"))`,
};

/**
 * The i-th of several filters alike but for a port none of the records has: the matcher evaluates a
 * text shared by several subscriptions once, so the account's filters must differ to cost it each.
 */
const variant = (text: string, i: number): string => `(${text}) || ev.conn.server_port == ${60_000 + i}`;

function compileOrNull(text: string): CompiledFilter | undefined {
  const r = compileFilter(text, TYPE);
  return r.ok ? r.filter : undefined;
}

/** The largest parameter whose filter the API accepts (the shapes' costs grow with it). */
function largestAccepted(shape: (n: number) => string): { n: number; filter: CompiledFilter } | undefined {
  let lo = 0;
  let hi = 1;
  while (compileOrNull(shape(hi)) !== undefined && hi < 4096) hi *= 2;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (compileOrNull(shape(mid)) !== undefined) lo = mid;
    else hi = mid;
  }
  const filter = lo === 0 ? undefined : compileOrNull(shape(lo));
  return filter === undefined ? undefined : { n: lo, filter };
}

/** Cold: the first evaluation of a fresh compile; warm: the median of rounds after 200 evaluations. */
function timeFilter(make: () => CompiledFilter): { coldMs: number; warmUs: number } {
  const cold = make();
  let t0 = performance.now();
  cold.evaluate(records[0]);
  const coldMs = performance.now() - t0;
  const f = make();
  for (let i = 0; i < 200; i++) f.evaluate(records[i % RECORDS]);
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    t0 = performance.now();
    for (let i = 0; i < RECORDS; i++) f.evaluate(records[i]);
    rounds.push(((performance.now() - t0) * 1000) / RECORDS);
  }
  rounds.sort((a, b) => a - b);
  return { coldMs, warmUs: rounds[3] as number };
}

/** The review's filter as the step bound let it through: compiled without the work bound. */
function unbounded(text: string): CompiledFilter {
  const r = compileProgram(text, { env: filterEnv(TYPE), limits: { ...FILTER_LIMITS, maxCost: Number.POSITIVE_INFINITY } });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
  const program = r.program;
  return { text, eventType: TYPE, expr: program.expr, cost: program.cost ?? 0, evaluate: (ev) => program.evalRaw({ ev: ev as never }) === true };
}

/** Matches every record against `filters` as one batch, giving way to the loop when `turns` is set; the lag a 5 ms timer saw. */
async function batchLag(filters: readonly CompiledFilter[], turns: boolean): Promise<{ batchMs: number; longestTurnMs: number; maxLagMs: number; p99LagMs: number }> {
  const matcher = new SubscriptionMatcher(TYPE);
  filters.forEach((f, i) => matcher.set(`esb_${i}`, f));
  const h = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let maxLag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLag = Math.max(maxLag, now - last - 5);
    last = now;
  }, 5);
  await new Promise((r) => setTimeout(r, 50));
  h.enable();
  const t0 = performance.now();
  const turn = new TurnBudget();
  let matched = 0;
  let turnStart = t0;
  let longestTurn = 0;
  for (const rec of records) {
    if (turns && turn.spent()) {
      longestTurn = Math.max(longestTurn, performance.now() - turnStart);
      await turn.yield();
      turnStart = performance.now();
    }
    matched += matcher.match(rec).length;
  }
  const batchMs = performance.now() - t0;
  longestTurn = Math.max(longestTurn, performance.now() - turnStart);
  await new Promise((r) => setTimeout(r, 50));
  h.disable();
  clearInterval(timer);
  if (matched < 0) throw new Error('unreachable');
  return { batchMs, longestTurnMs: longestTurn, maxLagMs: Math.max(maxLag, h.max / 1e6), p99LagMs: h.percentile(99) / 1e6 };
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const review = expensiveFilter(3819);
  const refused = compileFilter(review, TYPE);
  const reviewCost = refused.ok ? refused.filter.cost : (refused.problems[0]?.cost ?? Number.NaN);
  const reviewTime = timeFilter(() => unbounded(review));

  const accepted: { shape: string; n: number; cost: number; coldMs: number; warmUs: number; text: string; filter: CompiledFilter }[] = [];
  for (const [shape, make] of Object.entries(SHAPES)) {
    const best = largestAccepted((n) => variant(make(n), 0));
    if (best === undefined) continue;
    const t = timeFilter(() => compileOrNull(make(best.n)) as CompiledFilter);
    accepted.push({ shape, n: best.n, cost: best.filter.cost, ...t, text: make(best.n), filter: best.filter });
  }
  accepted.sort((a, b) => b.warmUs - a.warmUs);
  const worst = accepted[0];
  if (worst === undefined) throw new Error('no shape compiles');
  const afterCount = Math.floor(DEFAULT_ACCOUNT_FILTER_COST / worst.cost);

  const account = (): CompiledFilter[] => Array.from({ length: afterCount }, (_, i) => compileOrNull(variant(worst.text, i)) as CompiledFilter);
  const before = await batchLag(Array.from({ length: BEFORE_FILTERS }, (_, i) => unbounded(variant(review, i))), false);
  const after = await batchLag(account(), true);
  const afterUnsliced = await batchLag(account(), false);

  const result = {
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    bounds: { filter: MAX_EVALUATION_COST, account: DEFAULT_ACCOUNT_FILTER_COST },
    review: { length: review.length, cost: reviewCost, ...reviewTime },
    accepted: accepted.map(({ filter: _f, text, ...rest }) => ({ ...rest, length: text.length })),
    batches: {
      before: { filters: BEFORE_FILTERS, records: RECORDS, ...before },
      afterUnsliced: { filters: afterCount, records: RECORDS, ...afterUnsliced },
      after: { filters: afterCount, records: RECORDS, ...after },
    },
  };
  const rows = accepted
    .map((a) => `| ${a.shape} | ${a.n} | ${a.text.length} | ${a.cost} | ${r2(a.warmUs)} | ${r2(a.coldMs)} | ${r2((a.warmUs * 1000) / a.cost)} |`)
    .join('\n');
  const b = result.batches;
  const md = `# Filter cost (bench/filter-cost.ts)

${result.machine}. Bounds: ${MAX_EVALUATION_COST.toLocaleString('en')} units a filter, ${DEFAULT_ACCOUNT_FILTER_COST.toLocaleString('en')} an account (ACCOUNT_FILTER_COST_LIMIT's default). Records carry the longest filterable values a record may (server name ${maxName}, IPs ${maxIp} characters).

## The review's filter

${review.length} characters (test/support/costly-filters.ts): cost ${reviewCost.toLocaleString('en')} units, now refused with filter_too_costly. Evaluated as the step bound let it through: ${r2(reviewTime.warmUs)} µs warm, ${r2(reviewTime.coldMs)} ms cold.

## The costliest filter of each shape the API now accepts

| Shape | Parameter | Characters | Cost (units) | Warm µs | Cold ms | ns a unit |
|---|---|---|---|---|---|---|
${rows}

## A batch of ${RECORDS} records of one account

The longest turn is the longest the loop routed without giving way; the stall is the longest a 5 ms
timer waited past its time, which on a loaded machine also holds the time the process was not run.

| | Filters | Batch ms | Longest turn ms | Longest timer stall ms | p99 loop delay ms |
|---|---|---|---|---|---|
| Before: ${BEFORE_FILTERS} of the review's filter, one turn | ${b.before.filters} | ${r2(b.before.batchMs)} | ${r2(b.before.longestTurnMs)} | ${r2(b.before.maxLagMs)} | ${r2(b.before.p99LagMs)} |
| After, without turns: the account's most of the costliest accepted filter (${worst.shape}) | ${b.afterUnsliced.filters} | ${r2(b.afterUnsliced.batchMs)} | ${r2(b.afterUnsliced.longestTurnMs)} | ${r2(b.afterUnsliced.maxLagMs)} | ${r2(b.afterUnsliced.p99LagMs)} |
| After: the same, routed in turns of ${ROUTE_TURN_MS} ms (src/ingest/turn-budget.ts) | ${b.after.filters} | ${r2(b.after.batchMs)} | ${r2(b.after.longestTurnMs)} | ${r2(b.after.maxLagMs)} | ${r2(b.after.p99LagMs)} |
`;
  writeFileSync(new URL('./results/filter-cost.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(new URL('./results/filter-cost.md', import.meta.url), md);
  process.stdout.write(md);
}

await main();
