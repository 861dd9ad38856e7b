#!/usr/bin/env bash
# The daemon at scale before and after, side by side: builds the benchmark jar at two git revisions, each in a
# temporary worktree (benchmarks/revisions.sh; nothing is installed), then runs ./tapeq bench-daemon of each in turn
# (old, new, old, new, ...) with the same options and prints one table: heap per queued request, restart time,
# status latency.
#
# usage: benchmarks/daemon-scale-compare.sh OLD_REV [NEW_REV] [-- BENCHMARK OPTIONS]
#   NEW_REV defaults to HEAD. Options after -- go to both runs (default: --requests 1000000 --no-completion).
# environment:
#   ROUNDS       runs of each revision (default 1: a million requests take minutes per run)
#   JAVA_OPTS    JVM options of every run (default: bench-daemon's, -Xmx6g -XX:+UseParallelGC)
#   MAVEN_ARGS   extra mvn arguments for both builds (e.g. -o)
#   KEEP=1       keep the temporary directory (worktrees, jars, every run's output)
# Needs jq. Both revisions must have DaemonScaleBenchmark's last line, the JSON summary.
set -euo pipefail

usage() {
  sed -n '7,8p' "$0" | sed 's/^# //' >&2
  exit 2
}
[ $# -ge 1 ] || usage
OLD_REV=$1
shift
NEW_REV=HEAD
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
  NEW_REV=$1
  shift
fi
if [ $# -ge 1 ]; then
  [ "$1" = "--" ] || usage
  shift
fi
EXTRA=("$@")
[ ${#EXTRA[@]} -gt 0 ] || EXTRA=(--requests 1000000 --no-completion)
ROUNDS=${ROUNDS:-1}
JAVA_OPTS=${JAVA_OPTS:--Xmx6g -XX:+UseParallelGC}
command -v jq >/dev/null || { echo "daemon-scale-compare: needs jq" >&2; exit 1; }

REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
OLD_ID=$(git -C "$REPO" rev-parse --verify "$OLD_REV^{commit}")
NEW_ID=$(git -C "$REPO" rev-parse --verify "$NEW_REV^{commit}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tapeq-daemon-compare.XXXXXX")

# shellcheck source=benchmarks/revisions.sh
. "$(dirname "$0")/revisions.sh"

cleanup() {
  remove_revisions "$REPO" "$TMP" old new
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept $TMP" >&2
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT

build_revision "$REPO" "$TMP" old "$OLD_ID"
build_revision "$REPO" "$TMP" new "$NEW_ID"

: >"$TMP/results.jsonl"
for round in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    if [ "$side" = old ]; then id=$OLD_ID; else id=$NEW_ID; fi
    echo "round $round/$ROUNDS: $side ${id:0:10} ..." >&2
    # shellcheck disable=SC2086  # JAVA_OPTS is a list of arguments
    java $JAVA_OPTS -cp "$TMP/$side.jar" org.tapeq.bench.DaemonScaleBenchmark --label "$side ${id:0:10}" \
      "${EXTRA[@]}" >"$TMP/$side-$round.out" 2>"$TMP/$side-$round.err" \
      || { tail -n 30 "$TMP/$side-$round.out" "$TMP/$side-$round.err" >&2; exit 1; }
    grep -v '^{' "$TMP/$side-$round.out" | sed "s/^/[$side $round] /" >&2
    grep '^{' "$TMP/$side-$round.out" | tail -n 1 \
      | jq -c --arg side "$side" --argjson round "$round" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
          '. + {side: $side, round: $round, load_end: $load}' >>"$TMP/results.jsonl"
  done
done

echo
echo "Daemon at scale, old ${OLD_ID:0:10} vs new ${NEW_ID:0:10}, $ROUNDS round(s) run in turn ($(nproc) cpus;" \
  "options: ${EXTRA[*]}; $JAVA_OPTS)"
echo
jq -r -s '.[] | [.round, .side, .label, .requests, .bytes_per_request, .bytes_per_request_restarted, .heap_queued_mb, .restart_s, .restart_peak_mb,
    .status_quiet_median_ms, .status_quiet_max_ms, .status_intake_max_ms, .status_restart_max_ms, .load_end] | @tsv' \
    "$TMP/results.jsonl" \
  | { printf 'round\tside\trevision\trequests\tbytes/request\tbytes/request after restart\theap MB\trestart s\trestart peak MB\tstatus ms\tstatus max ms\tstatus max ms (intake)\tstatus max ms (restart)\tload at end\n'; cat; } \
  | column -t -s $'\t'
echo
echo "Raw results (one JSON line per run):"
cat "$TMP/results.jsonl"
