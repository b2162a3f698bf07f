// For `npx playwright test` from the repository root: the gate's config lives beside its suites in suites/
// (built into dist/suites/, which `h2h contract` runs).
export { default } from './suites/playwright.config.ts';
