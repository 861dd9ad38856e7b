# Sourced by the side-by-side scripts (loop-latency-compare.sh, daemon-scale-compare.sh): builds the benchmark jar
# of one git revision in a temporary worktree (mvn -B -q -DskipTests package -pl benchmarks -am; nothing is
# installed) and removes the worktrees again.
#
# build_revision REPO TMP SIDE ID: the jar of revision ID as $TMP/$SIDE.jar (worktree $TMP/$SIDE, build log
#   $TMP/$SIDE-build.log); MAVEN_ARGS are extra mvn arguments. Exits with the log's tail if the build fails.
# remove_revisions REPO TMP SIDE...: removes those worktrees (call it from an EXIT trap).

build_revision() {
  local repo=$1 tmp=$2 side=$3 id=$4
  echo "building $side ${id:0:10} ..." >&2
  git -C "$repo" worktree add --detach "$tmp/$side" "$id" >/dev/null 2>&1
  # shellcheck disable=SC2086  # MAVEN_ARGS is a list of arguments
  if ! (cd "$tmp/$side" && mvn -B -q ${MAVEN_ARGS:-} -DskipTests package -pl benchmarks -am) >"$tmp/$side-build.log" 2>&1; then
    tail -n 30 "$tmp/$side-build.log" >&2
    echo "the build of $side ($id) failed" >&2
    exit 1
  fi
  cp "$tmp/$side/benchmarks/target/tapeq-benchmarks.jar" "$tmp/$side.jar"
}

remove_revisions() {
  local repo=$1 tmp=$2 side
  shift 2
  for side in "$@"; do
    if [ -d "$tmp/$side" ]; then
      git -C "$repo" worktree remove --force "$tmp/$side" >/dev/null 2>&1 || true
    fi
  done
  git -C "$repo" worktree prune
}

# The frame of a side-by-side script (daemon-scale-compare.sh, small-files-compare.sh):
#
# compare_revisions NAME USAGE_LINES "$@": parses OLD_REV [NEW_REV] [-- OPTIONS] (NEW_REV defaults to HEAD) into
#   OLD_ID, NEW_ID and EXTRA (the options, an array), makes TMP (removed at exit unless KEEP=1) and builds both jars
#   ($TMP/old.jar, $TMP/new.jar). USAGE_LINES is the sed range of the caller's usage text (e.g. 7,8).
# run_sides ROUNDS CLASSPATH_PREFIX CLASS: runs CLASS of each revision in turn (old, new, old, ...) with EXTRA and
#   JAVA_OPTS; classes in CLASSPATH_PREFIX (may be empty) come before the revision's jar. Appends each run's last
#   JSON line, with side, round and the load at its end, to $TMP/results.jsonl; the other lines go to stderr.
compare_revisions() {
  local name=$1 usage_lines=$2 script=$0
  shift 2
  if [ $# -lt 1 ]; then
    sed -n "${usage_lines}p" "$script" | sed 's/^# //' >&2
    exit 2
  fi
  OLD_REV=$1
  shift
  NEW_REV=HEAD
  if [ $# -ge 1 ] && [ "$1" != "--" ]; then
    NEW_REV=$1
    shift
  fi
  if [ $# -ge 1 ]; then
    if [ "$1" != "--" ]; then
      sed -n "${usage_lines}p" "$script" | sed 's/^# //' >&2
      exit 2
    fi
    shift
  fi
  EXTRA=("$@")
  command -v jq >/dev/null || { echo "$name: needs jq" >&2; exit 1; }
  REPO=$(git -C "$(dirname "$script")" rev-parse --show-toplevel)
  OLD_ID=$(git -C "$REPO" rev-parse --verify "$OLD_REV^{commit}")
  NEW_ID=$(git -C "$REPO" rev-parse --verify "$NEW_REV^{commit}")
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/tapeq-$name.XXXXXX")
  trap compare_cleanup EXIT
  build_revision "$REPO" "$TMP" old "$OLD_ID"
  build_revision "$REPO" "$TMP" new "$NEW_ID"
}

compare_cleanup() {
  remove_revisions "$REPO" "$TMP" old new
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept $TMP" >&2
  else
    rm -rf "$TMP"
  fi
}

run_sides() {
  local rounds=$1 prefix=$2 class=$3 round side id
  : >"$TMP/results.jsonl"
  for round in $(seq 1 "$rounds"); do
    for side in old new; do
      if [ "$side" = old ]; then id=$OLD_ID; else id=$NEW_ID; fi
      echo "round $round/$rounds: $side ${id:0:10} ..." >&2
      # shellcheck disable=SC2086  # JAVA_OPTS is a list of arguments
      java $JAVA_OPTS -cp "${prefix:+$prefix:}$TMP/$side.jar" "$class" --label "$side ${id:0:10}" \
        "${EXTRA[@]}" >"$TMP/$side-$round.out" 2>"$TMP/$side-$round.err" \
        || { tail -n 30 "$TMP/$side-$round.out" "$TMP/$side-$round.err" >&2; exit 1; }
      grep -v '^{' "$TMP/$side-$round.out" | sed "s/^/[$side $round] /" >&2
      grep '^{' "$TMP/$side-$round.out" | tail -n 1 \
        | jq -c --arg side "$side" --argjson round "$round" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
            '. + {side: $side, round: $round, load_end: $load}' >>"$TMP/results.jsonl"
    done
  done
}
