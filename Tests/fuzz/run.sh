#!/usr/bin/env bash
# Builds the libFuzzer targets (the core's sources with the fuzz entry point, -sanitize=fuzzer,address)
# and runs each for FUZZ_SECONDS from seed corpora of the fixtures and ../shared/pcaps.
# A crash leaves its input in .build/fuzz/crashes/ and fails the run.
#   FUZZ_SECONDS=600 Tests/fuzz/run.sh [Capture Netlink Push Config]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-30}
OUT=.build/fuzz
TARGETS=${*:-Capture Netlink Push Config}
mkdir -p "$OUT/crashes" "$OUT/corpus"
/usr/bin/python3 Tests/fuzz/corpus.py "$(pwd)" "$OUT/corpus" > "$OUT/corpus.txt"
status=0
for t in $TARGETS; do
  swiftc -sanitize=fuzzer,address -parse-as-library -O -D FUZZ_WITH_CORE_SOURCES -module-name "Fuzz$t" \
    $(find Sources/PushdiagCore -name '*.swift' | sort) "Tests/fuzz/Fuzz$t.swift" -o "$OUT/fuzz-$t"
  corpus=$(echo "$t" | tr 'A-Z' 'a-z')
  mkdir -p "$OUT/corpus/$corpus" "$OUT/crashes/$t"
  echo "== Fuzz$t: $(ls "$OUT/corpus/$corpus" | wc -l) seeds, $SECONDS_EACH s"
  if ! "$OUT/fuzz-$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$OUT/crashes/$t/" "$OUT/corpus/$corpus" > "$OUT/fuzz-$t.log" 2>&1; then
    echo "Fuzz$t: CRASH, input kept in $OUT/crashes/$t/"; tail -30 "$OUT/fuzz-$t.log"; status=1
  fi
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$OUT/fuzz-$t.log" | sed "s/^/Fuzz$t: /"
  echo "Fuzz$t: corpus $(ls "$OUT/corpus/$corpus" | wc -l) inputs"
done
exit $status
