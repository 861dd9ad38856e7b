#!/bin/sh
# Starts tapeq. Without /etc/tapeq/tapeq.yaml (none mounted), writes one for the SCSI devices this container
# sees: the first medium changer and every tape drive in lsscsi's order (mtx drive numbers are the changer's
# element order; check them as docs/scsi-backend.md says before trusting data to it).
set -eu
CONFIG=/etc/tapeq/tapeq.yaml
if [ ! -f "$CONFIG" ]; then
  mkdir -p /etc/tapeq
  changer=$(lsscsi -g | awk '$2 == "mediumx" {print $NF; exit}')
  [ -n "$changer" ] || { echo "tapeq-entrypoint: no medium changer visible (lsscsi -g); mount /dev and run privileged" >&2; exit 1; }
  {
    echo "directories:"
    echo "  - path: /srv/endit"
    echo "state: /var/lib/tapeq"
    echo "library:"
    echo "  backend: scsi"
    echo "  scsi:"
    echo "    changer: $changer"
    echo "    drives:"
    lsscsi -g | awk '$2 == "tape" {n++; dev=$(NF-1); sub("/dev/st", "/dev/nst", dev); printf "      - name: drive%d\n        device: %s\n", n-1, dev}'
    echo "http:"
    echo "  bind: 0.0.0.0:9270"
  } > "$CONFIG"
  echo "tapeq-entrypoint: wrote $CONFIG:" >&2
  cat "$CONFIG" >&2
fi
exec tapeq "$@"
