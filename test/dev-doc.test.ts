import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { developmentPage, foldersToDescribe, layoutSection } from '../scripts/dev-doc.ts';
import { ROOT } from './helpers.ts';

describe('docs/development.md', () => {
  it('its layout is the tree as it is now (npm run docs:dev writes it)', () => {
    assert.equal(readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8'), developmentPage());
  });

  it('names every folder of src/ and every file of src/shared/, and no folder that is gone', () => {
    const layout = layoutSection();
    for (const d of foldersToDescribe()) assert.match(layout, new RegExp(`^${d}`, 'm'), d);
    assert.match(layout, /settings\.ts/);
    assert.doesNotMatch(layout, /^src\/gate\//m);
  });
});
