// The shape of every list response: `{<key>: [...], uri, next_page_uri}`, newest first; next_page_uri
// is null on the last page and otherwise repeats the query with before_id set to the page's last id.
import type { AdminContext } from './context.js';
import type { Page, PageQuery } from './store.js';

export function listPage<T, V>(
  ctx: AdminContext,
  path: string,
  key: string,
  page: Page<T>,
  query: PageQuery,
  view: (item: T) => V,
): Record<string, unknown> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (value !== undefined && name !== 'before_id') params.set(name, String(value));
  }
  const uri = ctx.uri(path);
  let next: string | null = null;
  if (page.nextBeforeId !== undefined) {
    params.set('before_id', page.nextBeforeId);
    next = `${uri}?${params.toString()}`;
  }
  return { [key]: page.items.map(view), uri, next_page_uri: next };
}
