import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRY_METADATA } from '#infra/function.ts';
import { FUNCTION_MEMORY_MB } from '#infra/memory.ts';
import { PROJECT_ROOT } from '#infra/stack.ts';
import { synth } from './synth.ts';

// Each function's memory is sized from measurement: docs/SIZING.md's table (made by
// `npm run bench:sizing`) is what the stack must give, and infra/memory.ts is where it is set.

/** docs/SIZING.md's rows: `| \`chat/send-message\` | 1536 | ...`. */
const table = new Map(
  readFileSync(join(PROJECT_ROOT, 'docs/SIZING.md'), 'utf8')
    .split('\n')
    .map((line) => /^\| `([\w-]+\/[\w-]+)` \| (\d+) \|/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, Number(m[2])] as const),
);

describe('function memory', () => {
  it('every deployed function has the memory its row in docs/SIZING.md names', () => {
    const s = synth();
    const seen: string[] = [];
    for (const r of Object.values(s.resources)) {
      if (r.Type !== 'AWS::Lambda::Function' || !r.Metadata?.[ENTRY_METADATA]) continue;
      const handler = String(r.Metadata[ENTRY_METADATA])
        .replace(/^functions\//, '')
        .replace(/\.ts$/, '');
      seen.push(handler);
      expect(table.has(handler), `docs/SIZING.md has no row for ${handler}`).toBe(true);
      expect(r.Properties.MemorySize, handler).toBe(table.get(handler));
    }
    expect(seen.length).toBe(Object.keys(FUNCTION_MEMORY_MB).length);
  });

  it('infra/memory.ts and the table name the same functions and sizes', () => {
    expect(Object.fromEntries(table)).toEqual(FUNCTION_MEMORY_MB);
  });
});
