#!/usr/bin/env bash
# The test suite in several processes at once: make test's last phase.
#   Tests/suite.sh BUNDLE [PROCESSES]      (PROCESSES: 4 by default, SUITE_PROCESSES)
# One process of the test bundle runs its tests on Swift's global executor, whose width on Linux
# is the number of cores: on this 2-core machine two tests that wait (on a child process, a
# server, a timer) hold both of its threads and every other test waits behind them. Measured
# (docs/PERFORMANCE.md, "make test"): in one process the suite used less than one core, and 397
# tests that take milliseconds each ended together 74 s in, when two waiting tests let go.
# So each suite runs in a process of its own (a start costs about 0.1 s of CPU under ASan),
# PROCESSES of them at a time, the suites in Tests/suite-order.txt (the longest, as measured)
# first, then the rest in the bundle's order.
# Suites were already run side by side in one process; what one suite's tests share is still
# theirs alone (a `.serialized` suite stays in one process). The logs are in
# .build/suite/ (SUITE_LOGS); a failed or crashed process's issues are printed, then the counts.
# Exit 0 when every process passed, 1 otherwise.
set -uo pipefail
bundle=$1
width=${2:-${SUITE_PROCESSES:-4}}
here=$(cd "$(dirname "$0")" && pwd)
logs=${SUITE_LOGS:-$here/../.build/suite}
rm -rf "$logs"
mkdir -p "$logs"
start=$(date +%s)

"$bundle" --testing-library swift-testing --list-tests > "$logs/list" 2> "$logs/list.err"
suites=$(cut -d/ -f1 "$logs/list" | awk '!seen[$0]++')
[ -n "$suites" ] || {
  cat "$logs/list.err"
  echo "suite: $bundle listed no tests"
  exit 1
}
# The queue: the hinted suites first, then the others.
queue=$(
  {
    grep -vE '^(#|$)' "$here/suite-order.txt" | while read -r s; do grep -qxF "$s" <<< "$suites" && echo "$s"; done
    echo "$suites"
  } | awk '!seen[$0]++'
)

# One suite (Module.Suite): its log and its exit status.
run_one() {
  local item=$1 filter="^${1//./\\.}/"
  local t0
  t0=$(date +%s%N)
  "$bundle" --testing-library swift-testing --filter "$filter" > "$logs/$item.log" 2>&1
  echo $? > "$logs/$item.status"
  echo "$item $((($(date +%s%N) - t0) / 1000000))" >> "$logs/times"
}
export -f run_one
export bundle logs
# xargs keeps `width` processes going; its own exit status is not the verdict (the .status files are).
xargs -P "$width" -I{} bash -c 'run_one "$1"' _ {} <<< "$queue"

failed=0
tests=0
for item in $queue; do
  status=$(cat "$logs/$item.status" 2> /dev/null || echo none)
  summary=$(grep -E 'Test run with [0-9]+ tests?' "$logs/$item.log" | tail -1)
  n=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<< "$summary")
  tests=$((tests + ${n:-0}))
  if [ "$status" != 0 ]; then
    failed=$((failed + 1))
    echo "suite: $item FAILED (exit $status; its whole output in $logs/$item.log):"
    if [ -n "$summary" ]; then
      grep -E -A3 'recorded an issue|Caught error|failed after|Fatal error|ERROR: AddressSanitizer|ERROR: LeakSanitizer' "$logs/$item.log" | cut -c1-400 | head -80
    else
      tail -20 "$logs/$item.log" | cut -c1-400 # it ended before its summary: a crash
    fi
  fi
done
echo "suite: the longest: $(sort -k2 -rn "$logs/times" | head -6 | awk '{printf "%s %.0f s; ", $1, $2 / 1000}')"
items=$(wc -w <<< "$queue")
listed=$(grep -c . "$logs/list")
if [ "$failed" -gt 0 ]; then
  echo "suite: $failed of $items processes FAILED ($tests tests ran, $width at a time, $(($(date +%s) - start)) s)"
  exit 1
fi
if [ "$tests" -ne "$listed" ]; then
  echo "suite: FAILED: the processes ran $tests tests of the $listed the bundle listed"
  exit 1
fi
echo "suite: $tests tests in $items processes passed ($width at a time, $(($(date +%s) - start)) s)"
