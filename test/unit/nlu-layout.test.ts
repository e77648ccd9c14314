import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// shared/nlu reads as a package: its five folders and its entry (index.ts, with the package.json
// that lets bundles keep only what they use of it), and no two of its files (nor one of its files
// and a file of another layer of shared/) share a name, so a name says where a file is; the entry
// is named as entries are.

const SHARED = fileURLToPath(new URL('../../shared', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('shared/nlu', () => {
  it('has the folders answer, encoder, intents, knowledge and policy, and beside them only its entry', () => {
    const top = readdirSync(join(SHARED, 'nlu'), { withFileTypes: true });
    expect(
      top
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(),
    ).toEqual(['answer', 'encoder', 'intents', 'knowledge', 'policy']);
    expect(
      top
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort(),
    ).toEqual(['index.ts', 'package.json']);
  });

  it('has no two files of the same name, nor one named like a file of another layer', () => {
    const nlu = files(join(SHARED, 'nlu'))
      .map((f) => basename(f))
      .filter((n) => n !== 'index.ts');
    expect(nlu.filter((n, i) => nlu.indexOf(n) !== i)).toEqual([]);
    const others = new Set(
      readdirSync(SHARED)
        .filter((d) => d !== 'nlu')
        .flatMap((d) => files(join(SHARED, d)).map((f) => basename(f))),
    );
    expect(nlu.filter((n) => others.has(n))).toEqual([]);
  });
});
