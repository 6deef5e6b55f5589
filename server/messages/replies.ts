// The reply an inbound-message webhook may answer with: JSON {"reply": "text"} (or {"reply": {"body", "media_url"}}),
// or TwiML <Response><Message>text</Message></Response> (with optional <Body> and <Media> children).
export interface Reply {
  body: string;
  mediaUrls: string[];
}

export function parseReplies(body: string, contentType: string): Reply[] {
  const text = body.trim();
  if (!text) return [];
  if (/json/i.test(contentType) || text.startsWith('{')) return fromJson(text);
  if (/xml/i.test(contentType) || text.startsWith('<')) return fromTwiml(text);
  return [];
}

function fromJson(text: string): Reply[] {
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const reply = parsed?.reply;
  if (typeof reply === 'string') return reply ? [{ body: reply, mediaUrls: [] }] : [];
  if (reply && typeof reply === 'object') {
    const body = typeof reply.body === 'string' ? reply.body : '';
    const media = Array.isArray(reply.media_url)
      ? reply.media_url.filter((u: unknown): u is string => typeof u === 'string')
      : [];
    return body || media.length ? [{ body, mediaUrls: media }] : [];
  }
  return [];
}

function fromTwiml(text: string): Reply[] {
  const response = /<Response\b[^>]*>([\s\S]*?)<\/Response>/i.exec(text);
  if (!response) return [];
  const replies: Reply[] = [];
  for (const match of response[1].matchAll(/<Message\b[^>]*>([\s\S]*?)<\/Message>/gi)) {
    const inner = match[1];
    const media = [...inner.matchAll(/<Media\b[^>]*>([\s\S]*?)<\/Media>/gi)].map((m) => unescapeXml(m[1].trim()));
    const bodyTag = /<Body\b[^>]*>([\s\S]*?)<\/Body>/i.exec(inner);
    const body = unescapeXml((bodyTag ? bodyTag[1] : inner.replace(/<Media\b[^>]*>[\s\S]*?<\/Media>/gi, '')).trim());
    if (body || media.length) replies.push({ body, mediaUrls: media });
  }
  return replies;
}

function unescapeXml(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}
