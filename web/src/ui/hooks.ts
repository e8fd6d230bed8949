// Loading what a page shows, refreshed on a timer where it changes by itself (a destination's status).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asFailure, type ApiFailure } from '../api/client.ts';

export interface Loaded<T> {
  /** The last answer for these deps, kept while a refresh runs, so the page does not jump; never another id's. */
  readonly data: T | undefined;
  readonly failure: ApiFailure | undefined;
  reload(): void;
}

/** An answer, or a failure, and the deps it was loaded for. */
interface Answer<T> {
  readonly deps: readonly unknown[];
  readonly data?: T;
  readonly failure?: ApiFailure;
}

const sameDeps = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], refreshMs?: number): Loaded<T> {
  const [answer, setAnswer] = useState<Answer<T> | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => {
        if (live) setAnswer({ deps, data });
      },
      (err: unknown) => {
        // A failed refresh keeps the last answer beside its failure.
        if (live) setAnswer((last) => ({ deps, ...(last !== undefined && sameDeps(last.deps, deps) && { data: last.data }), failure: asFailure(err) }));
      },
    );
    return () => {
      live = false;
    };
    // The caller names what the load depends on.
  }, [...deps, tick]);
  useEffect(() => {
    if (refreshMs === undefined) return;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);
  // What was loaded for other deps (the page's previous id) is not shown while these load.
  const current = answer !== undefined && sameDeps(answer.deps, deps) ? answer : undefined;
  return { data: current?.data, failure: current?.failure, reload };
}

/** Runs an action once at a time, keeping its failure for the place it happened. */
export function useAction(): { busy: boolean; failure: ApiFailure | undefined; run(action: () => Promise<void>): Promise<void>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const running = useRef(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
    } catch (err) {
      setFailure(asFailure(err));
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, failure, run, clear: () => setFailure(undefined) };
}
