// The base URL clients reach this server at, for the absolute links it hands out (a recording's `media_url`, the
// `RecordingUrl` of an instruction fetch): PUBLIC_URL, else the server's own address once it listens.
export class PublicUrl {
  private url: string;

  constructor(private readonly configured: string | null) {
    this.url = configured ?? '';
  }

  /** The server listens at `url` (no trailing slash): the base of links unless PUBLIC_URL says otherwise. */
  listeningAt(url: string): void {
    if (this.configured === null) this.url = url;
  }

  get value(): string {
    return this.url;
  }
}
