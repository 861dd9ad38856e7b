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
