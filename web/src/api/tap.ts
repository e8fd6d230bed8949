// A live tap (the API's server-sent event stream, docs/subscription-controls.md) read through fetch, since
// EventSource cannot send the bearer token: `data:` lines are events as a destination receives them,
// comment lines are the tap's notes (workers listening, events skipped, why it ended).
import { api, failureOf, type SourceInput } from './client.ts';

export interface TapListener {
  event(envelope: string): void;
  note(text: string): void;
}

export type TapTarget = { readonly subscription: string } | { readonly source: SourceInput };

export const TAP_SECONDS = 120;
export const TAP_LIMIT = 500;

/** Streams until the tap ends or `signal` aborts; a refusal (a filter that does not compile) throws its ApiFailure. */
export async function runTap(target: TapTarget, listener: TapListener, signal: AbortSignal): Promise<void> {
  const query = { seconds: TAP_SECONDS, limit: TAP_LIMIT };
  const answer =
    'subscription' in target
      ? await api.GET('/event_subscriptions/{id}/tap', { params: { path: { id: target.subscription }, query }, parseAs: 'stream', signal })
      : await api.POST('/tap', { params: { query }, body: target.source, parseAs: 'stream', signal });
  if (!answer.response.ok) throw failureOf(answer.error, answer.response);
  const reader = (answer.data as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>).getReader();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('data: ')) listener.event(line.slice(6));
      else if (line.startsWith(': ')) listener.note(line.slice(2));
    }
  }
}
