#!/usr/bin/env bash
# make lab: one VM runs run.sh (sections 1 to 8 on the radio medium's near layout, then join's
# rejoins (8b) and the medium's walks, each bringing hwsim up anew), then LabTests run on the
# host against what it wrote. Nothing else should share the VM's cores meanwhile: the VM is
# emulated (TCG, two vCPUs: vm.sh) and its roams and the medium are timing-sensitive. (Until
# 2026-11-26 the medium's walks ran in a second VM after the first: a second boot and a second
# cold start of the debug binary over 9p, about 40 s. Beside the first, one core each, they
# failed on 2026-11-25: the medium's VM took 4.5 minutes to set up and its station joined the
# far AP.) The VM runs the release build (.build/release/pushdiag, the binary users install):
# the debug build's argument parser checks every option group at each start, 10 to 15 s of
# emulated CPU per run (0.1 s for the release build; docs/PERFORMANCE.md). LabTests run the same
# binary for their replays.
#   Tests/lab/lab.sh RESULTS_DIR [record]
# With "record", run.sh refreshes the lab recordings in fixtures/ (the medium records none).
# LAB_PART says what runs:
#   all (the default): the VM, then LabTests;
#   vm: the VM only; tests: LabTests only (make test runs LabTests among the suite's
#     processes, Tests/suite.sh, and this script's LabTests only when a VM failed);
#   vm-sections: a VM for sections 1 to 8b only (run.sh no-medium); vm-medium: a VM for the
#     medium's walks only (run-section.sh medium, into RESULTS_DIR/medium).
# make test runs the last two: the first on one vCPU (LAB_SMP=1) held to one core (taskset)
# while the ASan and fuzz builds have the other, the medium's walks after them on both cores.
# Builds beside the whole VM sharing its cores, even at SCHED_IDLE (ionice idle), failed two
# fresh-clone runs of three on 2026-11-27 (join's steps seconds late, DHCP with no ACK, netem's
# 5% loss measured at 10.3%); on a core of their own they did not (sections 1 to 8b), and the
# medium's walks on one vCPU fell behind (docs/PERFORMANCE.md, "make test").
set -u
out=$1
mode=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
part=${LAB_PART:-all}
mkdir -p "$out"
lab=0
start=$(date +%s)
case $part in
  all | vm)
    LAB_NAME=vm "$here/vm.sh" "$here/run.sh" "$out" $mode
    lab=$?
    echo "lab: the VM (sections 1 to 8b and the medium's walks) in $(($(date +%s) - start)) s (exit $lab)"
    [ "$part" != vm ] || exit $lab
    ;;
  vm-sections)
    LAB_NAME=vm "$here/vm.sh" "$here/run.sh" "$out" no-medium
    lab=$?
    echo "lab: the VM of sections 1 to 8b in $(($(date +%s) - start)) s (exit $lab)"
    exit $lab
    ;;
  vm-medium)
    LAB_NAME=medium "$here/vm.sh" "$here/run-section.sh" medium "$out/medium"
    lab=$?
    echo "lab: the VM of the medium's walks in $(($(date +%s) - start)) s (exit $lab)"
    exit $lab
    ;;
  tests) ;;
  *)
    echo "lab: LAB_PART is all, vm, tests, vm-sections or vm-medium, not $part" >&2
    exit 2
    ;;
esac

# The assertions, with iw's outputs as the oracle (the debug build's test bundle, or
# PUSHDIAG_TESTS_BUNDLE: make test's is the ASan build's); on failure a digest of the issues closes the
# output, where a CI log's tail shows it.
log=$out/labtests.log
PUSHDIAG_LAB_RESULTS="$out" PUSHDIAG_BINARY="$root/.build/release/pushdiag" "${PUSHDIAG_TESTS_BUNDLE:-$root/.build/debug/pushdiagPackageTests.xctest}" --testing-library swift-testing --filter LabTests > "$log" 2>&1
tests=$?
grep -vE 'passed after|^.\[90m↳|^↳' "$log" | tail -60
if [ $tests != 0 ] || [ $lab != 0 ]; then
  echo "lab: what failed:"
  grep -E -A3 'recorded an issue|Caught error' "$log" | cut -c1-400 | head -80
  vm="the VM: exit $lab"
  [ "$part" != tests ] || vm="the VM: run before"
  echo "lab: FAILED ($vm, LabTests: exit $tests; all of LabTests' output in $log)"
  exit 1
fi
