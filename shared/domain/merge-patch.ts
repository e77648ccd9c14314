// JSON Merge Patch (RFC 7396): objects merge recursively, null deletes a key, anything else
// (arrays included) replaces. Pure; inputs are never mutated.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isObject(target)) for (const k of Object.keys(target)) define(result, k, target[k]);
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) delete result[k];
    else define(result, k, mergePatch(Object.hasOwn(result, k) ? result[k] : undefined, v));
  }
  return result;
}

// defineProperty, so a key named `__proto__` is data and never a prototype change.
const define = (o: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
