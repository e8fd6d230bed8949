// A small client of the admin API for the scenarios that change config through it, counting every
// answer it did not expect.
export class AdminClient {
  /** Answers other than the expected status, with the request that got them. */
  readonly failures: string[] = [];
  calls = 0;
  /** Answers 429 that attempt() waited out. */
  rateLimited = 0;

  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  /**
   * Sends a JSON request whose refusal may be the point, and resolves to its status, error code and id
   * whatever they are. A 429 (the API's rate limit) is waited out and sent again, so the answer is the
   * request's own.
   */
  async attempt(method: string, path: string, body: unknown): Promise<{ status: number; code: string | undefined; id: string | undefined }> {
    for (;;) {
      this.calls++;
      const res = await fetch(`${this.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (res.status === 429) {
        this.rateLimited++;
        await new Promise((r) => setTimeout(r, 1_000 * Math.max(1, Number(res.headers.get('retry-after') ?? 1))));
        continue;
      }
      const json = text === '' ? {} : (JSON.parse(text) as { error_code?: string; id?: string });
      return { status: res.status, code: json.error_code, id: json.id };
    }
  }

  /** Sends a JSON request; resolves to the parsed body when the status is `expect`, else records a failure and throws. */
  async request<T = Record<string, unknown>>(method: string, path: string, body: unknown, expect: number): Promise<T> {
    this.calls++;
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status !== expect) {
      const failure = `${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`;
      this.failures.push(failure);
      throw new Error(failure);
    }
    return (text === '' ? {} : JSON.parse(text)) as T;
  }
}
