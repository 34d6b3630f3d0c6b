/** Raw (still URI-encoded) values of one query parameter: `filter` must be split before decoding. */
export function rawQueryValues(url: string, name: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const out: string[] = [];
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const k = eq < 0 ? pair : pair.slice(0, eq);
    if (safeDecode(k) === name) out.push(eq < 0 ? '' : pair.slice(eq + 1));
  }
  return out;
}

/** Decoded values of one query parameter. */
export function queryValues(url: string, name: string): string[] {
  return rawQueryValues(url, name).map(safeDecode);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
