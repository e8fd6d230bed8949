// A small client of the admin API for the scenarios that change config through it, counting every
// answer it did not expect.
export class AdminClient {
  /** Answers other than the expected status, with the request that got them. */
  readonly failures: string[] = [];
  calls = 0;

  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

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
