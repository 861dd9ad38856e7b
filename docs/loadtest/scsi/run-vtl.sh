#!/usr/bin/env bash
# The dt and adt load tests on the lab's virtual SCSI library (docs/loadtest.md, "Runs on the virtual SCSI
# library"). From the checkout's root, with the lab up:
#   export VTL_LAB=/var/tmp/vtl-lab VTL_MODE=qemu VTL_TAPE_MB=256 VTL_TAPES=8
#   ../shared/vtl/vtl-down.sh; rm -f $VTL_LAB/tapes/VTL*; ../shared/vtl/vtl-up.sh
#   docs/loadtest/scsi/run-vtl.sh
# Starts from an empty request directory and catalog (paths as in tapeq-vtl.yaml), labels VTL001L5-VTL003L5
# for atlas through a daemon started from the same file, stops it, then runs the dt and, on the same catalog,
# the adt that recalls what the dt wrote (--inputs: the dt's report, whose files.csv lists them). Each run starts
# its own daemon from tapeq-vtl.yaml and empties the drives before its measured phase. Logs in $BASE/*.log.
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
# ready, not only the control socket: the scheduler knows the cartridges once it has read the library's
# inventory (mtx status), and a label asked before that is refused as an unknown cartridge
for _ in $(seq 120); do grep -q "tapeq daemon ready" "$BASE/label-daemon.log" && break; sleep 1; done
# --force: the lab's fresh cartridges read back as zeros in tape file 0, which tapeq does not take for blank
for n in 1 2 3; do ./tapeq cartridge label -c "$CONFIG" "VTL00${n}L5" atlas --force; done
kill "$daemon"; wait "$daemon" || true
trap - EXIT

# run NAME [OPTION...]: one scenario against a daemon started from $CONFIG, its report in $OUT/scsi-NAME
run() {
  local name=$1 start
  shift
  start=$(date +%s)
  ./tapeq loadtest "docs/loadtest/scsi/$name-vtl.yaml" --daemon-config "$CONFIG" -o "$OUT/scsi-$name" "$@" \
    > "$BASE/$name.log" 2>&1 || echo "$name: exit status $?"
  echo "$name: $(( $(date +%s) - start )) s; $(tail -1 "$BASE/$name.log")"
}
run dt
run adt --inputs "$OUT/scsi-dt"
