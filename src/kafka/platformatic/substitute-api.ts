// The client looks up each protocol API by name through its own `kGetApi`; the adapter's producer and
// consumer answer one name with their own version of the client's API (produce-request.ts for Produce,
// read-committed.ts for Fetch), made once per API the client hands out.
import type { API, Callback } from '@platformatic/kafka';

type AnyApi = API<unknown[], unknown>;

/**
 * Looks the API up with the client's own `lookup` and answers `callback` with `substitute(api)` instead,
 * kept in `made` so each of the client's APIs is wrapped once.
 */
export function substituteApi<Result>(lookup: (callback: Callback<AnyApi>) => void, made: WeakMap<AnyApi, AnyApi>, substitute: (api: AnyApi) => AnyApi, callback: Callback<Result>): void {
  lookup((error, api) => {
    if (error !== null || api === undefined) {
      callback(error);
      return;
    }
    let own = made.get(api);
    if (own === undefined) made.set(api, (own = substitute(api)));
    callback(null, own as unknown as Result);
  });
}
