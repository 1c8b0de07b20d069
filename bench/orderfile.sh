#!/usr/bin/env bash
# make orderfile: the functions a resident `pushdiag exporter` runs, in bench/exporter.order, for
# the release link to lay side by side (lld's --symbol-ordering-file; see the Makefile).
#
# Why: the kernel maps a binary's code in whole windows around each page it faults on (64 KiB of
# fault-around, and whole large folios where the file system makes them). The exporter at rest
# runs a few thousand scattered functions of the standard library, Foundation and pushdiag, and so
# held most of its 19 MB of code resident. With those functions together the windows it touches
# are few (docs/PERFORMANCE.md, the exporter at rest).
#
# How: the release binary runs under callgrind as the exporter bench runs it (10 sessions on
# pushdiag responders, heartbeats, scrapes of /metrics, one /probe, a SIGHUP reload, SIGTERM);
# every function of the binary callgrind saw execute is listed, hottest first. The list is
# committed: a release build must not need valgrind. A stale list costs only locality (names
# that no longer exist are skipped by the linker).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/pushdiag}
ORDER=${ORDER:-bench/exporter.order}
SESSIONS=${SESSIONS:-10}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
command -v valgrind > /dev/null || { echo "orderfile: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "orderfile: no $BIN; run make build first" >&2; exit 1; }

# valgrind cannot read the release binary's debug information; a copy without it runs the same
# code at the same addresses, and its symbol table still names every function.
plain="$OUT/pushdiag-nodebug"
objcopy --strip-debug "$BIN" "$plain"

source bench/responders.sh
start_responders "$SESSIONS"
LISTEN=$((base + SESSIONS + 1))
cg="$OUT/exporter.callgrind"
rm -f "$cg"
valgrind --tool=callgrind --callgrind-out-file="$cg" --demangle=no --compress-strings=no \
  --compress-pos=no --dump-line=no "$plain" exporter --listen 127.0.0.1:$LISTEN "${servers[@]}" \
  2> "$OUT/orderfile-exporter.log" &
EXP=$!
pids+=($EXP)
for _ in $(seq 600); do grep -q "listening on" "$OUT/orderfile-exporter.log" && break; sleep 0.1; done
grep -q "listening on" "$OUT/orderfile-exporter.log" || { echo "orderfile: the exporter did not start under valgrind; see $OUT/orderfile-exporter.log" >&2; exit 1; }
# Two heartbeat intervals (10 s each) with scrapes, a one-shot probe and a reload among them.
for round in 1 2 3; do
  sleep 8
  curl -s -o /dev/null --max-time 30 "127.0.0.1:$LISTEN/metrics" || true
  [ "$round" != 2 ] || curl -s -o /dev/null --max-time 30 "127.0.0.1:$LISTEN/probe?target=127.0.0.1:$base&protocol=simplepush" || true
  [ "$round" != 2 ] || kill -HUP "$EXP"
done
kill -TERM "$EXP"
wait "$EXP" || true

# callgrind's "ob=" names the object a function came from and "fn=" the function; its cost lines
# follow ('2, '3: a recursion's deeper levels, one function). Keep the functions of the binary
# with any cost, hottest first (ties by name, so that a rerun gives the same list).
awk -v me="$(basename "$plain")" '
  /^ob=/ { ob = substr($0, 4); next }
  /^fn=/ { fn = substr($0, 4); sub(/\047[0-9]+$/, "", fn); mine = (index(ob, me) > 0); next }
  /^(cob|cfn|cfi|cfl|calls|fl|fi|fe)=/ { if ($0 ~ /^calls=/) skipnext = 1; next }
  /^[0-9+-]/ { if (skipnext) { skipnext = 0; next } if (mine && fn != "") cost[fn] += $2; next }
  END { for (f in cost) if (cost[f] > 0 && f !~ /^0x|^\(/) print cost[f] "\t" f }  # not the labels callgrind gives what it cannot name
' "$cg" | LC_ALL=C sort -t$'\t' -k1,1nr -k2,2 | cut -f2 > "$ORDER.tmp"
n=$(wc -l < "$ORDER.tmp")
[ "$n" -gt 100 ] || { echo "orderfile: only $n functions seen; kept the old $ORDER" >&2; rm -f "$ORDER.tmp"; exit 1; }
mv "$ORDER.tmp" "$ORDER"
echo "orderfile: $n functions in $ORDER"
