// A list page's search, sort and paging, in the tab: the API's list routes page by before_id, newest
// first, with no search or sort of their own, so the console reads up to LIST_READ_LIMIT of them
// (every page of an account within the default resource limit) and searches, sorts and pages those.
import { useState } from 'preact/hooks';

/** Items read at most for one list: ten of the API's pages of 100, an account's whole default resource limit. */
export const LIST_READ_LIMIT = 1000;
/** Cards on one page of a list. */
export const PAGE_SIZE = 20;

/** Every page of a list route, newest first, up to LIST_READ_LIMIT items; `more` when the API had others beyond. */
export async function readAll<T extends { id: string }>(page: (beforeId: string | undefined) => Promise<{ items: T[]; next: boolean }>): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let before: string | undefined;
  for (;;) {
    const { items: got, next } = await page(before);
    items.push(...got);
    if (!next || got.length === 0) return { items, more: false };
    if (items.length >= LIST_READ_LIMIT) return { items, more: true };
    before = got.at(-1)?.id;
  }
}

export interface SortChoice<T> {
  readonly label: string;
  /** Absent for the API's own order (newest first). */
  readonly compare?: (a: T, b: T) => number;
}

export interface ListView<T> {
  readonly shown: readonly T[];
  readonly matching: number;
  readonly total: number;
  readonly query: string;
  readonly sort: string;
  readonly page: number;
  readonly pages: number;
  setQuery(q: string): void;
  setSort(key: string): void;
  setPage(p: number): void;
}

/** Search (every word of the query in the item's text, any case), then sort, then a page of PAGE_SIZE. */
export function useListView<T>(items: readonly T[], text: (item: T) => string, sorts: Readonly<Record<string, SortChoice<T>>>): ListView<T> {
  const [query, setQueryState] = useState('');
  const [sort, setSortState] = useState(Object.keys(sorts)[0] ?? '');
  const [page, setPage] = useState(0);
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  const matched = words.length === 0 ? [...items] : items.filter((item) => { const t = text(item).toLowerCase(); return words.every((w) => t.includes(w)); });
  const compare = sorts[sort]?.compare;
  if (compare !== undefined) matched.sort(compare);
  const pages = Math.max(1, Math.ceil(matched.length / PAGE_SIZE));
  const at = Math.min(page, pages - 1);
  return {
    shown: matched.slice(at * PAGE_SIZE, (at + 1) * PAGE_SIZE),
    matching: matched.length,
    total: items.length,
    query,
    sort,
    page: at,
    pages,
    setQuery: (q) => { setQueryState(q); setPage(0); },
    setSort: (key) => { setSortState(key); setPage(0); },
    setPage,
  };
}

/** The search box and the sort choice above a list, with what they leave shown. */
export function ListTools<T>({ view, sorts, noun, more }: { view: ListView<T>; sorts: Readonly<Record<string, SortChoice<T>>>; noun: string; more: boolean }) {
  const first = view.page * PAGE_SIZE + 1;
  const last = view.page * PAGE_SIZE + view.shown.length;
  return (
    <div class="list-tools">
      <label class="search">
        <span class="visually-hidden">Search the {noun}</span>
        <input type="search" placeholder={`Search the ${noun}`} value={view.query} onInput={(e) => view.setQuery(e.currentTarget.value)} />
      </label>
      <label class="sort">
        Sort by{' '}
        <select value={view.sort} onChange={(e) => view.setSort(e.currentTarget.value)}>
          {Object.entries(sorts).map(([key, s]) => (
            <option value={key} key={key}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      <p class="list-count muted" aria-live="polite" data-matching={view.matching}>
        {view.matching === 0 ? `No ${noun} match.` : `${first}–${last} of ${view.matching}`}
        {view.matching !== view.total && ` (of ${view.total})`}
        {more && `; the newest ${LIST_READ_LIMIT} are read`}
      </p>
    </div>
  );
}

/** Previous and next page, below a list of more than one page. */
export function Pager<T>({ view, noun }: { view: ListView<T>; noun: string }) {
  if (view.pages <= 1) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      <button type="button" disabled={view.page === 0} onClick={() => view.setPage(view.page - 1)}>
        Previous page
      </button>
      <span>
        Page {view.page + 1} of {view.pages}
      </span>
      <button type="button" disabled={view.page >= view.pages - 1} onClick={() => view.setPage(view.page + 1)}>
        Next page
      </button>
    </nav>
  );
}
