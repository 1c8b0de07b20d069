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
# FuzzConfig needs TOMLKit (toml++ in C++ under a Swift API) built with the same instrumentation.
tomlkit() {
  local src=.build/checkouts/TOMLKit/Sources lib="$OUT/tomlkit"
  [ -d "$src" ] || swift package resolve >&2
  mkdir -p "$lib"
  for f in "$src"/CTOML/Sources/*.cpp; do
    o="$lib/$(basename "$f" .cpp | tr -c 'A-Za-z0-9\n' _).o"
    [ "$o" -nt "$f" ] || clang++ -w -std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address -DTOML_EXCEPTIONS=1 \
      -I "$src/CTOML/include" -c "$f" -o "$o" >&2
  done
  local swift=()  # TOMLKit's folders have spaces in their names
  mapfile -d '' swift < <(find "$src/TOMLKit" -name '*.swift' -print0 | sort -z)
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name TOMLKit -emit-module -emit-module-path "$lib/TOMLKit.swiftmodule" \
    -emit-library -static -o "$lib/libTOMLKit.a" -I "$src/CTOML/include/CTOML" "${swift[@]}" >&2
  echo "-I $lib -I $src/CTOML/include/CTOML -L $lib -lTOMLKit $lib/*.o -lstdc++"
}
for t in $TARGETS; do
  extra="" options=""
  if [ "$t" = Config ]; then
    extra="$(tomlkit) Sources/PushdiagIO/ConfigParser.swift"
    # TOMLKit 0.6.0 never frees a parsed table nor its error record (no deinit): a few hundred
    # bytes per file, harmless for one configuration per run, but leak checks would stop the fuzzer.
    options="-detect_leaks=0"
  fi
  # shellcheck disable=SC2086
  swiftc -sanitize=fuzzer,address -parse-as-library -O -D FUZZ_WITH_CORE_SOURCES -module-name "Fuzz$t" \
    $(find Sources/PushdiagCore -name '*.swift' | sort) "Tests/fuzz/Fuzz$t.swift" $extra -o "$OUT/fuzz-$t"
  corpus=$(echo "$t" | tr 'A-Z' 'a-z')
  mkdir -p "$OUT/corpus/$corpus" "$OUT/crashes/$t"
  echo "== Fuzz$t: $(ls "$OUT/corpus/$corpus" | wc -l) seeds, $SECONDS_EACH s"
  if ! "$OUT/fuzz-$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 $options \
        -artifact_prefix="$OUT/crashes/$t/" "$OUT/corpus/$corpus" > "$OUT/fuzz-$t.log" 2>&1; then
    echo "Fuzz$t: CRASH, input kept in $OUT/crashes/$t/"; tail -30 "$OUT/fuzz-$t.log"; status=1
  fi
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$OUT/fuzz-$t.log" | sed "s/^/Fuzz$t: /"
  echo "Fuzz$t: corpus $(ls "$OUT/corpus/$corpus" | wc -l) inputs"
done
exit $status
