import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

// The docs stay true: every relative link and picture in README.md and docs/*.md resolves (the
// file, and the heading a #fragment names), and docs/ARCHITECTURE.md's map names every folder
// under shared/ and bin/, as the API-docs test does for routes. A new doc or folder needs no edit here.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const t of Lexer.lex(markdown)) {
    if (t.type !== 'heading') continue;
    const base = (t as Tokens.Heading).text
      .toLowerCase()
      .replace(/<[^>]+>|[`*_]/g, '')
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link and picture target of a page (Markdown links and images, and the src and href of its HTML), code aside. */
function targets(markdown: string): string[] {
  const found: string[] = [];
  const html = new Parser({
    onopentag: (_name, attrs) => {
      for (const a of ['src', 'href']) if (attrs[a]) found.push(attrs[a]);
    },
  });
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'link' || t.type === 'image') found.push((t as Tokens.Link).href);
      if (t.type === 'html') html.write((t as Tokens.HTML).text);
      const inner = (t as { tokens?: Token[] }).tokens;
      if (inner) walk(inner);
      if (t.type === 'list') walk((t as Tokens.List).items);
      if (t.type === 'table') {
        const table = t as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens);
      }
    }
  };
  walk(Lexer.lex(markdown));
  html.end();
  return found;
}

describe('links in README.md and docs/', () => {
  for (const page of pages) {
    it(`${page}: every relative link and picture resolves`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const broken: string[] = [];
      for (const href of targets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        const [path, fragment] = href.split('#') as [string, string | undefined];
        const file = path ? resolve(ROOT, dirname(page), decodeURIComponent(path)) : join(ROOT, page);
        if (!existsSync(file)) {
          broken.push(`${href} (no such file)`);
          continue;
        }
        if (fragment && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment)) {
          broken.push(`${href} (no such heading in ${relative(ROOT, file)})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  it('finds the links it checks (a parser that saw nothing would pass)', () => {
    const readme = targets(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(readme).toContain('docs/API.md');
    expect(readme).toContain('docs/img/widget-conversation.jpg');
    expect(anchors('# A B\n## Answer policy (one decision, calibrated)\n## A B')).toEqual(
      new Set(['a-b', 'answer-policy-one-decision-calibrated', 'a-b-1']),
    );
  });
});

describe('docs/ARCHITECTURE.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('\n## The map\n');
  const map = doc.slice(start + 1, doc.indexOf('\n## ', start + 1));

  const folders = (top: string): string[] => {
    const out: string[] = [];
    const visit = (dir: string) => {
      out.push(`${relative(ROOT, dir)}/`);
      for (const e of readdirSync(dir)) if (statSync(join(dir, e)).isDirectory()) visit(join(dir, e));
    };
    visit(join(ROOT, top));
    return out;
  };

  it('maps every folder under shared/ and bin/', () => {
    expect(start, 'docs/ARCHITECTURE.md has a map').toBeGreaterThan(0);
    const missing = [...folders('shared'), ...folders('bin')].filter((f) => !map.includes(`\`${f}\``));
    expect(missing).toEqual([]);
  });

  it('draws the wings in the order the lint enforces, and every folder of shared/domain has its place', () => {
    // The order is the one the rule domain-wing-in-order names (its comment lists WINGS).
    const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
      forbidden: Array<{ name: string; comment: string }>;
    };
    const rule = config.forbidden.find((r) => r.name === 'domain-wing-in-order');
    const WINGS = /\(([^)]+)\)/.exec(rule?.comment ?? '')?.[1]?.split(', ') ?? [];
    const pairs = config.forbidden.filter((r) => r.name.startsWith('wing-')).map((r) => r.name);
    expect(pairs).toHaveLength((WINGS.length * (WINGS.length - 1)) / 2);
    const onDisk = readdirSync(join(ROOT, 'shared/domain')).filter((e) =>
      statSync(join(ROOT, 'shared/domain', e)).isDirectory(),
    );
    expect([...WINGS].sort()).toEqual(onDisk.sort());
    const drawn = [...doc.matchAll(/^([a-z-]+) +──▶/gm)].map((m) => m[1]).filter((w) => w !== 'helpers');
    expect(drawn).toEqual(WINGS);
  });
});
