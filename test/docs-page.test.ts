import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from '@playwright/test';
import { assumptions } from '../src/docs/enrich.ts';
import { loadApiModel } from '../src/openapi/load.ts';
import { CLAUSE_IDS } from '../src/openapi/types.ts';
import { ROOT, runCli } from './helpers.ts';

// The reference page in a real Chromium (Debian's: Playwright's browser download cannot work here), with every
// request that is not to the page's own file blocked, so it is proved to render offline.
const CHROMIUM = '/usr/bin/chromium';
const OUT = join(ROOT, 'reports', 'docs');

describe('the docs page in a real browser, offline', () => {
  let browser: Browser;
  let page: Page;
  const blocked: string[] = [];
  const api = loadApiModel();
  const url = pathToFileURL(join(OUT, 'index.html')).href;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), 'Debian chromium is installed (.ci/run installs it)');
    const r = await runCli(['docs', '--out', OUT]);
    assert.equal(r.code, 0, r.stderr);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.route('**/*', (route) => {
      const u = route.request().url();
      if (
        u.startsWith('file:') ||
        u.startsWith('data:') ||
        u.startsWith('blob:') ||
        /^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(u)
      )
        return route.continue();
      blocked.push(u);
      return route.abort();
    });
  });
  after(() => browser?.close());

  /** What a reader sees: the page scrolled from top to bottom, its rendered text gathered on the way. */
  async function readWholePage(): Promise<string> {
    let text = '';
    let last = -1;
    for (let i = 0; i < 300; i++) {
      // innerText, not textContent: only what is rendered, as a reader sees it.
      // biome-ignore lint/performance/useDomNodeTextContent: visibility is the point
      text += await page.evaluate(() => document.body.innerText);
      const y = await page.evaluate(() => {
        window.scrollBy(0, 800);
        return window.scrollY;
      });
      if (y === last) break;
      last = y;
      // Redoc renders on scroll: wait for two frames, so the next read sees what this scroll rendered.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    return text;
  }

  it('shows every endpoint on both methods, every alias, every assumption and every clause id', async () => {
    await page.goto(url);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    let seen = await readWholePage();
    for (const op of api.operations.values()) {
      for (const method of ['GET', 'POST'] as const) {
        const o = op.operations[method];
        await page.goto(`${url}#/${o.tags?.[0]}/${o.operationId?.toLowerCase()}`);
        await page
          .getByRole('heading', { name: o.summary ?? '' })
          .first()
          .waitFor();
        const text = await readWholePage();
        assert.ok(text.includes(op.path), `${method} ${op.path} is shown`);
        for (const p of op.params)
          for (const a of p.aliases) assert.ok(text.includes(a), `${method} ${op.path}: alias ${a} of ${p.name}`);
        seen += text;
      }
    }
    const plain = (s: string): string => s.replace(/`/g, '');
    for (const a of assumptions(api.doc)) assert.ok(seen.includes(plain(a.text)), `assumption at ${a.at}: ${a.text}`);
    for (const id of CLAUSE_IDS) assert.ok(seen.includes(id), `clause ${id}`);
  });

  it('renders with every non-local request blocked, and saves a screenshot of the reference', async () => {
    // The page loads no script or style from the network: whatever it asked for was blocked, and it rendered.
    assert.ok(
      blocked.every((u) => !/\.(js|css)(\?|$)/.test(u)),
      `blocked: ${blocked.join(', ')}`,
    );
    await page.goto(`${url}#/history/historytransaksiget`);
    await page.getByRole('heading', { name: 'Transaction history (GET)' }).first().waitFor();
    await page.getByText('Transaction history (POST)').first().waitFor();
    const shot = join(OUT, 'screenshot.png');
    await page.screenshot({ path: shot });
    assert.ok(statSync(shot).size > 20_000, 'a real picture, not a blank page');
  });
});
