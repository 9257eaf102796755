#!/usr/bin/env bash
# Builds the container image from the Dockerfile as committed and runs it as its non-root user
# (uid 1000): --version; check and sync against the sandbox on the host into a named volume; a
# second sync that resumes (fewer requests); `load` and Parquet output as the optional
# dependencies allow; a `plan` of holidays from a calendar source (date-holidays); the daemon
# with the image's HEALTHCHECK command run and a clean SIGTERM stop (exit 0). Reports the image size and what makes up /opt/helpdesk-sync.
#
# Engines: buildah (chroot isolation, vfs storage) and podman with runc, as root; no Docker daemon.
# `--install-tools` installs them first (Debian: buildah podman runc debootstrap). Where
# node:24-bookworm-slim cannot be pulled, a stand-in base is made (scripts/image-base.sh) and
# cached under $HELPDESK_SYNC_CI_CACHE/image-base.
# Needs the connector built (`npm run build`) for the host's sandbox.
#
# Exit: 0 passed; 1 failed; 3 NOT RUN (no tools, not root), said plainly on the last line.
# Settings: IMAGE_TEST_BASE (a base image to use as is), IMAGE_TEST_OMIT (npm --omit list for
# the install stage, default "dev optional", the Dockerfile's default; "dev" adds DuckDB for `load`).
set -uo pipefail
cd "$(dirname "$0")/.."

CACHE="${HELPDESK_SYNC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helpdesk-sync-ci}"
IMAGE=localhost/helpdesk-sync:image-test
OMIT="${IMAGE_TEST_OMIT:-dev optional}"
RUN=(run --network host --ulimit nofile=20000:20000 --ulimit nproc=32768:32768)
start=$SECONDS
NAME=image
# shellcheck source=scripts/container-tools.sh
. scripts/container-tools.sh
[ -f dist/cli/main.js ] || not_run "dist/ is missing: run npm run build first"

