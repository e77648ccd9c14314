import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { config } from '#shared/core/config.ts';
import type { IntegrationItem, Sealed } from '#shared/data/integrations.ts';
import { mask } from '#shared/domain/mask.ts';

export { mask };

// Envelope encryption of integration credentials: a fresh data key per write (KMS GenerateDataKey,
// or locally a random key wrapped with LOCAL_DATA_KEY), AES-256-GCM, bound to tenant and integration.

// Imported on the first KMS call: only functions that open credentials in AWS ever load it, and
// deployed bundles take it from the Lambda runtime (infra/bundling.ts RUNTIME_PROVIDED).
type Kms = typeof import('@aws-sdk/client-kms');
let kms: Promise<{ sdk: Kms; client: InstanceType<Kms['KMSClient']> }> | undefined;
const kmsClient = () =>
  (kms ??= import('@aws-sdk/client-kms').then((sdk) => ({
    sdk,
    client: new sdk.KMSClient({ region: config.region }),
  })));

const localKey = (): Buffer => {
  const k = Buffer.from(config.localDataKey ?? '', 'base64');
  if (k.length !== 32) throw new Error('LOCAL_DATA_KEY must be 32 bytes, base64');
  return k;
};

function gcm(key: Buffer, plain: Buffer, aad: string) {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([c.update(plain), c.final()]);
  return { iv, ciphertext, tag: c.getAuthTag() };
}

function ungcm(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad)).setAuthTag(tag);
  return Buffer.concat([d.update(ciphertext), d.final()]);
}

async function dataKey(
  context: Record<string, string>,
): Promise<{ plain: Buffer; encrypted: string; scheme: Sealed['scheme'] }> {
  const keyId = config.kmsKeyId;
  if (keyId) {
    const { sdk, client } = await kmsClient();
    const r = await client.send(
      new sdk.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    return {
      plain: Buffer.from(r.Plaintext!),
      encrypted: Buffer.from(r.CiphertextBlob!).toString('base64'),
      scheme: 'kms',
    };
  }
  const plain = randomBytes(32);
  const w = gcm(localKey(), plain, JSON.stringify(context));
  return { plain, encrypted: Buffer.concat([w.iv, w.tag, w.ciphertext]).toString('base64'), scheme: 'local' };
}

export async function seal(
  values: Record<string, string>,
  context: { tenantId: string; integrationId: string },
): Promise<Sealed> {
  const { plain, encrypted, scheme } = await dataKey(context);
  try {
    const s = gcm(plain, Buffer.from(JSON.stringify(values)), JSON.stringify(context));
    return {
      scheme,
      ciphertext: s.ciphertext.toString('base64'),
      iv: s.iv.toString('base64'),
      tag: s.tag.toString('base64'),
      encryptedKey: encrypted,
    };
  } finally {
    plain.fill(0);
  }
}

/** For delivery (not exposed by any route): the credentials back in the clear. */
export async function unseal(
  s: Sealed,
  context: { tenantId: string; integrationId: string },
): Promise<Record<string, string>> {
  const aad = JSON.stringify(context);
  let key: Buffer;
  if (s.scheme === 'kms') {
    const { sdk, client } = await kmsClient();
    const r = await client.send(
      new sdk.DecryptCommand({ CiphertextBlob: Buffer.from(s.encryptedKey, 'base64'), EncryptionContext: context }),
    );
    key = Buffer.from(r.Plaintext!);
  } else {
    const w = Buffer.from(s.encryptedKey, 'base64');
    key = ungcm(localKey(), w.subarray(0, 12), w.subarray(28), w.subarray(12, 28), aad);
  }
  try {
    return JSON.parse(
      ungcm(
        key,
        Buffer.from(s.iv, 'base64'),
        Buffer.from(s.ciphertext, 'base64'),
        Buffer.from(s.tag, 'base64'),
        aad,
      ).toString(),
    ) as Record<string, string>;
  } finally {
    key.fill(0);
  }
}

export const maskAll = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, mask(v)]));

// Decrypted credentials per container, keyed by the integration's version: one KMS call per
// integration change instead of one per attempt (deliveries) or per call (actions).
const opened = new Map<string, Record<string, string>>();
export async function credentialsOf(
  tenantId: string,
  i: Pick<IntegrationItem, 'id' | 'updatedAt' | 'sealed'>,
): Promise<Record<string, string>> {
  const key = `${tenantId}/${i.id}/${i.updatedAt}`;
  let c = opened.get(key);
  if (!c) {
    c = await unseal(i.sealed, { tenantId, integrationId: i.id });
    if (opened.size >= 500) opened.clear();
    opened.set(key, c);
  }
  return c;
}
