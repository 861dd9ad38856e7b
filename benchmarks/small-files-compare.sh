#!/usr/bin/env bash
# Bulk small files end to end before and after, side by side: builds the benchmark jar at two git revisions
# (benchmarks/revisions.sh; nothing is installed), then runs SmallFilesBenchmark against the daemon of each in turn
# (old, new, old, new, ...) and prints one table: stages/s, flushes/s, the CPU of the daemon's own threads per
# request, each request's median wait (written to answered), idle latency, and the aggregates the flushes made and
# the catalog commit transactions that recorded them.
#
# usage: benchmarks/small-files-compare.sh OLD_REV [NEW_REV] [-- BENCHMARK OPTIONS]
#   NEW_REV defaults to HEAD. Options after -- go to both runs (e.g. -- --files 100000); see SmallFilesBenchmark.
# environment:
#   ROUNDS       runs of each revision (default 2)
#   JAVA_OPTS    JVM options of every run (default -Xmx2g -XX:+UseParallelGC, the daemon's)
#   MAVEN_ARGS   extra mvn arguments for both builds (e.g. -o)
#   KEEP=1       keep the temporary directory (worktrees, jars, every run's output)
# The benchmark's classes come from NEW_REV and run first on the class path of both sides: the same driver measures
# the old daemon and the new one (it needs only the daemon's public start and status, and the directory).
set -euo pipefail

# shellcheck source=benchmarks/revisions.sh
. "$(dirname "$0")/revisions.sh"

compare_revisions small-files-compare 7,8 "$@"
ROUNDS=${ROUNDS:-2}
JAVA_OPTS=${JAVA_OPTS:--Xmx2g -XX:+UseParallelGC}

mkdir -p "$TMP/driver"
(cd "$TMP/driver" && unzip -q -o "$TMP/new.jar" 'org/tapeq/bench/SmallFilesBenchmark*' 'org/tapeq/bench/CpuShare*' \
  'org/tapeq/bench/CatalogCommits*')
run_sides "$ROUNDS" "$TMP/driver" org.tapeq.bench.SmallFilesBenchmark

echo
echo "Small files end to end, old ${OLD_ID:0:10} vs new ${NEW_ID:0:10}, $ROUNDS round(s) run in turn ($(nproc) cpus;" \
  "options: ${EXTRA[*]:-none}; $JAVA_OPTS)"
echo
jq -r -s '.[] | [.round, .side, .label, .files, .stage_per_s, .flush_per_s, .stage_daemon_cpu_ms, .flush_daemon_cpu_ms,
    .stage_wait_median_ms, .flush_wait_median_ms, .idle_stage_median_ms, .idle_stage_max_ms,
    .idle_flush_median_ms, .idle_flush_max_ms, .flush_aggregates, .flush_transactions, .load_end] | @tsv' "$TMP/results.jsonl" \
  | { printf 'round\tside\trevision\tfiles\tstages/s\tflushes/s\tdaemon CPU ms/stage\tdaemon CPU ms/flush'
      printf '\tstage wait ms\tflush wait ms\tidle stage ms\tidle stage max ms\tidle flush ms\tidle flush max ms'
      printf '\tflush aggregates\tflush commit transactions\tload at end\n'; cat; } \
  | column -t -s $'\t'
echo
echo "Raw results (one JSON line per run):"
cat "$TMP/results.jsonl"
