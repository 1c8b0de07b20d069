# Runs inside a lab VM of its own (see vm.sh): one of the sections that bring hwsim up
# themselves, alone, for work on it; make lab runs them within run.sh instead.
#   medium: the radio medium's walks (medium.sh; run.sh's section 9)
#   join:   pushdiag join against real rejoins (join.sh; run.sh's section 8b)
# `Tests/lab/vm.sh Tests/lab/run-section.sh join RESULTS/join`, then LabTests with
# PUSHDIAG_LAB_RESULTS=RESULTS (the other sections' tests need their files too).
#   run-section.sh medium|join RESULTS_DIR
set -u
section=$1 out=$2
cd "$(dirname "$0")/../.."
PD=$(pwd)/.build/release/pushdiag
[ -x "$PD" ] || { echo "lab: no $PD (make lab builds it: make build CONFIG=release)"; exit 2; }
mkdir -p "$out" && rm -rf "${out:?}"/*
. Tests/lab/setup.sh
. Tests/lab/medium.sh
# A new VM reads pushdiag over 9p at its first start: once here, not
# inside a section's timing.
$PD --version > /dev/null
case $section in
  medium) lab_medium_walks "$out" ;;
  join) . Tests/lab/join.sh && lab_join "$out" ;;
  *) echo "lab: no section $section (medium or join)"; exit 2 ;;
esac || { echo "lab: the $section section did not finish"; exit 1; }
echo "lab: the $section section done"
