# Sourced by scripts/image-test.sh and scripts/bare-machine-test.sh: the container engines they use
# (buildah with chroot isolation and vfs storage, podman with runc, as root; no Docker daemon) and
# the checks before either runs. The sourcing script sets NAME (how its lines begin) and may add
# tools to EXTRA_TOOLS; `--install-tools` as its first argument installs the Debian packages first.
# It defines say, not_run (exit 3: NOT RUN, said plainly on the last line) and fail (exit 1).
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
# crun fails on these machines (hybrid cgroups, raising RLIMIT_NOFILE); runc works.
PODMAN=(podman --runtime runc --cgroup-manager cgroupfs --events-backend file)
TOOLS=(buildah podman runc debootstrap)
say() { echo "$NAME: $*" >&2; }
not_run() { echo "$NAME test: NOT RUN: $*"; exit 3; }
fail() { echo "$NAME test: FAILED: $*"; exit 1; }

if [ "${1:-}" = --install-tools ]; then
  [ "$(id -u)" -eq 0 ] || not_run "installing the tools needs root"
  apt-get install -y --no-install-recommends "${TOOLS[@]}" >&2 ||
    { apt-get update >&2 && apt-get install -y --no-install-recommends "${TOOLS[@]}" >&2; } ||
    not_run "apt-get could not install ${TOOLS[*]}"
fi
[ "$(id -u)" -eq 0 ] || not_run "needs root (buildah chroot isolation, podman with runc)"
for tool in "${TOOLS[@]}" ${EXTRA_TOOLS[@]+"${EXTRA_TOOLS[@]}"}; do
  command -v "$tool" >/dev/null || not_run "$tool is not installed (apt-get install ${TOOLS[*]}, or run with --install-tools)"
done
