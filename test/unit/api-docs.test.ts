import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/edge/routes/index.ts';

// docs/API.md lists every route of the route table, with who may call it, and nothing else.

const doc = readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8');

function documented(): string[] {
  const start = doc.indexOf('\n## Routes\n');
  expect(start, 'docs/API.md has a Routes section').toBeGreaterThan(0);
  const section = doc.slice(start + 1, doc.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|/gm)].map(
    ([, method, path, who]) => `${method} ${path} ${who!.trim()}`,
  );
}

describe('docs/API.md', () => {
  it('lists every route with who may call it, and no route that does not exist', () => {
    const who = (r: (typeof routes)[number]) =>
      r.auth === 'widget' ? 'widget key' : r.auth === 'none' ? 'anyone' : (r.role ?? 'any token');
    const declared = routes.map((r) => `${r.method} ${r.path.replace(/^\/api\/v1/, '')} ${who(r)}`);
    expect(documented().sort()).toEqual(declared.sort());
  });
});
