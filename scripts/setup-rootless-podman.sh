#!/usr/bin/env bash
# Prepares rootless podman for the worker (DESIGN 3): installs podman and friends from Debian when missing and, when
# run as root, creates the unprivileged account the worker runs containers as, with subordinate uid/gid ranges.
# Idempotent and quiet: safe to run at every CI start and before `service dev`.
#
#   SERVICE_PODMAN_USER   account name (default service-podman); the worker reads the same variable
#   SERVICE_PODMAN_SKIP_INSTALL=1  do not call apt-get (only the account)
set -euo pipefail

account="${SERVICE_PODMAN_USER:-service-podman}"

if [ "$(id -u)" -ne 0 ]; then
  # A non-root worker runs podman as itself: it needs podman on PATH and subordinate ids of its own.
  command -v podman >/dev/null 2>&1 || { echo "rootless podman: podman is not installed; as root run: apt-get install podman runc slirp4netns uidmap" >&2; exit 1; }
  grep -q "^$(id -un):" /etc/subuid 2>/dev/null || echo "rootless podman: $(id -un) has no range in /etc/subuid; as root run: usermod --add-subuids 100000-165535 --add-subgids 100000-165535 $(id -un)" >&2
  exit 0
fi

if [ "${SERVICE_PODMAN_SKIP_INSTALL:-}" != "1" ]; then
  missing=()
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  command -v slirp4netns >/dev/null 2>&1 || missing+=(slirp4netns)
  command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# A system account with a home (podman keeps its image store under ~/.local/share/containers) and no login shell.
if ! id -u "$account" >/dev/null 2>&1; then
  useradd --system --create-home --home-dir "/var/lib/$account" --shell /usr/sbin/nologin "$account"
fi
home="$(getent passwd "$account" | cut -d: -f6)"

# 65536 subordinate ids, placed after every range already handed out so two accounts never share one.
for file in /etc/subuid /etc/subgid; do
  touch "$file"
  if ! grep -q "^$account:" "$file"; then
    start="$(awk -F: 'BEGIN { next_start = 200000 } { end = $2 + $3; if (end > next_start) next_start = end } END { print next_start }' "$file")"
    echo "$account:$start:65536" >> "$file"
  fi
done

# podman wants a runtime directory owned by the account; there is no login session (systemd) to make one.
uid="$(id -u "$account")"
runtime_dir="/tmp/$account-runtime-$uid"
install -d -m 0700 -o "$account" -g "$account" "$runtime_dir"

# runc instead of crun (crun fails on the hybrid cgroup hosts we run on); cgroupfs since there is no user systemd.
config_dir="$home/.config/containers"
install -d -m 0755 -o "$account" -g "$account" "$home/.config" "$config_dir"
cat > "$config_dir/containers.conf.new" <<CONF
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
if ! cmp -s "$config_dir/containers.conf.new" "$config_dir/containers.conf" 2>/dev/null; then
  mv "$config_dir/containers.conf.new" "$config_dir/containers.conf"
  chown "$account:$account" "$config_dir/containers.conf"
  # New ranges or a new runtime take effect only after podman re-reads them.
  runuser -u "$account" -- env HOME="$home" XDG_RUNTIME_DIR="$runtime_dir" podman system migrate >/dev/null 2>&1 || true
else
  rm -f "$config_dir/containers.conf.new"
fi
