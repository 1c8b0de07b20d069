# Runs inside a lab VM of its own (see vm.sh): only the radio medium's walks (medium.sh), which
# bring hwsim up under the medium themselves; make lab runs them at the end of run.sh instead.
# For work on the medium: `Tests/lab/vm.sh Tests/lab/run-medium.sh RESULTS/medium`, then
# LabTests with PUSHDIAG_LAB_RESULTS=RESULTS (the other sections' tests need their files too).
#   run-medium.sh RESULTS_DIR
set -u
out=$1
cd "$(dirname "$0")/../.."
PD=$(pwd)/.build/debug/pushdiag
mkdir -p "$out" && rm -rf "${out:?}"/*
. Tests/lab/setup.sh
. Tests/lab/medium.sh
# A new VM reads the debug binary and its libraries over 9p at its first start: once here, not
# inside a walk's timing.
$PD --version > /dev/null
lab_medium_walks "$out" || { echo "lab: the medium's walks did not finish"; exit 1; }
echo "lab: the medium's walks done"
