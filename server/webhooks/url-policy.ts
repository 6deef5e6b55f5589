// Which URLs the API accepts to call later (webhooks, instructions, media): checked where a URL is given, and again
// when it is called. A host written as an IP address is judged here, by what the WHATWG parser normalises it to
// (`http://2130706433/` and `http://0x7f.1/` are 127.0.0.1); a name is judged at delivery, by what it resolves to.
import { errors } from '../errors.js';
import { refusedAddress, type PrivateAddressPolicy } from './address-guard.js';

export type { PrivateAddressPolicy } from './address-guard.js';

/** URLs judged lately, by policy: an application gives the same few callback URLs on every request. */
const judged = new Map<string, string | null>();
const MAX_JUDGED = 1024;

/** Why `url` may not be stored or called under `policy`, or null when it may. */
export function checkUrl(url: string, policy: PrivateAddressPolicy): string | null {
  const key = `${policy} ${url}`;
  let verdict = judged.get(key);
  if (verdict === undefined) {
    verdict = judge(url, policy);
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(key, verdict);
  }
  return verdict;
}

function judge(url: string, policy: PrivateAddressPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const reason = refusedAddress(host, policy);
  if (reason) return `must not point at ${reason} (${host})`;
  if (policy === 'none' && /(^|\.)localhost\.?$/i.test(host)) return `must not point at a loopback name (${host})`;
  return null;
}

/**
 * Throws `400 url_not_allowed` naming the first field whose URL the policy refuses. Absent and empty values (an empty
 * string clears a setting) are not URLs; a list is checked item by item.
 */
export function assertUrlsAllowed(
  policy: PrivateAddressPolicy,
  fields: Record<string, string | readonly string[] | null | undefined>,
): void {
  for (const [field, value] of Object.entries(fields)) {
    for (const url of typeof value === 'string' ? [value] : (value ?? [])) {
      const reason = url === '' ? null : checkUrl(url, policy);
      if (reason) throw errors.urlNotAllowed(field, reason);
    }
  }
}
