import { GATE_RUN, INIT_FILES, JUNIT, KEY_ENV, REPORTS, SUMMARY_MD } from './init-files.js';
import type { Runner } from './init-runner.js';

// The CI jobs h2h init writes: GitHub Actions' workflow and GitLab CI's job, each running the gate on every change.

export function githubWorkflow(version: string, runner: Runner): string {
  const setup = runner.install
    ? ['          cache: npm', '      - run: npm ci']
    : [
        '          package-manager-cache: false',
        '      - name: Install h2h-contract',
        `        run: ${runner.installStep}`,
      ];
  return `# Written by h2h init (h2h-contract ${version}): the contract gate (h2h contract) on every push and pull request.
# Repository secrets (Settings > Secrets and variables > Actions): H2H_BASE_URL, your API's base URL, and
# ${KEY_ENV}, its key. Without H2H_BASE_URL the gate runs against its embedded simulator (a fork's pull request
# gets no secrets). Read-only unless ${INIT_FILES.gate} allows writes. Exit 1 a clause is violated, 2 usage or
# an unreachable target, 4 inconclusive (allow_inconclusive: true makes it 0).
# What it keeps: the job summary (${SUMMARY_MD}), a test report (${JUNIT}) and the artifact
# h2h-contract-reports (${REPORTS}/, the default of reports_dir: change both together).
name: h2h contract
on:
  push:
  pull_request:
  workflow_dispatch:
  # schedule:
  #   - cron: '17 6 * * *'  # daily: a provider can change without a release of yours
permissions:
  contents: read
  checks: write # the test report
concurrency:
  group: h2h-contract-\${{ github.ref }}
  cancel-in-progress: true
jobs:
  contract:
    name: h2h contract
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-node@v5
        with:
          node-version: 24
${setup.join('\n')}
      - name: Run the contract gate
        env:
          H2H_BASE_URL: \${{ secrets.H2H_BASE_URL }}
          ${KEY_ENV}: \${{ secrets.${KEY_ENV} }}
        run: ${runner.ci} ${GATE_RUN}
      - name: Contract summary
        if: always()
        run: |
          if [ -f ${SUMMARY_MD} ]; then cat ${SUMMARY_MD} >> "$GITHUB_STEP_SUMMARY"; fi
      - name: Test report
        if: always()
        # A pull request from a fork may not write checks: the report is then only in the artifact.
        continue-on-error: true
        uses: dorny/test-reporter@v2
        with:
          name: h2h contract clauses
          path: ${JUNIT}
          reporter: java-junit
          fail-on-error: false
          fail-on-empty: false
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v6
        with:
          name: h2h-contract-reports
          path: ${REPORTS}/
          if-no-files-found: ignore
`;
}

/** The GitLab job alone (what to add to a .gitlab-ci.yml that exists). */
export function gitlabJob(runner: Runner): string {
  return `h2h-contract:
  image: ${runner.git ? 'node:24' : 'node:24-slim'}
  stage: test
  timeout: 30m
  script:
    - ${runner.installStep}
    - ${runner.ci} ${GATE_RUN}
  artifacts:
    when: always
    expire_in: 30 days
    paths:
      - ${REPORTS}/
    reports:
      junit: ${JUNIT}
`;
}

export function gitlabCi(version: string, runner: Runner): string {
  return `# Written by h2h init (h2h-contract ${version}): the contract gate (h2h contract) in every pipeline.
# CI/CD variables (Settings > CI/CD > Variables): H2H_BASE_URL, your API's base URL, and ${KEY_ENV}, its key
# (masked; protected if only protected branches may reach the API). Without H2H_BASE_URL the gate runs against
# its embedded simulator. Read-only unless ${INIT_FILES.gate} allows writes. Exit 1 a clause is violated,
# 2 usage or an unreachable target, 4 inconclusive. The summary is in the job log; ${JUNIT} is the test
# report of the pipeline and merge request; ${REPORTS}/ is kept (the default of reports_dir: change both
# together), also when the gate fails.
${gitlabJob(runner)}`;
}
