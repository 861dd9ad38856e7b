#!/usr/bin/env bash
# The long fuzz run (docs/testing.md, "Fuzzing"): each parser's mutation fuzz test in a JVM of its own, one after the
# other (so one core is busy), TRIES inputs each, the slowest parsers first. Each run's whole output goes to
# LOG_DIR/<parser>.log; as a run ends its "[fuzz] ..." line (or FAILED and the log's tail) is printed, and a summary
# at the end.
#
# usage: benchmarks/fuzz-long.sh [PARSER...]   (default: every parser, in the order of -l; -l lists them)
# environment:
#   TRIES       inputs per parser (default 10000000)
#   SEED        the seed of every run (default: each run draws one and prints it in its [fuzz] line)
#   LOG_DIR     where the logs go (default target/fuzz-long)
#   MAVEN_ARGS  extra mvn arguments (e.g. -o)
# On a shared machine run it at a low priority: nice -n 19 benchmarks/fuzz-long.sh. Exits 1 if any run failed
# (a failing input, a hang: the watchdog saves the input under the module's target/fuzz-hangs/).
set -euo pipefail
cd "$(dirname "$0")/.."

# parser name, module, test (JUnit class#method pattern); slowest first, as measured (docs/testing.md, Results)
PARSERS=(
  "configuration config ConfigFuzzTest#configFile_mutated*"
  "endit-hints catalog EnditHintsFuzzTest#hintFile_mutated*"
  "request-file protocol ProtocolFuzzTest#requestFile_mutated*"
  "control-request tss-bridge ControlProtocolFuzzTest#requestLine_mutated*"
  "tape-label format FormatFuzzTest#label_mutated*"
  "manifest format FormatFuzzTest#manifest_mutated*"
  "mtx-status tape-scsi ScsiOutputFuzzTest#mtxStatus_mutated*"
  "mt-status tape-scsi ScsiOutputFuzzTest#mtStatus_mutated*"
  "mt-tell tape-scsi ScsiOutputFuzzTest#mtTell_mutated*"
  "checksum-file protocol ProtocolFuzzTest#checksumFile_mutated*"
  "error-file protocol ProtocolFuzzTest#errorFile_mutated*"
  "adler32 format FormatFuzzTest#adler32_mutated*"
)

if [[ "${1:-}" == "-l" ]]; then
  for p in "${PARSERS[@]}"; do echo "${p%% *}"; done
  exit 0
fi
wanted=("$@")
tries=${TRIES:-10000000}
logs=${LOG_DIR:-target/fuzz-long}
mkdir -p "$logs"

failed=0
summary=()
for p in "${PARSERS[@]}"; do
  read -r name module test <<<"$p"
  if [[ ${#wanted[@]} -gt 0 && " ${wanted[*]} " != *" $name "* ]]; then
    continue
  fi
  log="$logs/$name.log"
  echo "$(date -u +%FT%TZ) $name: $tries inputs, log $log" >&2
  # shellcheck disable=SC2086  # MAVEN_ARGS is a list of arguments
  if mvn -B ${MAVEN_ARGS:-} -Pfast -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
      -Dtapeq.fuzz.tries="$tries" -Dtapeq.fuzz.seed="${SEED:-}" >"$log" 2>&1 \
      && line=$(grep -m1 '^\[fuzz\] .*no failure, no hang' "$log"); then
    echo "$(date -u +%FT%TZ) $line" >&2
    summary+=("$line")
  else
    failed=1
    tail -n 40 "$log" >&2
    summary+=("[fuzz] $name: FAILED, see $log")
  fi
done
printf '%s\n' "${summary[@]}"
exit $failed
