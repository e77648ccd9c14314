import { createHash, randomBytes } from 'node:crypto';
import { mask } from '#shared/domain/mask.ts';

/** A new widget key: shown once; only its hash is stored, and a preview for the settings page. */
export function newWidgetKey() {
  const key = `wk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashWidgetKey(key), preview: mask(key) };
}

export const hashWidgetKey = (key: string) => createHash('sha256').update(key).digest('hex');
