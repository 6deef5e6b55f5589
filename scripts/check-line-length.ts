// Fails when a line of our TypeScript is over 120 characters: Prettier wraps code but not strings or comments.
import fs from 'node:fs';
import path from 'node:path';

const MAX = 120;
const FOLDERS = ['server', 'client', 'scripts', 'test'];
const root = path.join(import.meta.dirname, '..');
/** Written by tools, not by us: the client package's build output. */
const SKIPPED = new Set([path.join(root, 'client', 'dist')]);

function* sources(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(full)) yield* sources(full);
    } else if (/\.[cm]?[jt]s$/.test(entry.name)) yield full;
  }
}

const over: string[] = [];
for (const folder of FOLDERS) {
  for (const file of sources(path.join(root, folder))) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length > MAX) over.push(`${path.relative(root, file)}:${i + 1}: ${line.length} characters`);
      });
  }
}
if (over.length) {
  console.error(`${over.join('\n')}\n${over.length} lines over ${MAX} characters; wrap the string or comment by hand.`);
  process.exit(1);
}
