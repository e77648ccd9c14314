import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '#shared/data/lambda-credentials.ts';

// The provider that function bundles use in place of the SDK's default chain (infra/bundling.ts).
describe('Lambda credentials', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads the role credentials Lambda puts in the environment', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'token');
    const creds = await defaultProvider()();
    expect(creds).toMatchObject({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('fails clearly when the environment has none', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    await expect(defaultProvider()()).rejects.toThrow(/credentials/i);
  });
});
