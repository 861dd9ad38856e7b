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

# shellcheck source=benchmarks/revisions.sh
. "$(dirname "$0")/revisions.sh"

compare_revisions daemon-compare 7,8 "$@"
[ ${#EXTRA[@]} -gt 0 ] || EXTRA=(--requests 1000000 --no-completion)
ROUNDS=${ROUNDS:-1}
JAVA_OPTS=${JAVA_OPTS:--Xmx6g -XX:+UseParallelGC}

run_sides "$ROUNDS" "" org.tapeq.bench.DaemonScaleBenchmark

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
