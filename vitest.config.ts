import { defineConfig } from 'vitest/config';

// Four projects, run together by `npm test` and apart by `npm run test:<name>`.
export default defineConfig({
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results.json' },
    // Two files at a time (vitest's default on two cores is one): an integration file spends most of its
    // time waiting on the runtime and DynamoDB Local, so two side by side halve the project's wall time
    // (1,002 s to 490 s on the two-core machine, docs/TESTING.md). The browser tests keep one at a time.
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          // Once more after a failure, for a shared CI machine; a test that fails twice fails, and the
          // report keeps each retry (docs/TESTING.md).
          retry: 1,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // One module graph for all files: the synthesized stacks are cached in test/infra/synth.ts, and
          // each file would otherwise synthesize them again.
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          // One browser at a time: the machines have two cores.
          fileParallelism: false,
          // Once more after a failure, as the integration project does (docs/TESTING.md).
          retry: 1,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