work=$(mktemp -d) && chmod 755 "$work"
volume="hs-image-test-$$"
sandbox_pid=
cleanup() {
  "${PODMAN[@]}" rm -f -t 0 hs-image-test-daemon >/dev/null 2>&1
  "${PODMAN[@]}" volume rm -f "$volume" >/dev/null 2>&1
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The base: the real one when it can be pulled, else the cached stand-in.
base="${IMAGE_TEST_BASE:-}"
if [ -z "$base" ]; then
  if timeout 120 buildah pull --quiet docker.io/library/node:24-bookworm-slim >/dev/null 2>&1; then
    base=docker.io/library/node:24-bookworm-slim
  else
    say "node:24-bookworm-slim cannot be pulled: using a local stand-in"
    base=$(IMAGE_BASE_CACHE="$CACHE/image-base" scripts/image-base.sh) || fail "could not make the stand-in base"
  fi
fi
say "building from $base (npm --omit: $OMIT)"
build_start=$SECONDS
# Docker format: the OCI format has no HEALTHCHECK. --layers: a warm build reuses npm ci.
buildah bud --format docker --layers --network host --build-arg NODE_IMAGE="$base" \
  --build-arg NPM_OMIT="$OMIT" -t "$IMAGE" . >&2 || fail "the image did not build"
say "built in $((SECONDS - build_start)) s"

# Sizes: the image, its base, and what makes up /opt/helpdesk-sync.
size=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")
base_size=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$base")
say "image $((size / 1000000)) MB, base $((base_size / 1000000)) MB, added $(((size - base_size) / 1000000)) MB"
"${PODMAN[@]}" "${RUN[@]}" --rm --entrypoint sh "$IMAGE" -c \
  'du -sh /opt/helpdesk-sync; cd /opt/helpdesk-sync/lib/node_modules/helpdesk-sync/node_modules && du -sh $(ls -d * @*/*) | sort -h | tail -n 12' >&2

version=$("${PODMAN[@]}" "${RUN[@]}" --rm "$IMAGE" --version) || fail "--version"
[ "$version" = "$(node -p 'require("./package.json").version')" ] || fail "--version printed '$version'"
uid=$("${PODMAN[@]}" "${RUN[@]}" --rm --entrypoint id "$IMAGE" -u) || fail "id -u"
[ "$uid" = 1000 ] || fail "the image runs as uid $uid, not 1000"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
api_port=$(free_port) && health_port=$(free_port) || fail "no free port"
node dist/cli/main.js sandbox --port "$api_port" --seed 7 --conversations 20 --rate-limit 1000000 >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
for _ in $(seq 1 50); do grep -q listening "$work/sandbox.log" && break; sleep 0.2; done
grep -q listening "$work/sandbox.log" || fail "the sandbox did not start: $(cat "$work/sandbox.log")"

mkdir -p "$work/config" && cat >"$work/config/helpdesk-sync.yaml" <<EOF
source:
  base_url: http://127.0.0.1:$api_port/v1
  token: \${HELPDESK_TOKEN}
  rate_limit: { requests_per_minute: 100000 }
destination: { type: local, path: ./out }
state: { path: ./state/state.sqlite }
schedule: { sync: "0 0 1 1 *" }
metrics: { listen: "127.0.0.1:$health_port" }
EOF
# The same with Parquet data files, in their own output and state.
sed -e 's|path: ./out }|path: ./parquet-out, format: parquet }|' -e 's|./state/state.sqlite|./parquet-state/state.sqlite|' \
  "$work/config/helpdesk-sync.yaml" >"$work/config/parquet.yaml"
# Hours and holidays as code: a calendar source, planned against the sandbox (its own state).
sed -e 's|./state/state.sqlite|./push-state/state.sqlite|' "$work/config/helpdesk-sync.yaml" >"$work/config/push.yaml"
printf 'push:\n  holidays: ./config/holidays.yaml\n' >>"$work/config/push.yaml"
printf 'calendar:\n  country: DE\n  region: BY\n  years: [2027]\n' >"$work/config/holidays.yaml"
chmod -R a+rX "$work/config"
"${PODMAN[@]}" volume create "$volume" >/dev/null || fail "podman volume create"
# As in docs/containers.md: the config read-only at /data/config, state and output in the volume.
mounts=(-v "$volume:/data" -v "$work/config:/data/config:ro" -e HELPDESK_TOKEN=sandbox-admin)
sync_run() { "${PODMAN[@]}" "${RUN[@]}" --rm "${mounts[@]}" "$IMAGE" "$@"; }

sync_run check >&2 || fail "check"
first=$(sync_run sync) || fail "sync: $first"
second=$(sync_run sync) || fail "second sync: $second"
requests() { sed -n 's/^ *requests \([0-9]*\).*/\1/p' <<<"$1" | head -n 1; }
r1=$(requests "$first") r2=$(requests "$second")
say "first sync: $r1 requests; second (resumed): $r2 requests"
[ -n "$r1" ] && [ -n "$r2" ] && [ "$r2" -lt "$r1" ] || fail "the second sync did not resume (requests '$r1' then '$r2')"
# `load` into DuckDB: loads where the optional bindings are in the image, else says plainly they are not.
loaded=$(sync_run load --into duckdb:/data/helpdesk.duckdb 2>&1)
load_code=$?
if [[ " $OMIT " == *" optional "* ]]; then
  [ "$load_code" = 1 ] && grep -q LOAD_DRIVER_MISSING <<<"$loaded" ||
    fail "load into DuckDB without its bindings: exit $load_code, expected 1 with LOAD_DRIVER_MISSING: $loaded"
  say "load into DuckDB: LOAD_DRIVER_MISSING (built without optional dependencies), as documented"
else
  [ "$load_code" = 0 ] || fail "load into DuckDB: exit $load_code: $loaded"
  say "load into DuckDB: loaded"
fi
# Parquet output: written where DuckDB is in the image, else a config error (exit 64) before any request.
parquet=$(sync_run sync --config /data/config/parquet.yaml 2>&1)
parquet_code=$?
if [[ " $OMIT " == *" optional "* ]]; then
  [ "$parquet_code" = 64 ] && grep -q 'destination.format' <<<"$parquet" ||
    fail "sync with format: parquet without DuckDB: exit $parquet_code, expected 64 naming destination.format: $parquet"
  say "sync with format: parquet: configuration error naming DuckDB (built without optional dependencies), as documented"
else
  [ "$parquet_code" = 0 ] || fail "sync with format: parquet: exit $parquet_code: $parquet"
  say "sync with format: parquet: written"
fi
# Holidays from a calendar source: date-holidays and its astronomy tables, as the image keeps them.
plan=$(sync_run plan --config /data/config/push.yaml --detailed-exitcode 2>&1)
plan_code=$?
[ "$plan_code" = 2 ] && grep -q 'de-by-2027-neujahr' <<<"$plan" ||
  fail "plan of a calendar source (DE-BY 2027): exit $plan_code, expected 2 with de-by-2027-neujahr: $plan"
say "plan of a calendar source: $(grep -c 'de-by-2027-' <<<"$plan") holidays of DE-BY 2027 to create"
state_mode=$("${PODMAN[@]}" "${RUN[@]}" --rm "${mounts[@]}" --entrypoint stat "$IMAGE" -c '%a %u' state/state.sqlite) ||
  fail "no state file in the volume"
[ "$state_mode" = "600 1000" ] || fail "state file mode/owner '$state_mode', expected '600 1000'"

"${PODMAN[@]}" "${RUN[@]}" -d --name hs-image-test-daemon -e HELPDESK_SYNC_HEALTH_PORT="$health_port" \
  "${mounts[@]}" "$IMAGE" daemon >/dev/null 2>"$work/daemon-start.log" || fail "the daemon did not start: $(cat "$work/daemon-start.log")"
healthy=
for _ in $(seq 1 60); do
  if "${PODMAN[@]}" healthcheck run hs-image-test-daemon >/dev/null 2>&1; then healthy=1 && break; fi
  sleep 1
done
[ -n "$healthy" ] || fail "the HEALTHCHECK command never passed: $("${PODMAN[@]}" logs hs-image-test-daemon 2>&1 | tail -n 5)"
"${PODMAN[@]}" stop -t 30 hs-image-test-daemon >/dev/null || fail "podman stop"
code=$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' hs-image-test-daemon)
[ "$code" = 0 ] || fail "the daemon exited $code on SIGTERM"

echo "image test: passed in $((SECONDS - start)) s (image $((size / 1000000)) MB, $(((size - base_size) / 1000000)) MB above the base)"
