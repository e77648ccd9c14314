import { createHash, randomBytes } from 'node:crypto';

/** A new widget key: shown once; only its hash is stored, and a preview for the settings page. */
export function newWidgetKey() {
  const key = `wk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashWidgetKey(key), preview: previewOf(key) };
}

export const hashWidgetKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const previewOf = (secret: string) => `****${secret.slice(-4)}`;
