// The benchmark scenarios; each feature adds its own. A scenario gets a fresh server and prints table rows.
import type autocannon from 'autocannon';

export interface Target {
  url: string;
  apiKey: string;
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface BenchTools {
  load(options: autocannon.Options): Promise<Figures>;
  baseGet: Figures;
  basePost: Figures;
  row(name: string, figures: Figures, base?: Figures): string;
}

export interface Scenario {
  name: string;
  run(target: Target, tools: BenchTools): Promise<string[]>;
}

export const scenarios: Scenario[] = [
  {
    name: 'system',
    async run(target, { load, baseGet, row }) {
      const health = await load({ url: `${target.url}/healthz` });
      return [row('GET /healthz (public, validated)', health, baseGet)];
    },
  },
];
