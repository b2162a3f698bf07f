// For `npx playwright test` from the repository root: the gate's config lives beside its suites in src/gate/
// (built into dist/gate/, which `h2h contract` runs).
export { default } from './src/gate/playwright.config.ts';
