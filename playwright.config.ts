import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { configFromEnv } from './src/suite/config.ts';

// The contract gate. `h2h contract` resolves and validates the config and passes it in H2H_CONTRACT_CONFIG;
// `npx playwright test` resolves it here from the same H2H_* environment.
const cfg = configFromEnv();
const reports = cfg.reportsDir;

export default defineConfig({
  testDir: './suites',
  outputDir: join(reports, 'test-results'),
  globalSetup: './src/suite/global-setup.ts',
  fullyParallel: true,
  workers: 2,
  // Transport errors are retried inside the fixture (once, marked flaky); a contract failure never is.
  retries: 0,
  timeout: 60_000,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['html', { outputFolder: join(reports, 'html'), open: 'never' }],
    ['junit', { outputFile: join(reports, 'junit.xml') }],
    ['./src/suite/reporter.ts', { outputDir: reports }],
  ],
  use: {
    // Set by the global setup when the embedded simulator serves the run. Requests use relative paths
    // (`api/saldo-user`) so a base URL with a path prefix keeps it.
    ...(process.env.H2H_BASE_URL ? { baseURL: `${process.env.H2H_BASE_URL.replace(/\/+$/, '')}/` } : {}),
    // Traces and screenshots would record URLs with the key in them; the suite attaches redacted exchanges instead.
    trace: 'off',
    screenshot: 'off',
    video: 'off',
    extraHTTPHeaders: { accept: 'application/json' },
  },
});
