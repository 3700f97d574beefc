#!/usr/bin/env bash
# Runs inside dbus-run-session (see test.sh). Every stage runs even if an earlier one fails, so one run shows every
# problem; the exit code is non-zero if any stage failed.
#
# The stages run in two lanes side by side (issue 25: one after the other they kept the 2 cores about a third busy,
# 15 min of CPU in 21 min). Each lane mixes stages that mostly wait (the end-to-end journeys, the integration tests,
# the benches, the simulation on PostgreSQL) with ones that compute. The tests that hold a real-time rate to account
# (vitest project real-time) run last and alone: on a starved machine their figures say nothing.
# Each stage's output goes to reports/stages/NAME.log and is printed whole when the stage ends, so the two lanes'
# lines never interleave; each stage ends with its wall and CPU seconds.
set -uo pipefail
cd "$(dirname "$0")/.."

KEYRING_HOME="$(mktemp -d)"
export XDG_DATA_HOME="$KEYRING_HOME/data" XDG_RUNTIME_DIR="$KEYRING_HOME/run"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
# --login creates and unlocks a login keyring from stdin; --start then serves the Secret Service on this bus.
printf 'payout-desk-test' | gnome-keyring-daemon --login >/dev/null 2>&1
eval "$(gnome-keyring-daemon --start --components=secrets)"
export GNOME_KEYRING_CONTROL
trap 'pkill -f "gnome-keyring-daemon" >/dev/null 2>&1; rm -rf "$KEYRING_HOME"' EXIT

STAGES=reports/stages
mkdir -p "$STAGES" && rm -f reports/*.json "$STAGES"/*
SUITE_STARTED=$SECONDS

# The CPU seconds (user + system) of the finished children in a file the `times` builtin wrote (it must run in the
# lane's own shell, not in a $(…) subshell, to count that lane's children).
cpu_in() {
  tail -1 "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t }'
}

stage() {
  local name="$1"; shift
  local log="$STAGES/$name.log"
  local started=$SECONDS status=0
  times >"$STAGES/.$name.cpu0"
  echo "=== $name started at $(( SECONDS - SUITE_STARTED )) s: $*"
  "$@" >"$log" 2>&1 || status=$?
  times >"$STAGES/.$name.cpu1"
  local took=$(( SECONDS - started )) cpu=$(( $(cpu_in "$STAGES/.$name.cpu1") - $(cpu_in "$STAGES/.$name.cpu0") ))
  local verdict="passed"
  if (( status != 0 )); then verdict="FAILED (exit $status)"; touch "$STAGES/$name.failed"; fi
  # One lane prints at a time.
  flock "$STAGES/.print" bash -c 'echo; echo "=== $1: $2"; cat "$3"; echo "=== $1 $4 in $5 s (CPU $6 s)"' _ \
    "$name" "$*" "$log" "$verdict" "$took" "$cpu"
  echo "$name $took $cpu $verdict" >>"$STAGES/times.txt"
}

# Two test files per core for vitest (at most 8): most integration files wait on real time, sockets, child processes
# and PostgreSQL. Each lane's vitest gets a share.
vitest_workers=$(( $(nproc) * 2 )); (( vitest_workers > 8 )) && vitest_workers=8
lane_workers=$(( (vitest_workers + 1) / 2 + 1 ))

checks_lint() {
  stage lint npx eslint .
  stage check-electron-builder npx tsx scripts/check-electron-builder.ts
}
checks_build() {
  stage typecheck npx vue-tsc -b tsconfig.json
  stage build node node_modules/electron-vite/bin/electron-vite.js build
  stage electronegativity npx tsx scripts/electronegativity.ts
}
checks_lint & checks_build & wait

lane_browser() {
  stage e2e npx playwright test
  stage electron-launch npx playwright test -c playwright.electron.config.ts
  stage integration npx vitest run --project integration --maxWorkers="$lane_workers" \
    --reporter=default --reporter=json --outputFile.json=reports/vitest-integration.json
}
lane_node() {
  # Every bench, run small: a bench that no longer runs fails the suite (figures are not judged on a CI machine).
  # history-ui needs the renderer the build stage made.
  stage benches npx tsx scripts/bench-smoke.ts
  stage unit-and-postgres npx vitest run --project unit --project postgres --maxWorkers="$lane_workers" \
    --reporter=default --reporter=json --outputFile.json=reports/vitest-unit-postgres.json
  # Last in its lane: it keeps both cores busy, and overlaps less of the browser journeys' short waits here.
  stage simulation npx vitest run --project simulation \
    --reporter=default --reporter=json --outputFile.json=reports/simulation.json
}
lane_browser & lane_node & wait

stage real-time npx vitest run --project real-time --maxWorkers=2 \
  --reporter=default --reporter=json --outputFile.json=reports/real-time.json

echo
echo "=== stages (wall s, CPU s), suite $(( SECONDS - SUITE_STARTED )) s:"
column -t "$STAGES/times.txt" 2>/dev/null || cat "$STAGES/times.txt"
failed_stages=()
for marker in "$STAGES"/*.failed; do [[ -e "$marker" ]] && failed_stages+=("$(basename "$marker" .failed)"); done
node scripts/summary.mjs reports/vitest-integration.json reports/vitest-unit-postgres.json reports/simulation.json \
  reports/real-time.json reports/e2e.json reports/electron.json -- "${failed_stages[@]}"
[[ ${#failed_stages[@]} -eq 0 ]]
