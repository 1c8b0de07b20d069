#!/usr/bin/env bash
# make bench: capture analysis throughput on three mixes of frames against a bare libpcap loop
# (the floor) and tshark, and peak memory at 1x and 10x the capture size; heartbeat round trips;
# watch and start-up. Prints tables and rewrites docs/PERFORMANCE.md. Each figure is the median
# of RUNS runs.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${CONFIG:-release}
RUNS=${RUNS:-5}
BIN=.build/$CONFIG/pushdiag
OUT=bench/out
SHARED=../shared/pcaps
mkdir -p "$OUT" bench/bin
gcc -O2 -o bench/bin/floor bench/floor.c -lpcap
gcc -O2 -o bench/bin/rttclient bench/rttclient.c

# BENCH_PARTS picks parts (default: all, in this order): capture heartbeat watch storm exporter.
doc=docs/PERFORMANCE.md
want() { [[ " ${BENCH_PARTS:-capture heartbeat watch storm exporter} " == *" $1 "* ]]; }
MACHINE="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"

if want capture; then
# 1. Three mixes of real frames, each repeated with shifted timestamps (bench/repeat.py) to about
#    2.9 million frames (10x) and a tenth of that (1x, for memory), one hour's shift a pass:
#    - mixed: every complete radiotap capture in ../shared/pcaps concatenated (mostly probe
#      requests), or the project's fixtures when that folder is absent;
#    - control: the control frames of those captures (ACK, RTS, CTS, Block Ack and BAR), filtered
#      by tshark;
#    - data: their data frames (QoS data, null data, ...).
if [ ! -s "$OUT/base.pcap" ]; then
  if [ -f "$SHARED/oracle.tsv" ]; then
    mapfile -t files < <(awk -F'\t' 'NR>1 && $4==127 && $39=="" {print "'"$SHARED"'/" $1}' "$SHARED/oracle.tsv")
    source="the ${#files[@]} complete radiotap captures of ../shared/pcaps"
  else
    files=(fixtures/retries-above-15pct.pcap fixtures/beacon-bssload-55pct.pcap fixtures/roam-ft.pcap fixtures/roam-reassociation.pcap)
    source="the project's fixtures (../shared/pcaps absent)"
  fi
  mergecap -F pcap -a -w "$OUT/base.pcap" "${files[@]}"
  echo "$source" > "$OUT/source.txt"
  rm -f "$OUT"/mix-*.pcap
fi
[ -s "$OUT/mix-control-base.pcap" ] || tshark -n -r "$OUT/base.pcap" -Y 'wlan.fc.type == 1' -F pcap -w "$OUT/mix-control-base.pcap" 2>/dev/null
[ -s "$OUT/mix-data-base.pcap" ] || tshark -n -r "$OUT/base.pcap" -Y 'wlan.fc.type == 2' -F pcap -w "$OUT/mix-data-base.pcap" 2>/dev/null
cp -f "$OUT/base.pcap" "$OUT/mix-mixed-base.pcap"
MIXES=()
TARGET=${TARGET:-2880000}  # frames of a 10x file
count() { capinfos -c -M "$1" | awk -F': *' '/Number of packets/ {print $2}'; }
for m in mixed control data; do
  n=$(count "$OUT/mix-$m-base.pcap")
  [ "${n:-0}" -gt 0 ] || { echo "bench: no $m frames to build that mix from; skipped"; continue; }
  MIXES+=("$m")
  passes=$(( (TARGET / n + 9) / 10 ))  # passes of the 1x file; the 10x file has ten times as many
  [ -s "$OUT/mix-$m-x1.pcap" ] || /usr/bin/python3 bench/repeat.py "$OUT/mix-$m-base.pcap" "$passes" "$OUT/mix-$m-x1.pcap" > /dev/null
  [ -s "$OUT/mix-$m-x10.pcap" ] || /usr/bin/python3 bench/repeat.py "$OUT/mix-$m-base.pcap" $((passes * 10)) "$OUT/mix-$m-x10.pcap" > /dev/null
  # The same records as pcapng (what Wireshark and dumpcap write): a section, an interface,
  # enhanced packet blocks.
  for x in x1 x10; do
    [ -s "$OUT/mix-$m-$x.pcapng" ] || editcap -F pcapng "$OUT/mix-$m-$x.pcap" "$OUT/mix-$m-$x.pcapng"
  done
