#!/usr/bin/env bash
# Prove the example tasks with nothing but the docker CLI: for every task, build its image, then run
# trials in fresh containers (network none, CPU/memory/pids limits) and read the reward the way each
# format's harness does.
#
#   oracle  the reference solution runs, then the verifier          clean tasks: reward 1
#   noop    nothing runs before the verifier (a null agent)          clean tasks: reward 0
#   leak    the "agent" runs a copy of the solution found in the image (only where one is expected)
#
# Tasks with a deliberate defect (examples/README.md) declare what they show in EXPECT below.
# Prints a table and exits 1 if any task does not behave as expected. This is a reference the
# sandbox runner can be compared with; it does not use the project's code.
#
# Usage: scripts/check-examples.sh [TASK_DIR ...]     (default: examples/tasks/*/)
# Needs a daemon (scripts/docker-engine.sh) and the base images (scripts/base-images.sh).
# Containers carry taskwright.pid/taskwright.host of this shell, so Taskwright's orphan reaper sees a
# live owner and leaves them alone while this script runs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
run_id="check-$$-$(date +%s)"
log_dir="${TMPDIR:-/tmp}/taskwright-check-examples/$run_id"
mkdir -p "$log_dir"

# Expected rewards per scenario; tasks not listed are clean: oracle=1 noop=0.
declare -A EXPECT=(
  [fix-service-config]="oracle=1 noop=1"
  [dedupe-contacts]="oracle=1 noop=1"
  [parse-access-log]="oracle=1 noop=1"
  [semver-sort]="oracle=1 noop=0 leak=1"
)
# What the "agent" does in each scenario other than oracle and noop.
declare -A AGENT_CMD=(
  [leak]='bash /app/solution.sh'
)

say() { printf 'check-examples: %s\n' "$*" >&2; }
fail() { printf 'check-examples: error: %s\n' "$*" >&2; exit 2; }

docker version >/dev/null 2>&1 || fail "no Docker daemon answers; run scripts/docker-engine.sh first."
docker image inspect debian:bookworm-slim >/dev/null 2>&1 \
  || fail "the local debian:bookworm-slim stand-in is missing; run scripts/base-images.sh first."

cleanup() {
  local ids
  ids="$(docker ps -aq --filter "label=taskwright.check-run=$run_id" 2>/dev/null || true)"
  [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

now_ms() { date +%s%3N; }

# TB1's verdict: the `short test summary info` section of `pytest -rA`; resolved when it exists and
# no test in it FAILED, ERROR'd or XPASSed.
tb1_reward() {
  python3 -c '
import re, sys
text = sys.stdin.read()
parts = re.split(r"=+\s*short test summary info\s*=+", text, flags=re.I)
if len(parts) < 2:
    print(0); sys.exit()
bad = [l for l in parts[1].splitlines() if re.match(r"\s*(FAILED|ERROR|XPASS)\b", l)]
print(0 if bad else 1)'
}

# trial TASK_DIR FORMAT IMAGE SCENARIO -> prints the reward (0/1), err (no reward) or infra
trial() {
  local dir="$1" format="$2" image="$3" scenario="$4"
  local id log cid reward env_args=()
  id="$(basename "$dir")"
  log="$log_dir/$id-$scenario.log"
  : >"$log"
  [ "$format" = tb1 ] && env_args=(-e TEST_DIR=/tests)
  cid="$(docker run -d --rm --init --network none --cpus 1 --memory 1g --memory-swap 1g --pids-limit 512 \
    --label taskwright=check-examples --label "taskwright.check-run=$run_id" --label "taskwright.task=$id" \
    --label "taskwright.pid=$$" --label "taskwright.host=$(hostname)" \
    "${env_args[@]}" "$image" sleep infinity 2>>"$log")" || { printf 'infra'; return 0; }
  {
    if [ "$format" = harbor ]; then
      docker exec "$cid" mkdir -p /logs/agent /logs/verifier /tests /solution
    else
      docker exec "$cid" mkdir -p /logs /agent-logs /tests /oracle
    fi
    case "$scenario" in
      oracle)
        if [ "$format" = harbor ]; then
          docker cp -q "$dir/solution/." "$cid:/solution/"
          timeout 300 docker exec "$cid" bash /solution/solve.sh
        else
          docker cp -q "$dir/solution.sh" "$cid:/oracle/solution.sh"
          timeout 300 docker exec "$cid" bash /oracle/solution.sh
        fi ;;
      noop) ;;
      *) timeout 300 docker exec "$cid" bash -c "${AGENT_CMD[$scenario]}" ;;
    esac
    echo "--- agent phase exit: $? ---"
  } >>"$log" 2>&1 || true

  if [ "$format" = harbor ]; then
    docker cp -q "$dir/tests/." "$cid:/tests/" >>"$log" 2>&1
    timeout 120 docker exec "$cid" bash /tests/test.sh >>"$log" 2>&1 || true
    reward="$(docker exec "$cid" cat /logs/verifier/reward.txt 2>/dev/null | tr -d '[:space:]' || true)"
    [ -n "$reward" ] || reward=err
  else
    docker cp -q "$dir/tests/." "$cid:/tests/" >>"$log" 2>&1
    docker cp -q "$dir/run-tests.sh" "$cid:/tests/run-tests.sh" >>"$log" 2>&1
    local out
    out="$(timeout 120 docker exec -e TEST_DIR=/tests "$cid" bash /tests/run-tests.sh 2>&1 || true)"
    printf '%s\n' "$out" >>"$log"
    reward="$(printf '%s\n' "$out" | tb1_reward)"
  fi
  docker rm -f "$cid" >/dev/null 2>&1 || true
  printf '%s' "$reward"
}

