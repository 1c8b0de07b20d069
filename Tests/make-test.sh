#!/usr/bin/env bash
# make test, once the Debian packages are in and the lint has passed: the phases, what runs
# beside what, and when each ended ("make test: ... at N s", from this script's start).
#   Tests/make-test.sh LAB_RESULTS_DIR      (MAKE, SWIFT and SWIFT_FLAGS from the Makefile)
#
# 1. The release build (the lab's VMs, make demo and the suite's CLI tests run it:
#    PUSHDIAG_BINARY, the binary users install), on every core.
# 2. The lab's first VM (sections 1 to 8b, Tests/lab/lab.sh vm-sections) on one vCPU, held to the
#    first core this process may use (taskset), and on the other cores beside it: the one debug
#    build, everything with the tests under the address sanitizer (.build-asan; LabTests and the
#    whole suite run in it, so every test runs under ASan and LeakSanitizer,
#    Tests/sanitizers/lsan.supp, and its debug pushdiag answers ArgumentDefinitionTests), then
#    the fuzz targets' build (-Onone; the core in one compile). Builds that shared the VM's cores,
#    even at SCHED_IDLE, made its timings fail; on a core of their own they did not
#    (docs/PERFORMANCE.md, "make test"). With one core, the builds come first.
# 3. The medium's walks in a VM of their own (lab.sh vm-medium), on two vCPUs and every core:
#    on one vCPU the medium fell behind the air's frames.
# 4. Beside one another: the fuzz targets' 10 s runs, two at a time; the medium's unit tests and
#    make demo; the suite in several processes (Tests/suite.sh), LabTests among them.
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
# The process groups started in the background (the builds beside the VM, the fuzz runs): a
# failure elsewhere stops what it can of them.
beside=
fuzz_runs=
stop_groups() { for g in $beside $fuzz_runs; do kill -- "-$g" 2> /dev/null; done; }
trap stop_groups EXIT

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
wait $virt_wifi # missing, the lab says so and LabTests fails
cat .build/virt-wifi-build.log

# The cores this process may use (Cpus_allowed_list: "0-1", "2,4-5"), no more of them than a
# cgroup's CPU quota allows in whole cores (cgroup v2's cpu.max, v1's cfs quota), so that the
# builds never take the VM's share: the first for the VM of sections 1 to 8b, the others for
# the builds beside it.
cpus=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status | tr ',' '\n' |
  awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }')
# cgroup v2: this process's cgroup and each above it (the smallest quota holds); v1: the cpu
# controller's own mount.
cgroup=$(sed -n 's/^0:://p' /proc/self/cgroup)
quota=$(
  {
    while [ -n "$cgroup" ] && [ "$cgroup" != / ]; do
      cat "/sys/fs/cgroup$cgroup/cpu.max"
      cgroup=$(dirname "$cgroup")
    done
    cat /sys/fs/cgroup/cpu.max
    paste -d' ' /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us
  } 2> /dev/null | awk '$1 ~ /^[0-9]+$/ && $2 > 0 { q = int($1 / $2); if (min == "" || q < min) min = q } END { if (min != "") print min }'
)
[ -z "$quota" ] || cpus=$(head -n "$((quota > 0 ? quota : 1))" <<< "$cpus")
vm_cpu=$(head -1 <<< "$cpus")
build_cpus=$(tail -n +2 <<< "$cpus" | paste -sd,)

# The builds: the debug build with the tests (ASan), then the fuzz targets (built only; their
# runs come after the VMs). Their verdict in .build/builds.status: 0, or the one that failed
# (none: they did not finish). Beside the VM a failure is told once the VM is done.
builds() {
  # shellcheck disable=SC2086 # SWIFT_FLAGS is empty or -v
  $SWIFT build --build-tests "${ASAN[@]}" ${SWIFT_FLAGS:-} > .build/debug-build.log 2>&1 || {
    echo asan > .build/builds.status
    return
  }
  say "the debug build with the tests (ASan) done"
  FUZZ_OPT=-Onone FUZZ_BUILD_ONLY=1 Tests/fuzz/run.sh > .build/fuzz-build.log 2>&1 || {
    echo fuzz > .build/builds.status
    return
  }
  say "the fuzz targets' build done"
  echo 0 > .build/builds.status
}
rm -f .build/builds.status .build/debug-build.log .build/fuzz-build.log
bundle=$(pwd)/.build-asan/debug/pushdiagPackageTests.xctest
lab_failed() {
  PUSHDIAG_TESTS_BUNDLE=$bundle LAB_PART=tests Tests/lab/lab.sh "$out"
  say "the lab FAILED"
  exit 1
}
builds_verdict() {
  case $(cat .build/builds.status 2> /dev/null) in
    0) ;;
    asan)
      tail -40 .build/debug-build.log
      say "the debug build with the tests (ASan) FAILED"
      exit 1
      ;;
    fuzz)
      tail -40 .build/fuzz-build.log
      say "the fuzz targets' build FAILED"
      exit 1
      ;;
    *)
      say "the builds beside the VM did not finish"
      exit 1
      ;;
  esac
}
if [ -n "$build_cpus" ]; then
  export -f builds say
  export SWIFT SWIFT_FLAGS start
  ASAN_WORDS="${ASAN[*]}" setsid taskset -c "$build_cpus" bash -c 'ASAN=($ASAN_WORDS); builds' &
  beside=$!
  LAB_SMP=1 LAB_PART=vm-sections taskset -c "$vm_cpu" Tests/lab/lab.sh "$out"
  sections=$?
  say "the lab's VM of sections 1 to 8b done (exit $sections)"
  wait $beside
  beside=
else
  builds
  builds_verdict
  LAB_SMP=1 LAB_PART=vm-sections Tests/lab/lab.sh "$out"
  sections=$?
fi
builds_verdict
[ "$sections" = 0 ] || lab_failed
PUSHDIAG_TESTS_BUNDLE=$bundle LAB_PART=vm-medium Tests/lab/lab.sh "$out" || lab_failed
say "the lab's VMs done"

# The fuzz targets' 10 s runs, two at a time, at normal priority, in a process group of their own.
setsid bash -c "FUZZ_OPT=-Onone FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-10} Tests/fuzz/run.sh > .build/fuzz-smoke.log 2>&1; echo \$? > .build/fuzz.status" &
fuzz_runs=$!

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

wait "$fuzz_runs"
fuzz_runs=
[ "$(cat .build/fuzz.status 2> /dev/null)" = 0 ] || {
  tail -40 .build/fuzz-smoke.log
  say "a fuzz target FAILED"
  exit 1
}
grep -E '^(==|Fuzz)' .build/fuzz-smoke.log
say "the fuzz targets' runs done"
exit $suite
