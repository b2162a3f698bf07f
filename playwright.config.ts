import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { configFromEnv } from './src/gate/config.ts';
import { WORKERS } from './suites/workers.ts';

// The contract gate. `h2h contract` resolves and validates the config and passes it in H2H_CONTRACT_CONFIG;
// `npx playwright test` resolves it here from the same H2H_* environment (src/gate/handover.ts lists them).
const cfg = configFromEnv();
const reports = cfg.reportsDir;

export default defineConfig({
  testDir: './suites',
  outputDir: join(reports, 'test-results'),
  globalSetup: './suites/global-setup.ts',
  fullyParallel: true,
  workers: WORKERS,
  // Never retried by Playwright: a read is tried once more inside the gate's sender, an invite never.
  retries: 0,
  // Each test sets its own timeout from its scenarios (suites/fixtures.ts); this is the floor.
  timeout: 60_000,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['html', { outputFolder: join(reports, 'html'), open: 'never' }],
    // contract-summary.json/.md and junit.xml (one test case per scenario).
    ['./src/gate/summary-reporter.ts', { outputDir: reports }],
  ],
  // The invite file runs in order in one worker and is the longest: as its own project, listed first, it starts
  // at once beside the read-only files instead of after them.
  projects: [
    { name: 'invites', testMatch: /invite\.spec\.ts$/ },
    { name: 'reads', testIgnore: /invite\.spec\.ts$/ },
  ],
  use: {
    // Traces and screenshots would record URLs with the key in them; the suite attaches redacted exchanges instead.
    trace: 'off',
    screenshot: 'off',
    video: 'off',
    extraHTTPHeaders: { accept: 'application/json' },
  },
});
