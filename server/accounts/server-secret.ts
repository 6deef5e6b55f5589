// The server secret that keys hashes of short secrets (OTP codes): SECRET_KEY, or one generated once and kept in the
// database.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/db.js';
import { serverSettingOnce } from './store.js';

const NAME = 'secret_key';

export async function loadServerSecret(store: Store, configured: string | null): Promise<string> {
  if (configured) return configured;
  const candidate = randomBytes(32).toString('base64url');
  // Several instances may start at once: the first insert wins and everyone reads the winner.
  return serverSettingOnce(store.db, NAME, candidate);
}
