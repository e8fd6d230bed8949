// Hash routes (#/destinations/ed_…): the server serves one page, and a reload or a shared link opens the
// same view. The token is never part of a route.
import { useEffect, useState } from 'preact/hooks';

export function useRoute(): string[] {
  const parse = (): string[] => location.hash.replace(/^#\/?/, '').split('/').filter((s) => s !== '').map(decodeURIComponent);
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const onChange = (): void => setRoute(parse());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;

export function go(...parts: string[]): void {
  location.hash = href(...parts);
}
