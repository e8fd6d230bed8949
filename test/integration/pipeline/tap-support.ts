// A live tap as a client sees it in the tests: the SSE answer read as it arrives, with the time of each item.
import { readSse, type SseItem } from '../../../src/tap/sse-reader.js';

export type TimedItem = SseItem & { readonly at: number };

export interface TapClient {
  readonly status: number;
  readonly items: TimedItem[];
  /** Resolves when the stream ended. */
  readonly ended: Promise<void>;
  /** Resolves at the first comment that passes `test`; fails after `timeoutMs`. */
  comment(test: (text: string) => boolean, timeoutMs?: number): Promise<TimedItem>;
  events(): string[];
}

export async function openTap(url: string, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<TapClient> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const items: TimedItem[] = [];
  const ended = (async () => {
    if (res.body === null) return;
    for await (const item of readSse(res.body)) items.push({ ...item, at: Date.now() });
  })();
  return {
    status: res.status,
    items,
    ended,
    async comment(test, timeoutMs = 10_000) {
      const start = Date.now();
      for (;;) {
        const found = items.find((i) => i.kind === 'comment' && test(i.text));
        if (found !== undefined) return found;
        if (Date.now() - start > timeoutMs) throw new Error(`no such tap comment within ${timeoutMs} ms; got ${JSON.stringify(items.filter((i) => i.kind === 'comment'))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    events: () => items.flatMap((i) => (i.kind === 'data' ? [i.data] : [])),
  };
}
