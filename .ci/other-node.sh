#!/usr/bin/env bash
# Beside the Node every test ran on (24 LTS, the target: .ci/run): the machine's own Node (MACHINE_NODE; 20 on the
# standard machine) and Node 22 run the unit tests, one gate and one probe round each; Node 24 runs the unit tests
# once more with --throw-deprecation, so nothing deprecated there is used. Node 22 (and 24 when NODE24 does not
# name its binary) comes from the npm registry (.ci/node.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

UNIT=(test/checks.test.ts test/openapi.test.ts test/redact.test.ts test/settings.test.ts test/generators.test.ts
  test/probe-reading.test.ts test/gate-plan.test.ts test/client.test.ts test/architecture.test.ts)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# The unit tests on one Node; with "full", one gate and one probe round too. Everything it prints goes to its own
# log, shown whole once it is done.
one() {
  local label=$1 node_bin=$2 what=$3
  shift 3
  echo "ci: Node $("$node_bin" --version) ($label): unit tests"
  "$node_bin" "$@" --import tsx --test --test-reporter=dot "${UNIT[@]}"
  [ "$what" = full ] || return 0
  echo "ci: Node $("$node_bin" --version) ($label): one gate (h2h contract, embedded simulator)"
  H2H_BASE_URL='' H2H_API_KEY='' "$node_bin" dist/src/cli/main.js contract --reports-dir "$dir/reports-$label" >"$dir/gate-$label.log" 2>&1 \
    || { tail -40 "$dir/gate-$label.log"; return 1; }
  tail -3 "$dir/gate-$label.log"
  echo "ci: Node $("$node_bin" --version) ($label): one probe round (h2h probe --once against h2h mock)"
  "$node_bin" dist/src/cli/main.js mock --listen 127.0.0.1:0 >"$dir/mock-$label.log" 2>&1 &
  local mock=$!
  for _ in $(seq 100); do grep -q '^H2H_BASE_URL=' "$dir/mock-$label.log" && break; sleep 0.1; done
  url=$(sed -n 's/^H2H_BASE_URL=//p' "$dir/mock-$label.log")
  key=$(sed -n 's/^H2H_API_KEY=//p' "$dir/mock-$label.log")
  local status=0
  "$node_bin" dist/src/cli/main.js probe --once --base-url "$url" --api-key "$key" || status=$?
  kill "$mock"
  wait "$mock" 2>/dev/null || true
  return "$status"
}

machine="${MACHINE_NODE:-$(command -v node)}"
node22="$(bash .ci/node.sh 22 "$dir")/node"
node24="${NODE24:-$(bash .ci/node.sh 24 "$dir")/node}"

# All at once: each is mostly one process at a time, and the runner has two cores.
one machine "$machine" full >"$dir/machine.log" 2>&1 &
pm=$!
one 22 "$node22" full >"$dir/node-22.log" 2>&1 &
p22=$!
one 24 "$node24" unit --throw-deprecation >"$dir/node-24.log" 2>&1 &
p24=$!
sm=0 s22=0 s24=0
wait "$pm" || sm=$?
wait "$p22" || s22=$?
wait "$p24" || s24=$?
cat "$dir/machine.log" "$dir/node-22.log" "$dir/node-24.log"
[ "$sm" = 0 ] || { echo "ci: the machine's Node failed ($sm)"; exit "$sm"; }
[ "$s22" = 0 ] || { echo "ci: Node 22 failed ($s22)"; exit "$s22"; }
[ "$s24" = 0 ] || { echo "ci: Node 24 failed ($s24)"; exit "$s24"; }
