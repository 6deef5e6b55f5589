// `npm run docs:config`: writes docs/configuration.md, the settings reference, from the schema in server/config.ts.
import fs from 'node:fs';
import path from 'node:path';
import { RULES, SETTINGS } from '../server/config.js';

const root = path.resolve(import.meta.dirname, '..');
export const CONFIG_DOCS = 'docs/configuration.md';

/** The reference as `npm run docs:config` writes it. */
export function renderConfigDocs(): string {
  const settings = Object.values(SETTINGS);
  const lines = [
    '<!-- Generated from server/config.ts by `npm run docs:config`: edit the settings there, then run it. -->',
    '# Configuration',
    '',
    ...wrap(
      'All settings are environment variables, read once at start. A value that is not accepted, or a rule between ' +
        'settings that does not hold, stops the server with one message naming every problem. What the server ' +
        'exposes on GET /metrics is listed in [metrics.md](metrics.md).',
    ),
    '',
    '| Variable | Default |',
    '|---|---|',
    ...settings.map((s) => `| [\`${s.env}\`](#${s.env.toLowerCase()}) | ${s.default} |`),
    '',
    '## Rules between settings',
    '',
    'Checked once every value is valid on its own.',
    '',
    ...RULES.flatMap((r) => wrap(`- \`${r.rule}\`: ${r.why}.`, '  ')),
    '',
    '## Settings',
    ...settings.flatMap((s) => [
      '',
      `### \`${s.env}\``,
      '',
      ...wrap(s.description),
      '',
      ...wrap(`Default: ${s.default}. Accepts ${s.accepts}.`),
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** Breaks a paragraph into lines of at most 110 characters (markdown joins them again). */
function wrap(text: string, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (next.length > 110 && line) {
      lines.push(line);
      line = indent + word;
    } else line = next;
  }
  return [...lines, line];
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  fs.writeFileSync(path.join(root, CONFIG_DOCS), renderConfigDocs());
  console.log(`wrote ${CONFIG_DOCS}`);
}
