import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { configFromEnv } from '../src/run/config.js';
import { concurrencyOf, workersOf } from '../src/run/workers.js';

// The contract gate. `h2h contract` resolves and validates the config and passes it in H2H_CONTRACT_CONFIG;
// `npx playwright test` resolves it here from the same H2H_* environment (src/run/handover.ts lists them).
const cfg = configFromEnv();
const reports = cfg.reportsDir;
// Built, this file is dist/suites/playwright.config.js beside the JavaScript suites; in development, the TypeScript.
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  testDir: here('.'),
  testMatch: `**/*.spec${ext}`,
  outputDir: join(reports, 'test-results'),
  globalSetup: here(`./global-setup${ext}`),
  fullyParallel: true,
  // The requests in flight are held to --concurrency by the run's pace, not by the number of workers (workers.ts).
  workers: workersOf(concurrencyOf(cfg)),
  // Never retried by Playwright: a read is tried once more inside the gate's sender, an invite never.
  retries: 0,
  // Each test sets its own timeout from its scenarios (suites/fixtures.ts); this is the floor.
  timeout: 60_000,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['html', { outputFolder: join(reports, 'html'), open: 'never' }],
    // contract-summary.json/.md and junit.xml (one test case per scenario).
    [here(`./summary-reporter${ext}`), { outputDir: reports }],
  ],
  // The invite file runs in order in one worker and is the longest: as its own project, listed first, it starts
  // at once beside the read-only files instead of after them.
  projects: [
    { name: 'invites', testMatch: /invite\.spec\.[jt]s$/ },
    {
      name: 'reads',
      testMatch: `**/*.spec${ext}`,
      testIgnore: /invite\.spec\.[jt]s$/,
    },
  ],
  use: {
    // Traces and screenshots would record URLs with the key in them; the suite attaches redacted exchanges instead.
    trace: 'off',
    screenshot: 'off',
    video: 'off',
  },
});
