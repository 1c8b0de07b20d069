#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS from seed corpora of the fixtures
# and ../shared/pcaps. A crash leaves its input in .build/fuzz/crashes/ and fails the run.
#   FUZZ_SECONDS=600 Tests/fuzz/run.sh [Capture Netlink Push Config WebConfig Join Walk Pcapng DBus HTTP]
#   FUZZ_BUILD_ONLY=1 Tests/fuzz/run.sh   (builds every target, runs none)
# FUZZ_JOBS targets run at a time (the number of cores by default; each libFuzzer run is one
# process on one core); their summaries are printed in the targets' order.
# The core's sources are compiled once for all targets (-sanitize=fuzzer,address, a static
# library built for testing, so the targets reach the few internal initialisers they use with
# access control off); each target is then its one file, compiled and linked against it. (Each
# target used to compile the whole core again: four compiles of the same sources.) ConfigFiles.swift,
# what the configuration targets share, is compiled into each target.
# FUZZ_OPT is the optimisation: -O by default (make fuzz); make test's 10 s runs take -Onone,
# whose one compile of the core is 50 s of CPU instead of 190 (each run then executes every seed
# and fewer mutations: docs/PERFORMANCE.md, "make test"). Each level builds in a folder of its
# own (.build/fuzz/bin-O, bin-Onone); the corpora and crashes are shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-30}
OPT=${FUZZ_OPT:--O}
case $OPT in -O | -Onone | -Osize) ;; *) echo "FUZZ_OPT: -O, -Onone or -Osize, not $OPT" >&2; exit 2 ;; esac
OUT=.build/fuzz
BIN=$OUT/bin$OPT
TARGETS=${*:-Capture Netlink Push Config WebConfig Join Walk Pcapng DBus HTTP}
# Linked by the toolchain's lld: 0.8 s a target against gold's 4 s (docs/PERFORMANCE.md).
FLAGS=(-sanitize=fuzzer,address -parse-as-library "$OPT" -use-ld=lld)
mkdir -p "$OUT/crashes" "$OUT/corpus" "$BIN/core"
# The core, when a source is newer than the library (or the library is missing).
lib=$BIN/core/libPushdiagCore.a
if [ ! -f "$lib" ] || [ -n "$(find Sources/PushdiagCore Tests/fuzz/run.sh -newer "$lib" -print -quit)" ]; then
  swiftc "${FLAGS[@]}" -wmo -enable-testing -module-name PushdiagCore \
    -emit-module -emit-module-path "$BIN/core/PushdiagCore.swiftmodule" -emit-library -static -o "$lib" \
    $(find Sources/PushdiagCore -name '*.swift' | sort)
fi
for t in $TARGETS; do
  bin=$BIN/fuzz-$t
  if [ "$t" = DBus ]; then
    # The system bus's decoding is PushdiagIO's, over libdbus: its one file with the target.
    [ -f "$bin" ] && [ "$bin" -nt Sources/PushdiagIO/Join/SystemBus.swift ] && [ "$bin" -nt Tests/fuzz/FuzzDBus.swift ] && continue
    # shellcheck disable=SC2046  # pkg-config's flags are words of their own
    swiftc "${FLAGS[@]}" -module-name FuzzDBus -I Sources/CDBus $(pkg-config --cflags dbus-1 | sed 's/-I/-Xcc -I/g') \
      Tests/fuzz/FuzzDBus.swift Sources/PushdiagIO/Join/SystemBus.swift -ldbus-1 -o "$bin" 2> "$BIN/fuzz-$t.build.log" || { cat "$BIN/fuzz-$t.build.log"; exit 1; }
    continue
  fi
  [ -f "$bin" ] && [ "$bin" -nt "$lib" ] && [ "$bin" -nt "Tests/fuzz/Fuzz$t.swift" ] && [ "$bin" -nt Tests/fuzz/ConfigFiles.swift ] && continue
  swiftc "${FLAGS[@]}" -module-name "Fuzz$t" -I "$BIN/core" -Xfrontend -disable-access-control \
    "Tests/fuzz/Fuzz$t.swift" Tests/fuzz/ConfigFiles.swift "$lib" -o "$bin" 2> "$BIN/fuzz-$t.build.log" || { cat "$BIN/fuzz-$t.build.log"; exit 1; }
done
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
/usr/bin/python3 Tests/fuzz/corpus.py "$(pwd)" "$OUT/corpus" > "$OUT/corpus.txt"
# One target's run; its summary (and on a crash the log's tail) in fuzz-T.summary, exit 1 on a crash.
fuzz_one() {
  local t=$1 corpus
  corpus=$(echo "$t" | tr 'A-Z' 'a-z')
  mkdir -p "$OUT/corpus/$corpus" "$OUT/crashes/$t"
  {
    echo "== Fuzz$t: $(ls "$OUT/corpus/$corpus" | wc -l) seeds, $SECONDS_EACH s ($OPT)"
    local crashed=0
    if ! "$BIN/fuzz-$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
          -artifact_prefix="$OUT/crashes/$t/" "$OUT/corpus/$corpus" > "$OUT/fuzz-$t.log" 2>&1; then
      echo "Fuzz$t: CRASH, input kept in $OUT/crashes/$t/"; tail -30 "$OUT/fuzz-$t.log"; crashed=1
    fi
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$OUT/fuzz-$t.log" | sed "s/^/Fuzz$t: /" || true
    echo "Fuzz$t: corpus $(ls "$OUT/corpus/$corpus" | wc -l) inputs"
    return $crashed
  } > "$OUT/fuzz-$t.summary"
}
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
status=0
running=0
for t in $TARGETS; do
  if [ "$running" -ge "$jobs_at_once" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
for t in $TARGETS; do cat "$OUT/fuzz-$t.summary"; done
exit $status
