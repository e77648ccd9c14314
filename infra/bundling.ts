// esbuild settings of every function bundle, used by the stack (NodejsFunction) and by the
// bundle benchmark, so that what is measured is what is deployed.

export const BUNDLE_TARGET = 'node24';

/** Some CommonJS dependencies call require(); an ESM bundle has none unless we define it. */
export const BUNDLE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** ESM entry points first: they tree-shake, the AWS SDK's CommonJS builds do not. */
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/**
 * Packages replaced in bundles, by paths relative to the project root (esbuild's working
 * directory). The SDK's default credential chain becomes the environment provider alone, and
 * `node:http` is loaded through require (shared/core/bundled-node-http.ts says why).
 */
export const BUNDLE_ALIAS: Record<string, string> = {
  '@aws-sdk/credential-provider-node': './shared/data/lambda-credentials.ts',
  'node:http': './shared/core/bundled-node-http.ts',
  http: './shared/core/bundled-node-http.ts',
};

/**
 * AWS SDK clients left to the copy that the Lambda Node.js runtime provides (ESM imports search
 * its NODE_PATH), because a function imports them only on a rare path: KMS opens an integration's
 * credentials once per integration change and container. In the chat bundle it was 27.6 KB that
 * every cold start parsed; the rest of the SDK stays bundled and pinned.
 */
export const RUNTIME_PROVIDED = ['@aws-sdk/client-kms'] as const;
