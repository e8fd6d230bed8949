// Loading what a page shows, refreshed on a timer where it changes by itself (a destination's status).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asFailure, type ApiFailure } from '../api/client.ts';

export interface Loaded<T> {
  /** The last answer, kept while a refresh runs, so the page does not jump. */
  readonly data: T | undefined;
  readonly failure: ApiFailure | undefined;
  reload(): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setFailure(undefined);
      },
      (err: unknown) => {
        if (live) setFailure(asFailure(err));
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
  return { data, failure, reload };
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
