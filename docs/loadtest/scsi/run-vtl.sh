#!/usr/bin/env bash
# The dt and adt load tests on the lab's virtual SCSI library (docs/loadtest.md, "Runs on the virtual SCSI
# library"). From the checkout's root, with the lab up:
#   export VTL_LAB=/var/tmp/vtl-lab VTL_MODE=qemu VTL_TAPE_MB=256 VTL_TAPES=8
#   ../shared/vtl/vtl-down.sh; rm -f $VTL_LAB/tapes/VTL*; ../shared/vtl/vtl-up.sh
#   docs/loadtest/scsi/run-vtl.sh
# Starts from an empty request directory and catalog (paths as in tapeq-vtl.yaml), labels VTL001L5-VTL003L5
# for atlas and VTL004L5-VTL006L5 for cms through a daemon started from the same file, stops it, then runs
# both scenarios with --daemon-config (each starts its own daemon on that catalog). Logs in $OUT/*.log.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CONFIG=docs/loadtest/scsi/tapeq-vtl.yaml
BASE=/var/tmp/tapeq-vtl-loadtest
OUT=${OUT:-docs/loadtest}
rm -rf "$BASE"
mkdir -p "$BASE"/endit/{in,out,request,trash} "$BASE"/state

./tapeq daemon -c "$CONFIG" > "$BASE/label-daemon.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 120); do [ -S "$BASE/state/control.sock" ] && break; sleep 1; done
# --force: the lab's fresh cartridges read back as zeros in tape file 0, which tapeq does not take for blank
for n in 1 2 3; do ./tapeq cartridge label -c "$CONFIG" "VTL00${n}L5" atlas --force; done
for n in 4 5 6; do ./tapeq cartridge label -c "$CONFIG" "VTL00${n}L5" cms --force; done
kill "$daemon"; wait "$daemon" || true
trap - EXIT

for s in dt adt; do
  start=$(date +%s)
  ./tapeq loadtest "docs/loadtest/scsi/$s-vtl.yaml" --daemon-config "$CONFIG" -o "$OUT/scsi-$s" \
    > "$BASE/$s.log" 2>&1 || echo "$s: exit status $?"
  echo "$s: $(( $(date +%s) - start )) s; $(tail -1 "$BASE/$s.log")"
done
