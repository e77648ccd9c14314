import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

// The docs stay true: every relative link and picture in README.md, docs/ and any Markdown under
// functions/ resolves (the file, and the heading a #fragment names), every backticked repository
// path names a file or folder that exists, and docs/ARCHITECTURE.md's map names every folder under
// shared/, bin/, local/ and functions/, as the API-docs test does for routes. A new doc or folder needs no edit here.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every .md file under a folder, its subfolders included, as paths from the root. */
function markdownUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `${dir}/${f.split('\\').join('/')}`)
    .sort();
}

const pages = ['README.md', ...markdownUnder('docs'), ...markdownUnder('functions')];

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

// A backticked token is taken for a repository path when it has no spaces or placeholders and either
// starts with a top-level folder or file of the repository (`shared/nlu/`, `package.json`) or ends
// in a source file's extension (`intents/classifier.ts`, named from its folder). The first must exist
// as written; the second must be the end of some file's path. What the tools write and git ignores
// (`bench-results/`, `.local-data/`, the builds) is not in the checkout, so it is not checked.
const GENERATED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim().replace(/\/$/, ''))
  .filter((l) => l && !l.startsWith('#') && !l.includes('*'));
/** What git ignores: a name anywhere (`node_modules`) or a path from the root (`web/widget/dist`). */
const ignored = (path: string) =>
  path === '.git' || GENERATED.some((g) => (g.includes('/') ? path === g : path.split('/').pop() === g));
// Names of files that live outside the checkout: the built widget script and a function bundle's
// entry (made by the builds), the data sets' files (read from the datasets folder beside it), and
// the npm packages named like files (`ipaddr.js`).
const OUTSIDE = new Set([
  'widget.js',
  'index.mjs',
  'train.csv',
  'dev.json',
  ...Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: object }).dependencies,
  ),
]);
const EXTENSIONS = /\.(ts|tsx|mts|js|mjs|cjs|json|md|bin|csv|jar|yml|yaml|html|css|png|jpg|svg|sh)$/;

const repoFiles: string[] = (() => {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (ignored(path)) continue;
      if (e.isDirectory()) visit(path);
      else out.push(path);
    }
  };
  visit('');
  return out;
})();
const topLevel = new Set(readdirSync(ROOT).filter((e) => !ignored(e)));

/** The backticked text of a page's prose (inline code only: fenced blocks are diagrams and examples). */
function codeSpans(markdown: string): string[] {
  const found: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'codespan') found.push((t as Tokens.Codespan).text);
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
  return found;
}

/** The repository path a backticked token names, or undefined when it names none. */
function repoPath(token: string): { path: string; exact: boolean } | undefined {
  const t = token.replace(/&amp;/g, '&').replace(/[.,:;]+$/, '');
  if (!t || /[\s<>*{}…|$@=?]/.test(t) || /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith('/')) return undefined;
  if (OUTSIDE.has(t) || GENERATED.some((g) => t === g || t.startsWith(`${g}/`) || g.endsWith(`/${t}`)))
    return undefined;
  const first = t.split('/')[0] as string;
  if (t.includes('/') && topLevel.has(first)) return { path: t, exact: true };
  if (!t.includes('/') && topLevel.has(t)) return { path: t, exact: true };
  if (EXTENSIONS.test(t)) return { path: t, exact: false };
  return undefined;
}

function exists({ path, exact }: { path: string; exact: boolean }): boolean {
  if (exact) return existsSync(join(ROOT, path));
  return repoFiles.some((f) => f === path || f.endsWith(`/${path}`));
}

describe('backticked paths in README.md and docs/', () => {
  for (const page of pages) {
    it(`${page}: every backticked repository path exists`, () => {
      const missing = codeSpans(readFileSync(join(ROOT, page), 'utf8'))
        .map((t) => ({ t, p: repoPath(t) }))
        .filter(({ p }) => p && !exists(p))
        .map(({ t }) => t);
      expect([...new Set(missing)]).toEqual([]);
    });
  }

  it('takes paths for paths and the rest for the rest (a check that saw nothing would pass)', () => {
    expect(repoPath('shared/nlu/policy/answer-policy.ts')).toEqual({
      path: 'shared/nlu/policy/answer-policy.ts',
      exact: true,
    });
    expect(repoPath('intents/classifier.ts')).toEqual({ path: 'intents/classifier.ts', exact: false });
    expect(repoPath('package.json')).toEqual({ path: 'package.json', exact: true });
    for (const t of ['zod/mini', 'application/problem+json', '/api/v1/openapi.json', 'npm run bench:kb'])
      expect(repoPath(t), t).toBeUndefined();
    expect(repoPath('bench-results/kb.json')).toBeUndefined();
    expect(repoPath('functions/<chat|admin>/<name>.ts')).toBeUndefined();
    expect(exists({ path: 'intents/classifier.ts', exact: false })).toBe(true);
    expect(exists({ path: 'encoder/to-embed.ts', exact: false })).toBe(false);
    expect(exists({ path: 'shared/nlu/nowhere.ts', exact: true })).toBe(false);
    expect(codeSpans('See `a/b.ts`, and:\n\n```\n`c.ts`\n```\n| x |\n|---|\n| `d.ts` |')).toEqual(['a/b.ts', 'd.ts']);
  });
});

describe('docs/NLU.md', () => {
  // A script under test/bench run by hand (no npm script runs it, and it exports nothing or its
  // header says `npx tsx` of itself) is a tuning or measuring script: the guide says what it is for.
  it('names every script of test/bench that is run by hand', () => {
    const guide = readFileSync(join(ROOT, 'docs/NLU.md'), 'utf8');
    const scripts = JSON.stringify(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts,
    );
    const byHand = repoFiles.filter((f) => {
      if (!f.startsWith('test/bench/') || !f.endsWith('.ts') || f.endsWith('.d.ts') || scripts.includes(f))
        return false;
      const code = readFileSync(join(ROOT, f), 'utf8');
      return code.includes(`npx tsx ${f}`) || !/^export /m.test(code);
    });
    expect(byHand.length).toBeGreaterThan(5);
    expect(byHand.filter((f) => !guide.includes(`\`${f}\``))).toEqual([]);
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

  it('maps every folder under shared/, bin/, local/ and functions/', () => {
    expect(start, 'docs/ARCHITECTURE.md has a map').toBeGreaterThan(0);
    const missing = [...folders('shared'), ...folders('bin'), ...folders('local'), ...folders('functions')].filter(
      (f) => !map.includes(`\`${f}\``),
    );
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
