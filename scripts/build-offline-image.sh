#!/usr/bin/env bash
# Builds the task container image without pulling anything from a registry (DESIGN 3): a Debian minbase root file
# system from debootstrap plus git and the host's node binary, imported with `podman import` into the store of the
# rootless account. The image carries a label with the hash of its recipe (this script, the package list and the
# node version); when the stored image has the same hash nothing is rebuilt, so the ~40 s build happens once per
# recipe change.
#
#   build-offline-image.sh [TAG]      TAG defaults to $CONTAINER_IMAGE or service-dev:latest
#   SERVICE_PODMAN_USER               the rootless account (default service-podman; ignored when not root)
#   SERVICE_IMAGE_MIRROR              Debian mirror (default http://deb.debian.org/debian)
#   SERVICE_IMAGE_FORCE=1             rebuild even when the recipe is unchanged
#   SERVICE_IMAGE_NODE                the node binary copied into the image (default: the first node on PATH);
#                                     scripts/test-on-node.sh keeps the machine's here, so testing the service on
#                                     another Node line neither rebuilds the image nor changes the agent's node
set -euo pipefail

tag="${1:-${CONTAINER_IMAGE:-service-dev:latest}}"
account="${SERVICE_PODMAN_USER:-service-podman}"
mirror="${SERVICE_IMAGE_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
packages="git,ca-certificates,ripgrep,procps,make,patch,less"
node_bin="${SERVICE_IMAGE_NODE:-$(command -v node)}"
node_version="$("$node_bin" --version)"

recipe_hash="$( { cat "$0"; echo "$suite $packages $mirror $node_version"; } | sha256sum | cut -c1-16)"

podman_as_account() {
  if [ "$(id -u)" -eq 0 ]; then
    local home uid
    home="$(getent passwd "$account" | cut -d: -f6)"
    uid="$(id -u "$account")"
    (cd / && runuser -u "$account" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$home" XDG_RUNTIME_DIR="/tmp/$account-runtime-$uid" podman "$@")
  else
    podman "$@"
  fi
}

current="$(podman_as_account image inspect --format '{{ index .Labels "service.recipe" }}' "$tag" 2>/dev/null || true)"
if [ "$current" = "$recipe_hash" ] && [ "${SERVICE_IMAGE_FORCE:-}" != "1" ]; then
  echo "image $tag is up to date (recipe $recipe_hash)"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "building the offline image needs root (debootstrap); run: sudo $0 $tag" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is missing: run scripts/setup-rootless-podman.sh first" >&2; exit 1; }

work="$(mktemp -d /var/tmp/service-image.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
echo "building $tag (recipe $recipe_hash): debootstrap $suite minbase + $packages + node $node_version"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  echo "debootstrap failed (see the lines above); is $mirror reachable?" >&2
  exit 1
}
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
# The agent and its tools run as root inside the user namespace, which is the unprivileged account outside.
mkdir -p "$root/workspace" "$root/opt/service" "$root/run/service"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
printf 'service offline image %s\n' "$recipe_hash" > "$root/etc/service-image"

tar -C "$root" -cf "$work/rootfs.tar" .
chmod 0644 "$work/rootfs.tar"
chmod 0755 "$work"
podman_as_account import --quiet \
  --change 'ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV HOME=/root' \
  --change 'WORKDIR /workspace' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL service.recipe=$recipe_hash" \
  "$work/rootfs.tar" "$tag" >/dev/null
echo "image $tag built (recipe $recipe_hash)"
