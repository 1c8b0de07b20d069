#!/usr/bin/env bash
# make bench, part "exporter": pushdiag exporter at rest with 10 held sessions (one pushdiag
# responder each, heartbeats every 10 s, the default) and a scrape every 15 s, as Prometheus
# would: its resident memory and its CPU over a minute. Rewrites the bench:exporter block of
# docs/PERFORMANCE.md. Called by bench/run.sh; BIN, OUT and update_doc come from there when
# sourced, or are set here when run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${CONFIG:-release}
BIN=${BIN:-.build/$CONFIG/pushdiag}
OUT=${OUT:-bench/out}
SESSIONS=${SESSIONS:-10}
SECONDS_AT_REST=${SECONDS_AT_REST:-60}
mkdir -p "$OUT"
doc=docs/PERFORMANCE.md
source bench/responders.sh
start_responders "$SESSIONS"
sleep 1
LISTEN=$((base + SESSIONS + 1))
"$BIN" exporter --listen 127.0.0.1:$LISTEN "${servers[@]}" 2> "$OUT/exporter.log" &
EXP=$!
pids+=($EXP)
for _ in $(seq 50); do grep -q "listening on" "$OUT/exporter.log" 2>/dev/null && break; sleep 0.1; done
sleep 5  # every session connected, first heartbeats done
up=$(curl -s "127.0.0.1:$LISTEN/metrics" | grep -c '^pushdiag_session_up{.*} 1' || true)

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$EXP/stat"; }
c0=$(cpu); t0=$EPOCHREALTIME
end=$(( $(date +%s) + SECONDS_AT_REST ))
scrapes=0
while [ "$(date +%s)" -lt "$end" ]; do
  curl -s -o /dev/null "127.0.0.1:$LISTEN/metrics" && scrapes=$((scrapes + 1))
  sleep 15 & wait $! || true
  [ "$(date +%s)" -lt "$end" ] || break
done
c1=$(cpu); t1=$EPOCHREALTIME
RSS=$(awk '/VmRSS/ {print $2}' "/proc/$EXP/status")
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$EXP/status")
ANON=$(awk '/RssAnon/ {print $2}' "/proc/$EXP/status")
PSS=$(awk '/^Pss:/ {print $2}' "/proc/$EXP/smaps_rollup")
# The pages of files counted in VmRSS: the shared libraries (libc, libstdc++, OpenSSL, libpcap,
# libnl, SQLite; Swift's runtime and Foundation too in a build that links them dynamically) and
# the pushdiag binary itself (the release build carries Swift's runtime and Foundation).
LIBS=$(awk '/^[0-9a-f]/ {lib = ($6 ~ /\.so/)} /^Rss:/ && lib {s += $2} END {print s + 0}' "/proc/$EXP/smaps")
SELF=$(awk -v b="$(readlink -f "$BIN")" '/^[0-9a-f]/ {me = ($6 == b)} /^Rss:/ && me {s += $2} END {print s + 0}' "/proc/$EXP/smaps")
LINKED=$(grep -q libswiftCore < <(ldd "$BIN") && echo "dynamically" || echo "statically")
THREADS=$(awk '/Threads/ {print $2}' "/proc/$EXP/status")
CPU_PCT=$(awk -v c="$((c1 - c0))" -v hz="$ticks" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", 100 * c / hz / (b - a) }')
ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
SENT=$(curl -s "127.0.0.1:$LISTEN/metrics" | awk '/^pushdiag_heartbeats_sent_total/ {s += $2} END {print s + 0}')
MACHINE="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"

table=$(cat <<TABLE
| pushdiag exporter at rest | value |
|---|---:|
| held sessions (pushdiag responders on loopback), up | $up of $SESSIONS |
| heartbeats sent by the end | $SENT |
| resident memory (VmRSS) at the end | $RSS KiB |
| of which the pushdiag binary's pages (Swift's runtime and Foundation linked $LINKED) | $SELF KiB |
| of which shared libraries' pages (libc, libstdc++, OpenSSL, libpcap, libnl, SQLite$( [ "$LINKED" = dynamically ] && echo ", Swift's runtime, Foundation")) | $LIBS KiB |
| of which anonymous (heap, stacks: pushdiag's own) | $ANON KiB |
| proportional set size (Pss: shared pages divided among their users) | $PSS KiB |
| peak resident memory (VmHWM) | $HWM KiB |
| threads | $THREADS |
| CPU over ${ELAPSED} s with $scrapes scrape(s), of one core | $CPU_PCT % |
TABLE
)
echo "$table"
gen=$(cat <<GEN
<!-- bench:exporter:start -->
Measured $(date -u +%Y-%m-%d) by \`make bench\` (bench/exporter.sh) on: $MACHINE. Build: $CONFIG.
$SESSIONS sessions with heartbeats every 10 s (the default), one /metrics scrape every 15 s; CPU from /proc/PID/stat (user + system) over the window.

$table
<!-- bench:exporter:end -->
GEN
)
if grep -q "bench:exporter:start" "$doc"; then
  awk -v gen="$gen" 'index($0, "bench:exporter:start") {print gen; skip=1; next} index($0, "bench:exporter:end") {skip=0; next} !skip' "$doc" > "$doc.tmp"
  mv "$doc.tmp" "$doc"
else
  printf '\n## The exporter at rest\n\nTargets (issue: exporter): under 20 MB resident and under 1%% of a core with 10 held sessions.\n\n%s\n' "$gen" >> "$doc"
fi
echo "docs/PERFORMANCE.md updated (exporter)"
