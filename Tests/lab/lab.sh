#!/usr/bin/env bash
# make lab: the lab's two VMs one after the other (run.sh: sections 1 to 8 on hwsim's perfect
# air; run-medium.sh: the radio medium's walks, which bring hwsim up on their own), then LabTests
# on the host against what both wrote. Not side by side: tried on 2026-11-25, the medium's VM
# beside the other took 4.5 minutes to set up instead of under one, and its station joined the
# far AP (the first scan missed the near one). Nothing else should run meanwhile: the VMs are
# emulated (TCG) and their roams and the medium are timing-sensitive.
#   Tests/lab/lab.sh RESULTS_DIR [record]
# With "record", only run.sh runs (it refreshes fixtures/; the medium records none).
set -u
out=$1
mode=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
start=$(date +%s)
LAB_NAME=vm "$here/vm.sh" "$here/run.sh" "$out" $mode
lab=$?
middle=$(date +%s)
medium=0
if [ "$mode" != record ]; then
  LAB_NAME=medium "$here/vm.sh" "$here/run-medium.sh" "$out/medium"
  medium=$?
fi
echo "lab: sections 1 to 8 in $(( middle - start )) s (exit $lab), the medium's walks in $(( $(date +%s) - middle )) s (exit $medium)"

# The assertions, with iw's outputs as the oracle; on failure a digest of the issues closes the
# output, where a CI log's tail shows it.
log=$out/labtests.log
PUSHDIAG_LAB_RESULTS="$out" "$root/.build/debug/pushdiagPackageTests.xctest" --testing-library swift-testing --filter LabTests > "$log" 2>&1
tests=$?
grep -vE 'passed after|^.\[90m↳|^↳' "$log" | tail -60
if [ $tests != 0 ] || [ $lab != 0 ] || [ $medium != 0 ]; then
  echo "lab: what failed:"
  grep -E -A3 'recorded an issue|Caught error' "$log" | cut -c1-400 | head -80
  echo "lab: FAILED (sections 1 to 8: exit $lab, the medium: exit $medium, LabTests: exit $tests; all of LabTests' output in $log)"
  exit 1
fi
