#!/usr/bin/env bash
# npm test: Biome; the type check beside the build; then every test under test/, as the JavaScript the build wrote.
#
# The build compiles src/, suites/, test/, bench/ and scripts/ into dist/ (tsconfig.test.json, without a second type
# check: `tsc --noEmit` beside it checks the same files). The tests then run compiled, as the CLI and the package
# do: under tsx each test process spent about 0.7 CPU-seconds compiling before its first test, and every closure
# paid tsx's name-keeping wrapper (docs/benchmarks.md). One test from its source:
#   node --import tsx --test test/x.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/.bin:$PATH"

biome check .
tsc --noEmit &
check=$!
# A test deleted from test/ leaves no compiled copy behind to run.
rm -rf dist/test
tsc -p tsconfig.test.json --noCheck
node scripts/copy-assets.mjs
wait "$check"
# --no-maglev: the test processes inherit it (on Node 20 it is off already). On Node 24 a file of in-process gate
# runs takes 5 % less CPU without V8's mid-tier compiler, and the test processes stay clear of Node's shutdown
# deadlock with a Maglev job in flight (nodejs/node#54918), as h2h contract keeps Playwright's processes clear of it.
# The longest files first (each alone 40 to 200 s: in-process gate runs, a rate-limited provider), the rest after
# in name order: four at a time on two cores, the run then ends on short files, not on a long one begun late.
first=(fidelity at-users-providers gate-verdicts mutation mutation-boundaries legal-readings mutation-shared gate probe
  reading docs-run simulator leaks init)
files=()
for f in "${first[@]}"; do [ -e "dist/test/$f.test.js" ] && files+=("dist/test/$f.test.js"); done
for f in dist/test/*.test.js; do [[ " ${files[*]} " == *" $f "* ]] || files+=("$f"); done
# Every process the tests start keeps V8's compiled code in one folder (as h2h does in its TMPDIR, compile-cache.ts):
# hundreds of processes load the same modules.
export NODE_COMPILE_CACHE="$PWD/node_modules/.cache/h2h-test-compile-cache"
exec node --no-maglev --test --test-concurrency=4 --test-reporter=spec "${files[@]}"
