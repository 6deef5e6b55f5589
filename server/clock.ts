// Timestamps are ISO 8601 UTC strings with milliseconds everywhere (they sort as text in both databases).
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoIn(ms: number, from: number = Date.now()): string {
  return new Date(from + ms).toISOString();
}
