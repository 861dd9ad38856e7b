#!/usr/bin/env bash
# Event-loop latency before and after, side by side: builds the benchmark jar at two git revisions, each in a
# temporary worktree (mvn -B -q -DskipTests package -pl benchmarks -am; nothing is installed), then runs the
# loop-latency benchmark of each alternately (old, new, old, new, ...) and prints one table of both.
#
# usage: benchmarks/loop-latency-compare.sh OLD_REV [NEW_REV] [-- BENCHMARK OPTIONS]
#   NEW_REV defaults to HEAD. Options after -- go to both runs (e.g. -- --burst 50000); see ./tapeq bench-loop.
# environment:
#   ROUNDS       runs of each revision (default 3)
#   JAVA_OPTS    JVM options of every run (default: the daemon's, -Xmx2g -XX:+UseParallelGC)
#   MAVEN_ARGS   extra mvn arguments for both builds (e.g. -o)
#   BENCH_CLASS  the benchmark's main class (default org.tapeq.bench.LoopLatencyBenchmark)
#   KEEP=1       keep the temporary directory (worktrees, jars, every run's output)
# Needs jq. Each revision writes its files once (--prepared, SQLite only) and every run of it works on a copy;
# the files are not measured.
set -euo pipefail

usage() {
  sed -n '5,6p' "$0" | sed 's/^# //' >&2
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
ROUNDS=${ROUNDS:-3}
JAVA_OPTS=${JAVA_OPTS:--Xmx2g -XX:+UseParallelGC}
BENCH_CLASS=${BENCH_CLASS:-org.tapeq.bench.LoopLatencyBenchmark}
command -v jq >/dev/null || { echo "loop-latency-compare: needs jq" >&2; exit 1; }

REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
OLD_ID=$(git -C "$REPO" rev-parse --verify "$OLD_REV^{commit}")
NEW_ID=$(git -C "$REPO" rev-parse --verify "$NEW_REV^{commit}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tapeq-loop-compare.XXXXXX")

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

# Builds the benchmark jar of one revision into $TMP/<side>.jar (the old one is reused if both are the same).
build() {
  local side=$1 id=$2
  if [ "$side" = new ] && [ "$id" = "$OLD_ID" ]; then
    cp "$TMP/old.jar" "$TMP/new.jar"
    return
  fi
  build_revision "$REPO" "$TMP" "$side" "$id"
}
build old "$OLD_ID"
build new "$NEW_ID"

# A reused preparation needs the SQLite catalog.
PREPARE=yes
for a in "${EXTRA[@]+"${EXTRA[@]}"}"; do
  [ "$a" = postgres ] && PREPARE=no
done

: >"$TMP/results.jsonl"
for round in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    if [ "$side" = old ]; then id=$OLD_ID; else id=$NEW_ID; fi
    args=(--label "$side ${id:0:10} round $round")
    [ "$PREPARE" = yes ] && args+=(--prepared "$TMP/prepared-${id:0:10}") # one per revision
    echo "round $round/$ROUNDS: $side ${id:0:10} ..." >&2
    # shellcheck disable=SC2086  # JAVA_OPTS is a list of arguments
    java $JAVA_OPTS -cp "$TMP/$side.jar" "$BENCH_CLASS" "${args[@]}" "${EXTRA[@]+"${EXTRA[@]}"}" \
      >"$TMP/$side-$round.out" 2>&1 || { tail -n 30 "$TMP/$side-$round.out" >&2; exit 1; }
    grep '^{' "$TMP/$side-$round.out" | tail -n 1 \
      | jq -c --arg side "$side" --arg rev "${id:0:10}" --argjson round "$round" \
          '. + {side: $side, rev: $rev, round: $round}' >>"$TMP/results.jsonl"
  done
done

echo
echo "Event-loop latency, old ${OLD_ID:0:10} vs new ${NEW_ID:0:10}, $ROUNDS rounds run alternately" \
  "($(nproc) cpus; options: ${EXTRA[*]:-defaults})"
echo
echo "Every run (ms; load average 1/5/15 min at the run's start and end):"
jq -r -s '
  .[] as $r | $r.phases | to_entries[] |
  [$r.round, $r.side, $r.rev, .key, .value.p50_ms, .value.p99_ms, .value.p999_ms, .value.max_ms,
   .value.late_10ms, .value.late_100ms, $r.load_start + " -> " + $r.load_end] | @tsv' "$TMP/results.jsonl" \
  | { printf 'round\tside\trev\tphase\tp50\tp99\tp99.9\tmax\t>10ms\t>100ms\tload\n'; cat; } | column -t -s $'\t'
echo
echo "Median over the rounds (ms; [lowest, highest] of the rounds):"
jq -r -s '
  def r3: . * 1000 | round / 1000;
  def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end
    | r3;
  def cell(f): map(f) | "\(median) [\(min), \(max)]";
  . as $runs
  | ($runs[0].phases | keys_unsorted)[] as $phase
  | ("old", "new") as $side
  | [$runs[] | select(.side == $side) | {rev, v: .phases[$phase]} | select(.v != null)]
  | select(length > 0)
  | [$phase, $side, .[0].rev, (map(.v) | cell(.p50_ms)), (map(.v) | cell(.p99_ms)), (map(.v) | cell(.max_ms)),
     (map(.v.late_10ms) | median), (map(.v.late_100ms) | median)]
  | @tsv' "$TMP/results.jsonl" \
  | { printf 'phase\tside\trev\tp50\tp99\tmax\t>10ms\t>100ms\n'; cat; } | column -t -s $'\t'
echo
echo "Raw results (one JSON line per run):"
cat "$TMP/results.jsonl"
