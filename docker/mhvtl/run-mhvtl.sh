#!/bin/sh
# Runs mhVTL without systemd: creates the media of library_contents.* once, then starts one daemon per
# Library: and Drive: entry of /etc/mhvtl/device.conf and waits. Needs the mhvtl kernel module on the host.
set -eu
CONF=/etc/mhvtl
[ -e /dev/mhvtl0 ] || grep -q '^mhvtl ' /proc/modules || {
  echo "run-mhvtl: the mhvtl kernel module is not loaded on the Docker host (see docker/README.md)" >&2; exit 1; }
[ -f "$CONF/device.conf" ] || { echo "run-mhvtl: $CONF/device.conf missing" >&2; exit 1; }
mkdir -p /opt/mhvtl
if [ -z "$(ls -A /opt/mhvtl 2>/dev/null)" ]; then
  make_vtl_media --config-dir="$CONF" --home-dir=/opt/mhvtl --force
fi
pids=""
for q in $(awk '/^Library:/ {print $2}' "$CONF/device.conf"); do vtllibrary -q "$q" & pids="$pids $!"; done
for q in $(awk '/^Drive:/ {print $2}' "$CONF/device.conf"); do vtltape -q "$q" & pids="$pids $!"; done
trap 'kill $pids 2>/dev/null' TERM INT
sleep 3
lsscsi -g || true
wait