if [ "$#" -gt 0 ]; then dirs=("$@"); else dirs=("$root"/examples/tasks/*/); fi

rows=()
failures=0
for d in "${dirs[@]}"; do
  d="${d%/}"
  id="$(basename "$d")"
  if [ -f "$d/task.toml" ]; then
    format=harbor; context="$d/environment"; dockerfile="$d/environment/Dockerfile"
  elif [ -f "$d/task.yaml" ]; then
    format=tb1; context="$d"; dockerfile="$d/Dockerfile"
  else
    say "skipping $d: neither task.toml nor task.yaml"; continue
  fi
  image="taskwright-example/$id:check"
  expect="${EXPECT[$id]:-oracle=1 noop=0}"

  t0=$(now_ms)
  if ! DOCKER_BUILDKIT=0 docker build -q --network none --force-rm \
      --label taskwright=example --label "taskwright.task=$id" \
      -t "$image" -f "$dockerfile" "$context" >"$log_dir/$id-build.log" 2>&1; then
    rows+=("$id|$format|FAIL|-|-|-|$expect|BUILD FAILED (see $log_dir/$id-build.log)")
    failures=$((failures + 1))
    continue
  fi
  build_s=$(awk -v ms=$(( $(now_ms) - t0 )) 'BEGIN { printf "%.1f", ms / 1000 }')

  declare -A got=()
  times=()
  for pair in $expect; do
    scenario="${pair%%=*}"
    t0=$(now_ms)
    got[$scenario]="$(trial "$d" "$format" "$image" "$scenario")"
    times+=("$(awk -v ms=$(( $(now_ms) - t0 )) 'BEGIN { printf "%.1f", ms / 1000 }')")
  done

  verdict=ok
  for pair in $expect; do
    scenario="${pair%%=*}"
    [ "${got[$scenario]}" = "${pair#*=}" ] || verdict="UNEXPECTED ($scenario=${got[$scenario]})"
  done
  [ "$verdict" = ok ] || failures=$((failures + 1))
  extra="-"
  [ -z "${got[leak]:-}" ] || extra="leak=${got[leak]}"
  rows+=("$id|$format|${build_s}s|${got[oracle]}|${got[noop]}|$extra|$expect|$verdict (trials ${times[*]} s)")
  unset got
done

{
  echo "TASK|FORMAT|BUILD|ORACLE|NOOP|OTHER|EXPECTED|RESULT"
  printf '%s\n' "${rows[@]}"
} | column -t -s '|'
echo
echo "logs: $log_dir"
if [ "$failures" -gt 0 ]; then
  echo "$failures task(s) did not behave as expected."
  exit 1
fi
echo "every task behaved as expected."
