#!/usr/bin/env bash
# make test, once the Debian packages are in and the lint has passed: the phases, what runs
# beside what, and when each ended ("make test: ... at N s", from this script's start).
#   Tests/make-test.sh LAB_RESULTS_DIR      (MAKE, SWIFT and SWIFT_FLAGS from the Makefile)
#
# 1. The release build (the lab's VM and the suite's CLI tests run it: PUSHDIAG_BINARY, the
#    binary users install), then the debug build with the tests.
# 2. The lab (Tests/lab/lab.sh: the VM, then LabTests), with nothing beside it: builds beside
#    the VM, even at SCHED_IDLE, made its timings fail (docs/PERFORMANCE.md, "make test").
# 3. The fuzz targets' build; then, beside everything after it at the lowest CPU and I/O
#    priority (SCHED_IDLE, ionice idle), `make test-beside`: the core's tests built and run
#    under ASan. Meanwhile the medium's unit tests, the fuzz targets' 10 s runs (two at a time),
#    make demo on the release binary and the whole suite.
# 4. The ASan work's end and its summary.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
MAKE=${MAKE:-make}
SWIFT=${SWIFT:-swift}
start=$(date +%s)
say() { echo "make test: $* at $(($(date +%s) - start)) s"; }
mkdir -p .build
rm -f .build/beside.status
beside=
stop_beside() { [ -z "$beside" ] || kill -- "-$beside" 2> /dev/null; }
trap stop_beside EXIT

beside_failed() {
  wait "$beside" 2> /dev/null
  tail -40 .build/beside.log
  say "$(grep -E '^beside:' .build/beside.log | tail -1)"
  exit 1
}

$MAKE --no-print-directory build CONFIG=release > .build/release-build.log 2>&1 || {
  tail -40 .build/release-build.log
  say "the release build FAILED"
  exit 1
}
say "the release build done"
# shellcheck disable=SC2086 # SWIFT_FLAGS is empty or -v
$SWIFT build --build-tests ${SWIFT_FLAGS:-} > .build/debug-build.log 2>&1 || {
  tail -40 .build/debug-build.log
  say "the debug build with the tests FAILED"
  exit 1
}
say "the debug build with the tests done"
Tests/lab/virt-wifi-build.sh || true # missing, the lab says so and LabTests fails

Tests/lab/lab.sh "$out" || {
  say "the lab FAILED"
  exit 1
}
say "the lab done"

FUZZ_BUILD_ONLY=1 Tests/fuzz/run.sh > .build/fuzz-build.log 2>&1 || {
  tail -40 .build/fuzz-build.log
  say "the fuzz targets' build FAILED"
  exit 1
}
say "the fuzz targets' build done"
# Its own process group (setsid), so that a failure here stops all of it.
setsid bash -c "chrt --idle 0 ionice -c 3 $MAKE --no-print-directory test-beside > .build/beside.log 2>&1; echo \$? > .build/beside.status" &
beside=$!

python3 -m unittest discover -s Tests/lab/medium > .build/medium-tests.log 2>&1 || {
  cat .build/medium-tests.log
  exit 1
}
echo "lab radio medium: $(grep -E '^Ran ' .build/medium-tests.log), $(tail -1 .build/medium-tests.log)"

FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-10} Tests/fuzz/run.sh > .build/fuzz-smoke.log 2>&1 || {
  tail -40 .build/fuzz-smoke.log
  say "a fuzz target FAILED"
  exit 1
}
grep -E '^(==|Fuzz)' .build/fuzz-smoke.log
say "the fuzz targets' runs done"

$MAKE --no-print-directory demo CONFIG=release > .build/demo.log 2>&1 || {
  tail -40 .build/demo.log
  exit 1
}
grep -q '^exit status 2 ' .build/demo.log || {
  tail -40 .build/demo.log
  say "make demo: not the CRITICAL the bundled 57%-busy channel gives"
  exit 1
}
echo "release build, make demo: $(tail -1 .build/demo.log)"

# shellcheck disable=SC2086 # SWIFT_FLAGS is empty or -v
PUSHDIAG_BINARY=$(pwd)/.build/release/pushdiag $SWIFT test --skip-build ${SWIFT_FLAGS:-}
suite=$?
say "the suite done (exit $suite)"

wait "$beside"
beside=
[ "$(cat .build/beside.status 2> /dev/null)" = 0 ] || beside_failed
echo "address sanitizer: $(grep -E 'Test run with' .build/asan.log | tail -1)"
say "the ASan tests done"
exit $suite
