// SMPP_URL: the SMSC's address and the bind's credentials in one setting, read by the config and the session.

export interface SmppTarget {
  host: string;
  port: number;
  tls: boolean;
  systemId: string;
  password: string;
}

/** Reads smpp://SYSTEM_ID:PASSWORD@HOST:PORT (smpps:// for TLS); throws a message that names what is wrong. */
export function parseSmppUrl(url: string): SmppTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('is not a URL (smpp://SYSTEM_ID:PASSWORD@HOST:PORT)');
  }
  if (parsed.protocol !== 'smpp:' && parsed.protocol !== 'smpps:')
    throw new Error('must start with smpp:// or smpps://');
  const tls = parsed.protocol === 'smpps:';
  if (!parsed.hostname) throw new Error('names no host');
  if (!parsed.username) throw new Error('names no system_id (smpp://SYSTEM_ID:PASSWORD@HOST:PORT)');
  let systemId: string;
  let password: string;
  try {
    systemId = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    throw new Error('has a badly percent-encoded system_id or password');
  }
  // SMPP 3.4 allows 15 and 8 characters, but SMSCs that take longer ones exist: the SMSC is the judge (a refusal
  // shows in readiness as `bind refused: ESME_RINVPASWD`).
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : tls ? 3550 : 2775,
    tls,
    systemId,
    password,
  };
}
