/** `****` + the last 4 characters, for any secret shown after creation (widget keys, credentials);
 *  values under 8 characters show nothing, so none is ever shown whole. */
export const mask = (v: string) => ([...v].length >= 8 ? `****${[...v].slice(-4).join('')}` : '****');
