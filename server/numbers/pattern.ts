// Draws digit strings that match a libphonenumber number pattern (digits, \d, [..] classes, (?:..|..) groups,
// ?, {n} and {n,m}), so the inventory can find the ranges a numbering plan allows without a hand-made list.
import type { Random } from './random.js';

type Node =
  | { t: 'digits'; set: string }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

export class PatternSampler {
  private readonly root: Node;

  constructor(readonly source: string) {
    const parser = new Parser(source);
    this.root = parser.alternation();
    if (!parser.done()) throw new Error(`unsupported number pattern ${source}`);
  }

  sample(random: Random): string {
    return generate(this.root, random);
  }
}

function generate(node: Node, random: Random): string {
  switch (node.t) {
    case 'digits':
      return node.set[random.int(node.set.length)];
    case 'seq':
      return node.items.map((item) => generate(item, random)).join('');
    case 'alt':
      return generate(node.options[random.int(node.options.length)], random);
    case 'rep': {
      // Favour the shortest form: the usual length of a range is its minimum (e.g. 0800 + 7 digits in DE).
      const count = random.int(2) === 0 ? node.min : node.min + random.int(node.max - node.min + 1);
      let out = '';
      for (let i = 0; i < count; i++) out += generate(node.node, random);
      return out;
    }
  }
}

const ALL_DIGITS = '0123456789';

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i === this.s.length;
  }

  alternation(): Node {
    const options = [this.sequence()];
    while (this.s[this.i] === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { t: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')')
      items.push(this.quantified(this.atom()));
    return items.length === 1 ? items[0] : { t: 'seq', items };
  }

  private atom(): Node {
    const c = this.s[this.i];
    if (c >= '0' && c <= '9') {
      this.i++;
      return { t: 'digits', set: c };
    }
    if (c === '\\' && this.s[this.i + 1] === 'd') {
      this.i += 2;
      return { t: 'digits', set: ALL_DIGITS };
    }
    if (c === '[') return this.charClass();
    if (c === '(') {
      this.i += this.s.startsWith('(?:', this.i) ? 3 : 1;
      const inner = this.alternation();
      this.expect(')');
      return inner;
    }
    throw new Error(`unsupported number pattern ${this.s} at ${this.i}`);
  }

  private charClass(): Node {
    this.expect('[');
    let set = '';
    while (this.s[this.i] !== ']') {
      if (this.i >= this.s.length) throw new Error(`unterminated class in ${this.s}`);
      if (this.s.startsWith('\\d', this.i)) {
        this.i += 2;
        set += ALL_DIGITS;
      } else if (this.s[this.i + 1] === '-' && this.s[this.i + 2] !== ']') {
        for (let d = this.s.charCodeAt(this.i); d <= this.s.charCodeAt(this.i + 2); d++) set += String.fromCharCode(d);
        this.i += 3;
      } else set += this.s[this.i++];
    }
    this.i++;
    return { t: 'digits', set: [...new Set(set)].join('') };
  }

  private quantified(node: Node): Node {
    const c = this.s[this.i];
    if (c === '?') {
      this.i++;
      return { t: 'rep', node, min: 0, max: 1 };
    }
    if (c === '{') {
      const m = /^\{(\d+)(?:,(\d+))?\}/.exec(this.s.slice(this.i));
      if (!m) throw new Error(`unsupported quantifier in ${this.s}`);
      this.i += m[0].length;
      const min = Number(m[1]);
      return { t: 'rep', node, min, max: m[2] === undefined ? min : Number(m[2]) };
    }
    return node;
  }

  private expect(c: string): void {
    if (this.s[this.i] !== c) throw new Error(`expected ${c} in ${this.s} at ${this.i}`);
    this.i++;
  }
}
