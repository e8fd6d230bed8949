// Reads a server-sent event stream (the live tap's answer) line by line: `data:` lines and comments.
// The tap sends one `data:` line per event, so each is one event here.

export type SseItem = { readonly kind: 'data'; readonly data: string } | { readonly kind: 'comment'; readonly text: string };

/** The items of an SSE body, in order, until it ends. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('data:')) yield { kind: 'data', data: line.slice(line.startsWith('data: ') ? 6 : 5) };
      else if (line.startsWith(':')) yield { kind: 'comment', text: line.slice(1).trim() };
      nl = buffered.indexOf('\n');
    }
  }
}
