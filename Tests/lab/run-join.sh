# Runs inside a lab VM of its own (see vm.sh): only pushdiag join's section (join.sh), which
# brings hwsim up itself; make lab runs it as run.sh's section 10 instead.
# For work on join: `Tests/lab/vm.sh Tests/lab/run-join.sh RESULTS/join`, then LabTests with
# PUSHDIAG_LAB_RESULTS=RESULTS (the other sections' tests need their files too).
#   run-join.sh RESULTS_DIR
set -u
out=$1
cd "$(dirname "$0")/../.."
PD=$(pwd)/.build/debug/pushdiag
mkdir -p "$out" && rm -rf "${out:?}"/*
. Tests/lab/setup.sh
. Tests/lab/medium.sh
. Tests/lab/join.sh
$PD --version > /dev/null
lab_join "$out" || { echo "lab: join's section did not finish"; exit 1; }
echo "lab: join's section done"
