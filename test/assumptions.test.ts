// openapi.yaml says each assumption twice: as a rule (pattern, minLength, maxLength) and in words (x-assumption).
// The two must agree, and the code that checks the same values outside the document must use the same rule.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { MSISDN_PATTERN } from '../src/openapi/numbers.ts';
import { loadFixture } from '../src/simulator/fixtures.ts';
import { contractConfigOf, ROOT } from './helpers.ts';

interface Schema {
  type?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  'x-assumption'?: string;
}
const doc = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const schemas = doc.components.schemas;
const tmp = mkdtempSync(join(tmpdir(), 'h2h-assumptions-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The lengths from 1 to 40 of digit strings that a pattern takes after one of its prefixes. */
function digitLengths(pattern: string, prefixes: readonly string[]): number[] {
  const re = new RegExp(pattern);
  return Array.from({ length: 40 }, (_, i) => i + 1).filter((n) =>
    prefixes.some((p) => n >= p.length && re.test(p + '5'.repeat(n - p.length))),
  );
}

describe('the assumptions of openapi.yaml, as rules and as words', () => {
  it('every "N to M digits", "N to M characters" and "N characters" of an x-assumption is its schema\'s rule', () => {
    let checked = 0;
    for (const [name, s] of Object.entries(schemas)) {
      const text = s['x-assumption'];
      if (!text) continue;
      const digits = /(\d+) to (\d+) digits/.exec(text);
      if (digits) {
        const prefixes = (/the (\d+) or (\d+) prefix/.exec(text) ?? []).slice(1);
        assert.ok(s.pattern && prefixes.length, `${name}: digits are said, so a pattern and its prefixes are`);
        const lengths = digitLengths(s.pattern, prefixes);
        assert.deepEqual(
          [lengths[0], lengths.at(-1)],
          [Number(digits[1]), Number(digits[2])],
          `${name}: "${text}" against ${s.pattern}`,
        );
        assert.equal(lengths.length, Number(digits[2]) - Number(digits[1]) + 1, `${name}: every length between`);
        if (/digits only/i.test(text)) assert.ok(!new RegExp(s.pattern).test(`${prefixes[0]}12345a78`), name);
        checked++;
      }
      const chars = /(\d+) to (\d+) characters/.exec(text);
      if (chars) {
        assert.deepEqual([s.minLength, s.maxLength], [Number(chars[1]), Number(chars[2])], `${name}: "${text}"`);
        checked++;
      } else {
        const most = /(\d+) characters is assumed/.exec(text);
        if (most) {
          assert.equal(s.maxLength, Number(most[1]), `${name}: "${text}"`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 4, `${checked} assumptions checked`);
  });

  it("openapi.yaml's Msisdn pattern is the one rule: 9 to 14 digits after 08 or 62", () => {
    assert.equal(schemas.Msisdn?.pattern, MSISDN_PATTERN);
    assert.match(schemas.Msisdn?.['x-assumption'] ?? '', /9 to 14 digits/);
    assert.deepEqual(digitLengths(MSISDN_PATTERN, ['08', '62']), [9, 10, 11, 12, 13, 14]);
  });

  it('the gate (--msisdn) and the simulator (its fixtures) take 9 and 14 digits, and refuse 8 and 15', () => {
    const at = (n: number): string => `08${'1'.repeat(n - 2)}`;
    for (const n of [9, 14]) assert.deepEqual(contractConfigOf(['--msisdn', at(n)]).msisdns, [at(n)]);
    for (const n of [8, 15])
      assert.throws(
        () => contractConfigOf(['--msisdn', at(n)]),
        /is not an msisdn \(digits only, beginning with 08 or 62, 9 to 14 digits in all\)/,
      );
    const fixture = parse(readFileSync(join(ROOT, 'src', 'simulator', 'fixtures.yaml'), 'utf8')) as {
      suite: { msisdns: string[] };
    };
    const withNumber = (n: number): string => {
      const path = join(tmp, `fixture-${n}.yaml`);
      writeFileSync(path, stringify({ ...fixture, suite: { ...fixture.suite, msisdns: [at(n)] } }));
      return path;
    };
    for (const n of [9, 14]) assert.deepEqual(loadFixture(withNumber(n)).suite.msisdns, [at(n)]);
    for (const n of [8, 15]) assert.throws(() => loadFixture(withNumber(n)), /msisdns/);
  });
});
