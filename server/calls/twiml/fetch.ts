// STAND-IN: replaced by part A at merge. An unsigned, unguarded fetch of a document the stand-in parser reads.
import type { HttpMethod, Instructions } from './verbs.js';
import { parseTwiml } from './parse.js';
import type { PrivateAddressPolicy } from '../../webhooks/address-guard.js';

export interface FetchRequest {
  url: string;
  method: HttpMethod;
  params: Record<string, string>;
  secret: string;
  webhookId: string;
  timestamp: number;
  timeoutMs: number;
  privateAddresses: PrivateAddressPolicy;
}

export type FetchResult =
  { ok: true; instructions: Instructions } | { ok: false; errorCode: string; errorMessage: string };

export async function fetchInstructions(request: FetchRequest): Promise<FetchResult> {
  const form = new URLSearchParams(request.params).toString();
  const get = request.method === 'GET';
  try {
    const response = await fetch(get ? `${request.url}?${form}` : request.url, {
      method: request.method,
      body: get ? undefined : form,
      headers: get ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const parsed = parseTwiml(await response.text(), request.url);
    if (parsed.ok) return parsed;
    return { ok: false, errorCode: 'invalid_instructions', errorMessage: parsed.error };
  } catch (err) {
    return { ok: false, errorCode: 'instructions_fetch_failed', errorMessage: String((err as Error).message) };
  }
}
