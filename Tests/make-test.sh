#!/usr/bin/env bash
# make test, once the Debian packages are in and the lint has passed: the phases, what runs
# beside what, and when each ended ("make test: ... at N s", from this script's start).
#   Tests/make-test.sh LAB_RESULTS_DIR      (MAKE, SWIFT and SWIFT_FLAGS from the Makefile)
#
# 1. The release build (the lab's VM, make demo and the suite's CLI tests run it:
#    PUSHDIAG_BINARY, the binary users install), then the one debug build: everything with the
#    tests, under the address sanitizer (.build-asan). LabTests and the whole suite run in it, so
#    every test runs under ASan and LeakSanitizer (Tests/sanitizers/lsan.supp), and its debug
#    pushdiag answers ArgumentDefinitionTests.
# 2. The lab's VM (Tests/lab/lab.sh), with nothing beside it: builds beside the VM, even at
#    SCHED_IDLE, made its timings fail (docs/PERFORMANCE.md, "make test").
# 3. Beside one another: the fuzz targets' build (-Onone; the core's one compile holds a core for
#    about 50 s) at the lowest CPU and I/O priority (SCHED_IDLE, ionice idle) and then their 10 s
#    runs, two at a time; the medium's unit tests and make demo; the suite in several processes
#    (Tests/suite.sh), LabTests among them.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
MAKE=${MAKE:-make}
SWIFT=${SWIFT:-swift}
start=$(date +%s)
say() { echo "make test: $* at $(($(date +%s) - start)) s"; }
mkdir -p .build
# LeakSanitizer's suppressions, for every run of the ASan build (LabTests, the suite, the debug
# pushdiag those start): each names a function of the toolchain's own libraries.
export LSAN_OPTIONS="suppressions=$(pwd)/Tests/sanitizers/lsan.supp:print_suppressions=0"
# Line tables only, not full debug information: ASan's and LeakSanitizer's reports keep their
# file:line; built back to back, 212 s and 413 s of CPU against 233 s and 451 s with -g
# (docs/PERFORMANCE.md, "make test").
ASAN=(--sanitize=address --scratch-path .build-asan -Xswiftc -gline-tables-only)
rm -f .build/fuzz.status
fuzz_build=
stop_fuzz_build() { [ -z "$fuzz_build" ] || kill -- "-$fuzz_build" 2> /dev/null; }
trap stop_fuzz_build EXIT

# virt_wifi.ko, the lab's second driver (one file out of the kernel's source tarball, then
# kbuild: about 17 s before the VM in a fresh-clone run), beside the release build.
Tests/lab/virt-wifi-build.sh > .build/virt-wifi-build.log 2>&1 &
virt_wifi=$!

$MAKE --no-print-directory build CONFIG=release > .build/release-build.log 2>&1 || {
  tail -40 .build/release-build.log
  say "the release build FAILED"
  exit 1
}
say "the release build done"
# shellcheck disable=SC2086 # SWIFT_FLAGS is empty or -v
$SWIFT build --build-tests "${ASAN[@]}" ${SWIFT_FLAGS:-} > .build/debug-build.log 2>&1 || {
  tail -40 .build/debug-build.log
  say "the debug build with the tests (ASan) FAILED"
  exit 1
}
say "the debug build with the tests (ASan) done"
wait $virt_wifi # missing, the lab says so and LabTests fails
cat .build/virt-wifi-build.log

bundle=$(pwd)/.build-asan/debug/pushdiagPackageTests.xctest
PUSHDIAG_TESTS_BUNDLE=$bundle LAB_PART=vm Tests/lab/lab.sh "$out" || {
  PUSHDIAG_TESTS_BUNDLE=$bundle LAB_PART=tests Tests/lab/lab.sh "$out"
  say "the lab FAILED"
  exit 1
}
say "the lab's VM done"

# The fuzz targets: built at SCHED_IDLE in a process group of their own (setsid), so that a
# failure elsewhere stops what it can of it; then their runs, at normal priority.
FUZZ_OPT=-Onone setsid bash -c "chrt --idle 0 ionice -c 3 env FUZZ_BUILD_ONLY=1 Tests/fuzz/run.sh > .build/fuzz-build.log 2>&1 || { echo build > .build/fuzz.status; exit; }
  FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-10} Tests/fuzz/run.sh > .build/fuzz-smoke.log 2>&1; echo \$? > .build/fuzz.status" &
fuzz_build=$!

python3 -m unittest discover -s Tests/lab/medium > .build/medium-tests.log 2>&1 || {
  cat .build/medium-tests.log
  exit 1
}
echo "lab radio medium: $(grep -E '^Ran ' .build/medium-tests.log), $(tail -1 .build/medium-tests.log)"

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

PUSHDIAG_LAB_RESULTS=$(cd "$out" && pwd) PUSHDIAG_BINARY=$(pwd)/.build/release/pushdiag Tests/suite.sh "$bundle"
suite=$?
say "the suite (ASan, LabTests among it) done (exit $suite)"

wait "$fuzz_build"
fuzz_build=
case $(cat .build/fuzz.status 2> /dev/null) in
  0) ;;
  build)
    tail -40 .build/fuzz-build.log
    say "the fuzz targets' build FAILED"
    exit 1
    ;;
  *)
    tail -40 .build/fuzz-smoke.log
    say "a fuzz target FAILED"
    exit 1
    ;;
esac
grep -E '^(==|Fuzz)' .build/fuzz-smoke.log
say "the fuzz targets' build and runs done"
exit $suite