done
describe() {  # describe MIX: the frames of the base capture by type, in per cent
  tshark -n -r "$OUT/mix-$1-base.pcap" -T fields -e wlan.fc.type 2>/dev/null |
    awk '{n[$1]++; t++} END {printf "%d frames: %.0f%% management, %.0f%% control, %.0f%% data", t, 100*n[0]/t, 100*n[1]/t, 100*n[2]/t}'
}

frames() { "$BIN" capture --format json "$1" > "$OUT/report.json" || true; awk -F"[:,]" '/^  "frames"/ && !done {gsub(/ /,"",$2); print $2; done=1}' "$OUT/report.json"; }
fi

# time_cmd CMD...: prints "seconds maxrss_kib" of one run (output discarded). Seconds come from
# bash's microsecond clock around the run (GNU time's %e has 10 ms steps, a sixteenth of the
# floor's run); memory from GNU time.
time_cmd() {
  local t0=$EPOCHREALTIME t1
  /usr/bin/time -f "%M" -o "$OUT/time.txt" "$@" >/dev/null 2>&1 || true
  t1=$EPOCHREALTIME
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -n 1 "$OUT/time.txt")"
}
# update_doc NAME TEXT HEADING: replace the block between the bench:NAME markers of $doc with
# TEXT, or append HEADING and TEXT when the page has no such block yet.
update_doc() {
  if [ -f "$doc" ] && grep -q "bench:$1:start" "$doc"; then
    awk -v gen="$2" -v start="bench:$1:start" -v end="bench:$1:end" \
      'index($0, start) {print gen; skip=1; next} index($0, end) {skip=0; next} !skip' "$doc" > "$doc.tmp"
    mv "$doc.tmp" "$doc"
  else
    printf '\n%s\n\n%s\n' "$3" "$2" >> "$doc"
  fi
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {  # measure LABEL CMD... → sets SECS and RSS (medians)
  shift; local s=() r=()
  for _ in $(seq "$RUNS"); do read -r t m < <(time_cmd "$@"); s+=("$t"); r+=("$m"); done
  SECS=$(printf '%s\n' "${s[@]}" | median); RSS=$(printf '%s\n' "${r[@]}" | median)
}

# pair LABEL: runs the floor and pushdiag alternately on the same file RUNS times, so that a
# drift of the machine's speed touches both; sets FLOOR_S, PD_S (medians), RATIOS (each pair's
# floor/pushdiag time, sorted) and PD_RSS (median).
pair() {
  local f=$1 fs=() ps=() rs=() rr=() t m tf
  for _ in $(seq "$RUNS"); do
    read -r tf _ < <(time_cmd bench/bin/floor "$f"); fs+=("$tf")
    read -r t m < <(time_cmd "$BIN" capture --format json "$f"); ps+=("$t"); rs+=("$m")
    rr+=("$(awk -v a="$tf" -v b="$t" 'BEGIN { if (b <= 0) b = 0.001; printf "%.2f", a / b }')")
  done
  FLOOR_S=$(printf '%s\n' "${fs[@]}" | median); PD_S=$(printf '%s\n' "${ps[@]}" | median); PD_RSS=$(printf '%s\n' "${rs[@]}" | median)
  RATIOS=$(printf '%s\n' "${rr[@]}" | sort -n | paste -sd' ')
}
fps() { awk -v f="$1" -v s="$2" 'BEGIN { if (s <= 0) s = 0.001; printf "%.0f", f / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.001; printf "%.2f", a / b }'; }

if want capture; then
rows=""; mem_rows=""; summary=""; mixes_text=""
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for mix in "${MIXES[@]}"; do
  for fmt in pcap pcapng; do
    F10=$(frames "$OUT/mix-$mix-x10.$fmt"); F1=$(frames "$OUT/mix-$mix-x1.$fmt")
    cat "$OUT/mix-$mix-x10.$fmt" > /dev/null  # warm the page cache
    pair "$OUT/mix-$mix-x10.$fmt"
    R=$(ratio "$FLOOR_S" "$PD_S")
    rows+="| $mix | $fmt | $F10 | $FLOOR_S | $PD_S | $(fps "$F10" "$FLOOR_S") | $(fps "$F10" "$PD_S") | $R | $RATIOS |"$'\n'
    RSS10=$PD_RSS
    measure pushdiag1 "$BIN" capture --format json "$OUT/mix-$mix-x1.$fmt"; RSS1=$RSS
    mem_rows+="| $mix | $fmt | $RSS1 KiB | $RSS10 KiB | $(ratio "$RSS10" "$RSS1") |"$'\n'
    summary+="$mix ($fmt) $R, "
    if [ "$fmt" = pcap ]; then
      mixes_text+="- $mix: $(describe "$mix"), repeated to $F10 frames (1x: $F1)."$'\n'
      if [ "$mix" = mixed ]; then MIXED_F1=$F1; MIXED_F10=$F10; MIXED_FLOOR_S=$FLOOR_S; MIXED_PD_S=$PD_S; fi
    fi
  done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
measure fcs "$BIN" capture --check-fcs --format json "$OUT/mix-mixed-x10.pcap"; FCS_S=$SECS
measure tshark tshark -n -q -r "$OUT/mix-mixed-x1.pcap" -z 'io,stat,0,COUNT(wlan.fc.retry)wlan.fc.retry==1'; TS_S=$SECS
TS_FPS=$(fps "$MIXED_F1" "$TS_S")
TSHARK_VERSION=$(tshark --version 2>/dev/null | head -1)

table=$(cat <<TABLE
| mix, 10x | format | frames | floor: median s | pushdiag: median s | floor frames/s | pushdiag frames/s | vs floor | each run's floor/pushdiag |
|---|---|---:|---:|---:|---:|---:|---:|---|
${rows%$'\n'}

| other runs on the mixed mix | frames | median seconds | frames/s | vs floor |
|---|---:|---:|---:|---:|
| pushdiag capture --check-fcs, 10x | $MIXED_F10 | $FCS_S | $(fps "$MIXED_F10" "$FCS_S") | $(ratio "$MIXED_FLOOR_S" "$FCS_S") |
| tshark counting retries, 1x | $MIXED_F1 | $TS_S | $TS_FPS | $(awk -v a="$TS_FPS" -v b="$(fps "$MIXED_F10" "$MIXED_FLOOR_S")" 'BEGIN { printf "%.2f", a / b }') |

| peak memory (max RSS) of pushdiag capture | format | 1x | 10x | 10x / 1x |
|---|---|---:|---:|---:|
${mem_rows%$'\n'}
TABLE
)
echo "$table"
echo
echo "pushdiag against the floor per mix: ${summary%, } (target: at least 0.8); on the mixed mix $(awk -v a="$(fps "$MIXED_F10" "$MIXED_PD_S")" -v b="$TS_FPS" 'BEGIN { printf "%.1f", a / b }')x tshark's frames/s."

# Rewrite the generated part of docs/PERFORMANCE.md, between the markers.
doc=docs/PERFORMANCE.md
gen=$(cat <<GEN
<!-- bench:capture:start -->
Measured $(date -u +%Y-%m-%d) by \`make bench\` on: $MACHINE. Build: $CONFIG. $RUNS runs each, the floor and pushdiag alternately on the same file. Load average (1, 5, 15 min) at the start $LOAD_START, at the end $LOAD_END${BENCH_NOTE:+; $BENCH_NOTE}.
Each mix in both formats: classic pcap and its pcapng form (\`editcap -F pcapng\`); the floor reads each file through libpcap, pushdiag through its pipelined reader (the per-station analysis always on).
Mixes, from $(cat "$OUT/source.txt") (timestamps shifted one hour a pass by bench/repeat.py):
${mixes_text%$'\n'}
tshark: $TSHARK_VERSION, \`tshark -n -q -z io,stat,0,COUNT(wlan.fc.retry)wlan.fc.retry==1\` on the mixed 1x file.

$table

pushdiag against the floor: ${summary%, } (target: at least 0.8 on every mix); memory 10x / 1x above.
<!-- bench:capture:end -->
GEN
)
update_doc capture "$gen" ""
echo "docs/PERFORMANCE.md updated"
[ "${CAPTURE_ONLY:-0}" = 1 ] && exit 0  # CAPTURE_ONLY=1 bench/run.sh: the capture part alone

fi

if want heartbeat; then
# 2. Heartbeats on loopback against pushdiag responder: pushdiag's median round trip next to a
#    minimal C client's (timing overhead), and 1,000 simulated devices at once.
for _ in $(seq 10); do  # a free port: try until the responder says it listens
  PORT=$((20000 + RANDOM % 20000))
  "$BIN" responder --listen 127.0.0.1:$PORT 2> "$OUT/responder.log" &
  RESP=$!
  for _ in $(seq 50); do grep -q -e listening -e cannot "$OUT/responder.log" 2>/dev/null && break; sleep 0.1; done
  grep -q listening "$OUT/responder.log" && break
  wait $RESP 2>/dev/null || true
done
c_medians=(); p_medians=()
for _ in $(seq "$RUNS"); do
  c_medians+=("$(bench/bin/rttclient 127.0.0.1 $PORT 2000)")
  "$BIN" heartbeat 127.0.0.1:$PORT --count 2000 --interval 0s --format json > "$OUT/hb.json" || true
  p_medians+=("$(awk -F': ' '/"median"/ {gsub(/[ ,]/,"",$2); print $2 * 1000; exit}' "$OUT/hb.json")")
done
C_US=$(printf '%s\n' "${c_medians[@]}" | median); P_US=$(printf '%s\n' "${p_medians[@]}" | median)
OVERHEAD=$(awk -v a="$P_US" -v b="$C_US" 'BEGIN { printf "%.1f", a - b }')
"$BIN" heartbeat 127.0.0.1:$PORT --clients 1000 --count 10 --interval 1s --ramp 2s --format json > "$OUT/load.json" || true
kill -TERM $RESP; wait $RESP 2>/dev/null || true
# Top-level fields are indented by two spaces, those of rtt_ms by four (per_client's are deeper).
field() { awk -F' : ' -v k="^$2\"$1\"\$" '$1 ~ k {gsub(/[ ,]/,"",$2); print $2; exit}' "$OUT/load.json"; }
L_SENT=$(field sent "  "); L_RECV=$(field received "  "); L_CONN=$(field connected "  "); L_P99=$(field p99 "    "); L_P50=$(field median "    ")

hb_table=$(cat <<TABLE
| heartbeat on loopback (pushdiag responder) | value |
|---|---:|
| minimal C client, median round trip | $C_US µs |
| pushdiag heartbeat, median round trip | $P_US µs |
| pushdiag's overhead (difference of medians) | $OVERHEAD µs |
| 1,000 simulated devices: connected | $L_CONN |
| 1,000 simulated devices: heartbeats sent / answered | $L_SENT / $L_RECV |
| 1,000 simulated devices: median / p99 round trip | $L_P50 / $L_P99 ms |
TABLE
)
echo "$hb_table"
echo
echo "heartbeat timing overhead: $OVERHEAD µs (target: within 50 µs of the C client); 1,000 devices: $L_RECV of $L_SENT answered (target: none lost)."
gen=$(cat <<GEN
<!-- bench:heartbeat:start -->
Measured $(date -u +%Y-%m-%d) by \`make bench\` on: $MACHINE. Medians of $RUNS runs of 2,000 back-to-back heartbeats each
(bench/rttclient.c is the minimal C client); then one run of 1,000 devices × 10 heartbeats, 1 s apart, connections ramped over 2 s.

$hb_table
<!-- bench:heartbeat:end -->
GEN
)
update_doc heartbeat "$gen" "## Heartbeats

Targets (issue: push-server checks): pushdiag's median round trip within 50 µs of a minimal C client's against the same server; 1,000 concurrent simulated devices from this 2-core machine with no heartbeat lost and the aggregate p99 reported."
echo "docs/PERFORMANCE.md updated (heartbeats)"

fi

if want watch; then
# 3. watch over a million replayed events (memory must not grow), and start-up time.
/usr/bin/python3 bench/million-events.py fixtures/lab-watch-roams.pcap "$OUT/events-100k.pcap" 100000
/usr/bin/python3 bench/million-events.py fixtures/lab-watch-roams.pcap "$OUT/events-1m.pcap" 1000000
measure w100k "$BIN" watch --replay "$OUT/events-100k.pcap" --interface wlan2; W100_S=$SECS; W100_RSS=$RSS
measure w1m "$BIN" watch --replay "$OUT/events-1m.pcap" --interface wlan2; W1M_S=$SECS; W1M_RSS=$RSS
starts=()
for _ in $(seq 21); do
  s0=$(date +%s%N); "$BIN" --version > /dev/null; s1=$(date +%s%N)
  starts+=("$(( (s1 - s0) / 1000 ))")
done
START_US=$(printf '%s\n' "${starts[@]}" | median)
misc_table=$(cat <<TABLE
| watch --replay | events | median seconds | events/s | peak memory |
|---|---:|---:|---:|---:|
| 100,000 events | 100000 | $W100_S | $(fps 100000 "$W100_S") | $W100_RSS KiB |
| 1,000,000 events | 1000000 | $W1M_S | $(fps 1000000 "$W1M_S") | $W1M_RSS KiB |

Start-up: \`pushdiag --version\` median of 21 runs: $START_US µs.
TABLE
)
echo "$misc_table"
gen=$(cat <<GEN
<!-- bench:misc:start -->
Measured $(date -u +%Y-%m-%d) by \`make bench\` on: $MACHINE. Median of $RUNS runs each.

$misc_table
<!-- bench:misc:end -->
GEN
)
update_doc misc "$gen" "## watch and start-up

Targets (issue: hardening): flat memory for a million replayed events; a start-up cheap enough for cron."
echo "docs/PERFORMANCE.md updated (watch, start-up)"
fi

# 4. Reconnect storms over TLS: 1,000 and 10,000 devices against pushdiag's responder and against
#    mosquitto (MQTT over TLS), client and server on this machine. One run each (a 10,000 run is a
#    minute or two); the client's wall time, CPU and peak memory from GNU time.
if want storm; then
STORM=$OUT/storm
mkdir -p "$STORM"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$STORM/key.pem" -out "$STORM/cert.pem" \
  -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -days 30 2>/dev/null
ulimit -n "$(ulimit -Hn)"  # mosquitto keeps the limit it is given; pushdiag raises its own
MOSQUITTO_VERSION=$(mosquitto -h 2>&1 | head -1 || true)
storm_rows=(); storm_notes=()
# storm_server KIND PORT → starts the server, sets SERVER (its pid) and SERVER_LOG
storm_server() {
  SERVER_LOG=$STORM/$1-$2.log
  if [ "$1" = responder ]; then
    "$BIN" responder --listen 127.0.0.1:$2 --tls-cert "$STORM/cert.pem" --tls-key "$STORM/key.pem" > "$SERVER_LOG" 2>&1 &
    SERVER=$!; for _ in $(seq 50); do grep -q -e listening -e cannot "$SERVER_LOG" && break; sleep 0.1; done
  else
    # user root: mosquitto started as root otherwise drops to its own user, which may not read the key here.
    printf 'user root\nlistener %s 127.0.0.1\nallow_anonymous true\nmax_connections -1\ncertfile %s\nkeyfile %s\n' \
      "$2" "$STORM/cert.pem" "$STORM/key.pem" > "$STORM/mosquitto.conf"
    mosquitto -c "$STORM/mosquitto.conf" > "$SERVER_LOG" 2>&1 &
    SERVER=$!; for _ in $(seq 50); do grep -q -e running -e Error "$SERVER_LOG" && break; sleep 0.1; done
  fi
}
# storm KIND N RAMP [CONNECT_TIMEOUT]: one storm; appends a table row.
storm() {
  local kind=$1 n=$2 ramp=$3 ct=${4:-5s} port proto=simplepush
  [ "$kind" = mosquitto ] && proto=mqtt
  port=$((20000 + RANDOM % 20000))
  storm_server "$kind" $port
  /usr/bin/time -f "%e %U %S %M" -o "$STORM/time.txt" "$BIN" heartbeat 127.0.0.1:$port --protocol $proto --clients "$n" --storm --tls \
    --ca-file "$STORM/cert.pem" --ramp "$ramp" --settle 2s --connect-timeout "$ct" --format json > "$STORM/$kind-$n.json" 2> "$STORM/$kind-$n.err" || true
  kill -TERM $SERVER; wait $SERVER 2>/dev/null || true
  local server_says=""
  [ "$kind" = responder ] && server_says=$(grep -h "TLS sessions resumed" "$SERVER_LOG" | sed 's/TLS sessions resumed: //' || true)
  storm_rows+=("$(/usr/bin/python3 - "$STORM/$kind-$n.json" "$STORM/time.txt" "$kind" "$n" "$ramp" "$ct" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read().splitlines()[-1].split()
kind, n, ramp, ct = sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
s = lambda ms: "never" if ms is None else f"{ms / 1000:.2f} s"
f, r, a = j["failures"], j["recovery"], j["accept_rate"]
name = "pushdiag responder" if kind == "responder" else "mosquitto (MQTT)"
mean = "–" if a["mean_per_second"] is None else f'{a["mean_per_second"]:.0f}'
print(f'| {name} | {n:,} | {ct} | {j["up_before_drop"]:,} in {j["connect_seconds"]:.1f} s (ramp {ramp}) | {s(r["p50_ms"])} | {s(r["p95_ms"])} | {s(r["p100_ms"])} '
      f'| {j["attempts"]:,} | {f["refused"]:,} / {f["reset"]:,} / {f["timeout"]:,} / {f["tls"] + f["protocol"] + f["local"] + f["other"]:,} | {j["gave_up"]:,} '
      f'| {j["tls_resumed"]:,} / {j["tls_full"]:,} | {mean} / {a["peak_per_second"]:,} | {j["status"].upper()} '
      f'| {float(t[1]) + float(t[2]):.1f} s / {int(t[3]) // 1024} MiB |')
PY
)")
  echo "${storm_rows[-1]}"
  [ -n "$server_says" ] && storm_notes+=("- pushdiag responder, $n devices, connect timeout $ct: it resumed $server_says accepted (every accepted connection counts, those the devices gave up on during a handshake too).")
  return 0
}
storm responder 1000 2s
storm responder 10000 20s
storm responder 10000 20s 30s
storm mosquitto 1000 2s
storm mosquitto 10000 20s
storm mosquitto 10000 20s 30s
storm_table=$(printf '%s\n' \
  "| server (TLS) | devices | connect timeout | up before the drop | 50% back | 95% back | 100% back | attempts | refused / reset / timed out / other | gave up | TLS resumed / full on return | accept rate mean / peak (per s) | verdict | client CPU / peak memory |" \
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|" "${storm_rows[@]}")
echo "$storm_table"
gen=$(cat <<GEN
<!-- bench:storm:start -->
Measured $(date -u +%Y-%m-%d) by \`make bench\` on: $MACHINE; $(openssl version), ${MOSQUITTO_VERSION:-mosquitto}.
One run each: \`pushdiag heartbeat 127.0.0.1:PORT --clients N --storm --tls --ca-file cert.pem --ramp R --settle 2s\`
(\`--protocol mqtt\` against mosquitto) with the defaults: schedule 0.5, 1, 2, 4, 4, 4, 4 s, jitter ±50%, connect timeout 5 s
for each whole attempt (TCP, TLS, the protocol's handshake and the first heartbeat's answer; 30 s where the table says so). Certificate: ECDSA P-256, self-signed. Client and server
share this machine's 2 cores (and with whatever else runs on it). Times are after the drop.

$storm_table

$(printf '%s\n' "${storm_notes[@]}")
<!-- bench:storm:end -->
GEN
)
update_doc storm "$gen" "## Reconnect storms"
echo "docs/PERFORMANCE.md updated (storms)"
fi

# 5. The exporter at rest: ten held sessions, scraped (bench:exporter in docs/PERFORMANCE.md).
if want exporter; then
  bench/exporter.sh
fi
