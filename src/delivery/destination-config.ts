// Shared pieces of destination config validation: every problem is collected and reported at once.

export interface ConfigProblem {
  /** Dotted path of the offending field, e.g. "target.http.url". */
  readonly field: string;
  /** A sentence saying what is wrong. */
  readonly message: string;
}

export type ParseResult<C> =
  | { readonly ok: true; readonly config: C }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

/** Reads fields of one config object while collecting problems, so a caller sees them all at once. */
export class ConfigReader {
  readonly problems: ConfigProblem[] = [];
  private readonly obj: Record<string, unknown>;

  constructor(
    raw: unknown,
    private readonly prefix: string,
    allowed: readonly string[],
  ) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      this.problems.push({ field: prefix, message: `${prefix} must be an object.` });
      this.obj = {};
      return;
    }
    this.obj = raw as Record<string, unknown>;
    for (const key of Object.keys(this.obj)) {
      if (!allowed.includes(key)) this.problems.push({ field: `${prefix}.${key}`, message: `${prefix}.${key} is not a known field.` });
    }
  }

  problem(field: string, message: string): void {
    this.problems.push({ field: `${this.prefix}.${field}`, message });
  }

  string(field: string, required: true): string;
  string(field: string, required: false): string | undefined;
  string(field: string, required: boolean): string | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) {
      if (required) this.problem(field, `${this.prefix}.${field} is required.`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      this.problem(field, `${this.prefix}.${field} must be a non-empty string.`);
      return undefined;
    }
    return v;
  }

  integer(field: string, min: number, max: number): number | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.problem(field, `${this.prefix}.${field} must be an integer from ${min} to ${max}.`);
      return undefined;
    }
    return v;
  }

  stringList(field: string): string[] | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x !== '')) {
      this.problem(field, `${this.prefix}.${field} must be a non-empty list of strings.`);
      return undefined;
    }
    return v as string[];
  }

  result<C>(config: C): ParseResult<C> {
    return this.problems.length === 0 ? { ok: true, config } : { ok: false, problems: this.problems };
  }
}
