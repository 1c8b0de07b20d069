# Runs inside the lab VM (see vm.sh): brings up the simulated Wi-Fi and runs pushdiag against it
# next to iw (the oracle); the LabTests suite of the test binary checks the results afterwards,
# on the host (make lab). Sections 1 to 8 run on the radio medium's near layout
# (Tests/lab/medium/near.json: every link about -30 dBm, nothing lost; LAB_MEDIUM names another
# scenario, or "none" for hwsim's own perfect air); the medium's walks follow, into
# RESULTS_DIR/medium (medium.sh; run-section.sh medium runs them alone in a VM of their own).
#   run.sh RESULTS_DIR [record|no-medium]
# With "record", refreshes the lab recordings in fixtures/ (and runs no medium walk); with
# "no-medium", stops before the medium's walks (make test runs them in a VM of their own, on
# two vCPUs: Tests/lab/lab.sh).
set -u
out=$1
mode=${2:-}
cd "$(dirname "$0")/../.."
PD=$(pwd)/.build/release/pushdiag
[ -x "$PD" ] || { echo "lab: no $PD (make lab builds it: make build CONFIG=release)"; exit 2; }
mkdir -p "$out" && find "$out" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
. Tests/lab/setup.sh
LAB_MEDIUM=${LAB_MEDIUM:-Tests/lab/medium/near.json}
[ "$LAB_MEDIUM" = none ] && LAB_MEDIUM=
# The medium's log on the VM's tmpfs, copied out at the end: a write to 9p can stall the medium
# long enough for mac80211 to drop the link (what once failed the medium's walks).
trap 'cp "$conf/medium-near.jsonl" "$out/" 2> /dev/null' EXIT
LAB_MEDIUM_LOG=$conf/medium-near.jsonl lab_up > "$out/setup.log" 2>&1 || { cat "$out/setup.log"; exit 1; }
initial=$(lab_bssid)
other=$AP2; [ "$initial" = "$AP2" ] && other=$AP1
echo "lab: wlan2 connected to $initial"

# 1. pushdiag wifi between two readings of iw's survey and station dumps.
iw dev wlan2 survey dump > "$out/survey-before.txt"
iw dev wlan2 station dump > "$out/station-before.txt"
# Frames to the AP while it samples (echo requests to all nodes, from the link-local address),
# so the window has retransmissions to count: otherwise the station may send none for seconds.
# Fifty a second: a share over fewer than 50 frames is not judged (--min-frames), and the
# window is 2 s.
# Until wifi is done, not for a fixed time: under a loaded host pushdiag can take seconds
# to start, and a 5 s ping was once over before wifi's window began (retransmissions UNKNOWN).
ping -6 -n -I wlan2 -i 0.02 ff02::1 > "$out/wifi-ping.txt" 2>&1 &
ping_pid=$!
$PD wifi --interface wlan2 --count 3 --interval 1s --format json --record "$out/wifi.pcap" > "$out/wifi.json" 2> "$out/wifi.err"
echo $? > "$out/wifi.status"
kill -INT $ping_pid; wait $ping_pid 2>/dev/null
basename "$(readlink /sys/class/net/wlan2/device/driver)" > "$out/driver.txt"
iw dev wlan2 survey dump > "$out/survey-after.txt"
iw dev wlan2 station dump > "$out/station-after.txt"
echo "lab: wifi done (exit $(cat "$out/wifi.status"))"

# 1b. pushdiag doctor beside iw's and ethtool's view of the same radios; and unprivileged.
$PD doctor --format json --interval 500ms --record "$out/doctor.pcap" > "$out/doctor.json" 2> "$out/doctor.err"
echo $? > "$out/doctor.status"
iw dev > "$out/iw-dev.txt"; iw phy > "$out/iw-phy.txt"
for i in $(ls /sys/class/net); do [ -e /sys/class/net/$i/phy80211 ] && ethtool -i "$i" > "$out/ethtool-$i.txt" 2>&1; done
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all $PD doctor --interface wlan2 --format json > "$out/doctor-nobody.json" 2> "$out/doctor-nobody.err"
echo $? > "$out/doctor-nobody.status"
# Ctrl-C midway: doctor and wifi stopped while waiting for their next sample say what they had.
# Background jobs start with SIGINT ignored until pushdiag installs its handler, so each is
# interrupted once it catches SIGINT (SigCgt) and has used no CPU for a second (its first sample
# taken, it waits out the 60 s interval); at most 15 s, the fixed wait this replaced, which had
# been sized for the debug build's start in the VM (10 to 15 s; the release build's is 0.1 s).
lab_wait_waiting() { # (run.sh is run by sh: dash, no bash arithmetic)
  local pid=$1 cpu last= deadline=$(($(date +%s) + 15))
  # SigCgt: the signals it catches, in hex; SIGINT (2) is the last digit's bit of value 2.
  until awk '/^SigCgt:/ { v = index("0123456789abcdef", substr($2, length($2), 1)) - 1; exit (int(v / 2) % 2) ? 0 : 1 }' "/proc/$pid/status" 2> /dev/null; do
    [ -r "/proc/$pid/status" ] && [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
  while [ "$(date +%s)" -lt "$deadline" ]; do
    cpu=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
    [ "$cpu" = "$last" ] && return 0
    last=$cpu
    sleep 1
  done
}
# lab_wait_listening NETNS ADDR:PORT: until a socket in NETNS listens on ADDR:PORT (ss, the
# kernel's own list), 30 s at most: a server under emulation starts in its own time.
lab_wait_listening() {
  for _ in $(seq 1 150); do
    ip netns exec "$1" ss -tlnH | grep -qF " $2 " && return 0
    sleep 0.2
  done
  echo "lab: nothing listens on $2 in $1 after 30 s"
  return 1
}
$PD doctor --interface wlan2 --interval 60s --format json > "$out/doctor-int.json" 2> "$out/doctor-int.err" &
doctor_pid=$!
$PD wifi --interface wlan2 --count 3 --interval 60s --format json > "$out/wifi-int.json" 2> "$out/wifi-int.err" &
wifi_pid=$!
lab_wait_waiting $doctor_pid
lab_wait_waiting $wifi_pid
kill -INT $doctor_pid $wifi_pid
start=$(date +%s)
wait $doctor_pid; echo $? > "$out/doctor-int.status"
wait $wifi_pid; echo $? > "$out/wifi-int.status"
echo $(( $(date +%s) - start )) > "$out/int-seconds.txt"

# 2. The same, recorded by nlmon with tcpdump: the kernel's own view of the netlink traffic.
modprobe nlmon && ip link add nlmon0 type nlmon && ip link set nlmon0 up
lab_nlmon_start "$out/nlmon-wifi.pcap" "$out/tcpdump-nlmon.log" || exit 1
$PD wifi --interface wlan2 --count 2 --interval 1s --format json > "$out/wifi-nlmon.json" 2> "$out/wifi-nlmon.err"
lab_nlmon_stop "$out/nlmon-wifi.pcap"
# 2b. Other tools' traffic, recorded by nlmon: iw's dumps (twice, with frames to the AP between)
#     and wpa_supplicant's own (a signal poll, a roam there and back), beside hostapd's. pushdiag
#     replays it by meaning; iw's printed outputs are the oracle (LabTests, NetlinkReplayTests).
iwdir=$out/iw-nlmon
mkdir -p "$iwdir"
lab_nlmon_start "$iwdir/nlmon.pcap" "$iwdir/tcpdump.log" || exit 1
# iw event beside, for the tests' count of the link's changes: a refusal the lab's polling
# missed and wpa_supplicant retried by itself is in no lab file (a fresh-clone run, 2026-11-28).
iw event -t > "$iwdir/iw-event.txt" 2>&1 &
iw_pid=$!
# Fifty frames a second, so the 2 s between iw's two rounds hold enough to judge a retry share.
ping -6 -n -I wlan2 -i 0.02 -w 4 ff02::1 > /dev/null 2>&1 &
ping_pid=$!
iw dev > "$iwdir/dev.txt"
iw dev wlan2 scan dump > "$iwdir/scan.txt"
for k in 1 2; do
  iw dev > /dev/null
  iw dev wlan2 survey dump > "$iwdir/survey-$k.txt"
  iw dev wlan2 station dump > "$iwdir/station-$k.txt"
  [ $k = 1 ] && sleep 2
done
wait $ping_pid
wpa_cli -i wlan2 signal_poll > "$iwdir/signal-poll.txt"
lab_roam_there_and_back "$other" "$initial" "$iwdir/refused.txt" "$iwdir/roams.txt" || exit 1
# iw event stops once it has printed the return (wpa_supplicant said COMPLETED after the kernel's
# CONNECT; iw prints each event as it comes): its last connect result names the initial AP.
for _ in $(seq 1 50); do
  grep -a 'wlan2 (phy' "$iwdir/iw-event.txt" | grep -E ': (connected|failed to connect|timed out) ' | tail -1 | grep -q "connected to $initial" && break
  sleep 0.1
done
kill $iw_pid; wait $iw_pid 2> /dev/null
lab_nlmon_stop "$iwdir/nlmon.pcap"
ip link del nlmon0
echo "lab: nlmon recording done"
# 2c. Tools that ask about one object at a time: iw's info, station get and link, and
#     wpa_supplicant alone (restarted, a signal poll, a roam there and back); #26.
. Tests/lab/nlmon-objects.sh
lab_nlmon_objects "$out" "$initial" "$other" || exit 1

# 3. pushdiag capture on the radiotap monitor that sees every radio.
ip link set hwsim0 up
$PD capture --interface hwsim0 --duration 4s --format json --write "$out/hwsim0.pcap" > "$out/capture.json" 2> "$out/capture.err"
echo $? > "$out/capture.status"
echo "lab: capture done (exit $(cat "$out/capture.status"))"

# 4. pushdiag watch while wpa_supplicant roams to the other AP and back; iw event alongside,
#    and pushdiag exporter following the same interface (sampling every second), scraped by
#    curl before and after the roams. Ready once it follows the events and has a signal.
$PD exporter --listen 127.0.0.1:9745 --interface wlan2 --wifi-interval 1s > /dev/null 2> "$out/exporter.log" &
exp_pid=$!
for _ in $(seq 1 300); do
  curl -s 127.0.0.1:9745/metrics > "$out/exporter-before.txt" 2> /dev/null
  grep -q '^pushdiag_signal_dbm{' "$out/exporter-before.txt" && grep -q 'events: following' "$out/exporter.log" && break
  sleep 0.2
done
grep -q 'events: following' "$out/exporter.log" || echo "lab: the exporter is not following wlan2 after 60 s (exporter.log)"
iw event -t > "$out/iw-event.txt" 2>&1 &
iw_pid=$!
$PD watch --interface wlan2 --format jsonl --record "$out/watch.pcap" > "$out/watch.jsonl" 2> "$out/watch.err" &
watch_pid=$!
# Ready once its recording holds the start-up exchange (family, interfaces, the subscription,
# the scan and interface dumps; events come after): under TCG a binary read over 9p can
# take longer than a fixed sleep, and a roam before that goes unseen. 4.7 kB with one BSS in the
# station's scan cache, 5.2 with two (2026-11-26): 4,600 bytes are reached by the last dump's
# answer. (The recording grows as watch.pcap.tmp-PID until watch ends and renames it.)
lab_wait_file "$out/watch.pcap.tmp-*" 4600
sleep 1
lab_roam_there_and_back "$other" "$initial" "$out/watch-refused.txt" "$out/roams.txt" || exit 1
sleep 1
kill -TERM $watch_pid; wait $watch_pid
echo $? > "$out/watch.status"
kill $iw_pid; wait $iw_pid 2>/dev/null
echo "lab: watch done (exit $(cat "$out/watch.status"))"
# Samples after the roams with frames to the AP (as for wifi above: a window in which the station
# sent nothing has no retransmission ratio), then the scrape beside iw's reading of the station.
# The scrape is taken while the frames still go, once a sample has a ratio (a window after the
# last echo request has none: the ratio is then UNKNOWN, rightly).
ping -6 -n -I wlan2 -i 0.2 ff02::1 > "$out/exporter-ping.txt" 2>&1 &
ping_pid=$!
for _ in $(seq 1 100); do
  sleep 0.2
  curl -s 127.0.0.1:9745/metrics > "$out/exporter-metrics.txt"
  grep -q '^pushdiag_retransmission_ratio{' "$out/exporter-metrics.txt" && break
done
kill -INT $ping_pid; wait $ping_pid 2>/dev/null
iw dev wlan2 station dump > "$out/exporter-station.txt"
kill -TERM $exp_pid; wait $exp_pid
echo $? > "$out/exporter.status"
echo "lab: exporter done (exit $(cat "$out/exporter.status"))"

# 4b. A fast transition that fails for certain (#32): the other AP with another passphrase.
. Tests/lab/ft-refused.sh
lab_ft_refused "$out" || exit 1

# 5. pushdiag route over a real 802.1Q device: VLAN 20 on a veth, a gateway on it.
ip link add name vl0 type veth peer name vl1 && ip link set vl0 up && ip link set vl1 up
modprobe 8021q && ip link add link vl0 name vl0.20 type vlan id 20 && ip link set vl0.20 up
ip addr add 10.20.0.2/24 dev vl0.20 && ip route add 10.99.0.0/16 via 10.20.0.1 dev vl0.20
ip neigh replace 10.20.0.1 dev vl0.20 lladdr 02:00:00:00:20:01 nud reachable
$PD route --format json --record "$out/route-vlan.pcap" 10.99.1.1 > "$out/route-vlan.json" 2> "$out/route-vlan.err"
echo $? > "$out/route-vlan.status"
ip -d link show vl0.20 > "$out/ip-link-vlan.txt"
ip route get 10.99.1.1 > "$out/ip-route-get.txt"

# 6. Heartbeats through netem: 50 ms delay and 5% loss on the client's side of a veth between
#    two namespaces; the measured round trip and loss must show what netem imposes.
ip netns add pdsrv && ip netns add pdcli
ip link add name nc0 netns pdcli type veth peer name ns0 netns pdsrv
ip -n pdcli addr add 10.30.0.2/24 dev nc0 && ip -n pdsrv addr add 10.30.0.1/24 dev ns0
ip -n pdcli link set nc0 up && ip -n pdsrv link set ns0 up && ip -n pdsrv link set lo up
modprobe sch_netem && ip netns exec pdcli tc qdisc add dev nc0 root netem delay 50ms loss 5%
ip netns exec pdcli tc qdisc show dev nc0 > "$out/netem-qdisc.txt"
ip netns exec pdsrv $PD responder --listen 10.30.0.1:3000 > "$out/netem-responder.log" 2>&1 &
responder_pid=$!
lab_wait_listening pdsrv 10.30.0.1:3000
# The timeout is below TCP's minimum retransmission timeout (200 ms): a segment netem drops is
# answered too late, so it counts as lost, as a device would count it.
ip netns exec pdcli $PD heartbeat 10.30.0.1:3000 --count 300 --interval 20ms --timeout 150ms --misses 1000 --format json > "$out/netem.json" 2> "$out/netem.err"
echo $? > "$out/netem.status"
kill -TERM $responder_pid; wait $responder_pid 2>/dev/null
ip netns del pdcli; ip netns del pdsrv
echo "lab: netem heartbeat done"

# 6b. The idle-timeout trap: a router namespace between client and server whose firewall
#     (nftables, conntrack) forgets an established connection after 8 s idle and drops what it
#     no longer knows, silently. --find-idle-timeout must place 8 s between two adjacent rungs
#     and say the longer one died in a black hole. (The rungs wait side by side, so the longest
#     sets the section's length: 12 s and the 3 s timeout; 4s,8s,16s,24s around a 12 s timeout took 27.)
ip netns add itcli && ip netns add itrt && ip netns add itsrv
ip link add name ic0 netns itcli type veth peer name ir0 netns itrt
ip link add name is0 netns itsrv type veth peer name ir1 netns itrt
ip -n itcli addr add 10.31.0.2/24 dev ic0 && ip -n itrt addr add 10.31.0.1/24 dev ir0
ip -n itsrv addr add 10.32.0.2/24 dev is0 && ip -n itrt addr add 10.32.0.1/24 dev ir1
for l in "itcli ic0" "itcli lo" "itrt ir0" "itrt ir1" "itsrv is0" "itsrv lo"; do set -- $l; ip -n "$1" link set "$2" up; done
ip -n itcli route add default via 10.31.0.1 && ip -n itsrv route add default via 10.32.0.1
ip netns exec itrt sysctl -qw net.ipv4.ip_forward=1
modprobe nf_conntrack && modprobe nf_tables
ip netns exec itrt nft -f - <<'NFT'
table inet trap {
  chain forward {
    type filter hook forward priority filter; policy drop;
    ct state established,related accept
    ct state new accept
  }
}
NFT
# Without loose pick-up a mid-stream segment of a forgotten connection is invalid: dropped.
ip netns exec itrt sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_established=8 net.netfilter.nf_conntrack_tcp_loose=0
ip netns exec itrt sysctl -n net.netfilter.nf_conntrack_tcp_timeout_established > "$out/idle-conntrack-timeout.txt"
ip netns exec itrt nft list ruleset > "$out/idle-nft.txt"
ip netns exec itsrv $PD responder --listen 10.32.0.2:3001 > "$out/idle-responder.log" 2>&1 &
responder_pid=$!
lab_wait_listening itsrv 10.32.0.2:3001
ip netns exec itcli $PD heartbeat 10.32.0.2:3001 --find-idle-timeout --ladder 3s,6s,12s --timeout 3s --format json > "$out/idle.json" 2> "$out/idle.err"
echo $? > "$out/idle.status"
kill -TERM $responder_pid; wait $responder_pid 2>/dev/null
ip netns del itcli; ip netns del itrt; ip netns del itsrv
echo "lab: idle-timeout search done (exit $(cat "$out/idle.status"))"

# 7. Errors a field engineer meets: a name that is no interface, an interface that is not
#    wireless, capturing without CAP_NET_RAW.
$PD wifi --interface nosuch0 > /dev/null 2> "$out/error-nosuch.txt"; echo $? >> "$out/error-nosuch.txt"
$PD wifi --interface lo > /dev/null 2> "$out/error-lo.txt"; echo $? >> "$out/error-lo.txt"
setpriv --reuid=65534 --regid=65534 --clear-groups $PD capture --interface hwsim0 --duration 1s > /dev/null 2> "$out/error-perm.txt"; echo $? >> "$out/error-perm.txt"

# 7b. A second real driver: virt_wifi, a cfg80211 full-MAC driver over a veth (built out of tree
#     by Tests/lab/virt-wifi-build.sh). No survey, no retries, "failed" only for frames dropped
#     while disconnected, a constant signal: pushdiag must say UNKNOWN with the reasons.
vw=$out/virt_wifi
mkdir -p "$vw"
if [ -f .build/virt_wifi/virt_wifi.ko ] && modprobe cfg80211 && insmod .build/virt_wifi/virt_wifi.ko; then
  ip netns add vwpeer
  ip link add name vweth0 type veth peer name vweth1 netns vwpeer
  ip link set vweth0 up && ip -n vwpeer addr add 10.9.0.1/24 dev vweth1 && ip -n vwpeer link set vweth1 up
  ip link add link vweth0 name wlan9 type virt_wifi && ip link set wlan9 up
  iw event -t > "$vw/iw-event.txt" 2>&1 &
  vw_event=$!
  # (iw's own "scan" can wait forever here, and a connect without a BSSID oopses cfg80211:
  #  see virt-wifi-build.sh)
  sleep 1
  iw dev wlan9 scan trigger > /dev/null
  for _ in $(seq 1 150); do grep -q "scan finished" "$vw/iw-event.txt" && break; sleep 0.2; done
  iw dev wlan9 scan dump > "$vw/scan.txt"
  vw_bssid=$(sed -n 's/^BSS \([0-9a-f:]\{17\}\).*/\1/p' "$vw/scan.txt" | head -1)
  iw dev wlan9 connect VirtWifi 5240 "$vw_bssid"
  for _ in $(seq 1 150); do iw dev wlan9 link | grep -q "^Connected" && break; sleep 0.2; done
  ip addr add 10.9.0.2/24 dev wlan9
  iw dev wlan9 station dump > "$vw/station-before.txt"
  ping -n -i 0.2 -w 5 10.9.0.1 > "$vw/ping.txt" 2>&1 &
  vw_ping=$!
  $PD wifi --interface wlan9 --count 2 --interval 1s --format json > "$vw/wifi.json" 2> "$vw/wifi.err"
  echo $? > "$vw/wifi.status"
  $PD wifi --interface wlan9 --count 2 --interval 1s > "$vw/wifi.txt" 2>&1
  wait $vw_ping
  iw dev wlan9 station dump > "$vw/station-after.txt"
  $PD survey --interface wlan9 --duration 2s --format json > "$vw/survey.json" 2> "$vw/survey.err"
  echo $? > "$vw/survey.status"
  $PD doctor --interface wlan9 --interval 500ms --format json > "$vw/doctor.json" 2> "$vw/doctor.err"
  ethtool -i wlan9 > "$vw/ethtool.txt" 2>&1
  kill $vw_event; wait $vw_event 2>/dev/null
  ip link del wlan9; ip link del vweth0; ip netns del vwpeer; rmmod virt_wifi
  echo "lab: virt_wifi done (wifi exit $(cat "$vw/wifi.status"))"
else
  echo "virt_wifi.ko was not built or did not load (make lab runs Tests/lab/virt-wifi-build.sh)" > "$vw/missing.txt"
  echo "lab: virt_wifi missing"
fi

# 8. pushdiag walk across the air (it moves the station into a namespace, stops an AP).
. Tests/lab/walk.sh
lab_walk "$out" || exit 1

# 8b. pushdiag join against real rejoins (join.sh): a fresh hwsim, dnsmasq, a DHCP client on
#     every connect; into RESULTS_DIR/join.
. Tests/lab/medium.sh  # lab_down
. Tests/lab/join.sh
mkdir -p "$out/join" && rm -rf "${out:?}/join"/*
lab_join "$out/join" || { echo "lab: join's section did not finish"; exit 1; }
echo "lab: join's section done"

# 9. The air moves: the radio medium's walks (medium.sh), from a fresh hwsim of their own.
if [ "$mode" != record ] && [ "$mode" != no-medium ]; then
  . Tests/lab/medium.sh
  mkdir -p "$out/medium" && rm -rf "${out:?}/medium"/*
  lab_medium_walks "$out/medium" || { echo "lab: the medium's walks did not finish"; exit 1; }
  echo "lab: the medium's walks done"
fi

if [ "$mode" = record ]; then
  cp "$out/wifi.pcap" fixtures/lab-wifi.pcap && cp "$out/wifi.json" fixtures/lab-wifi.json
  cp "$out/doctor.pcap" fixtures/lab-doctor.pcap && cp "$out/doctor.json" fixtures/lab-doctor.json
  cp "$out/nlmon-wifi.pcap" fixtures/lab-nlmon-wifi.pcap && cp "$out/wifi-nlmon.json" fixtures/lab-nlmon-wifi.json
  rm -rf fixtures/lab-nlmon-iw && cp -r "$out/iw-nlmon" fixtures/lab-nlmon-iw && rm -f fixtures/lab-nlmon-iw/tcpdump.log
  rm -rf fixtures/lab-nlmon-iw-object && cp -r "$out/iw-object-nlmon" fixtures/lab-nlmon-iw-object && rm -f fixtures/lab-nlmon-iw-object/tcpdump.log
  rm -rf fixtures/lab-nlmon-wpa && cp -r "$out/wpa-nlmon" fixtures/lab-nlmon-wpa && rm -f fixtures/lab-nlmon-wpa/tcpdump.log
  cp "$out/watch.pcap" fixtures/lab-watch-roams.pcap && cp "$out/watch.jsonl" fixtures/lab-watch-roams.jsonl
  cp "$out/hwsim0.pcap" fixtures/lab-hwsim0-beacons.pcap
  cp "$out/route-vlan.pcap" fixtures/lab-route-vlan.pcap && cp "$out/route-vlan.json" fixtures/lab-route-vlan.json
  rm -rf fixtures/lab-walk && cp -r "$out/walk-rec" fixtures/lab-walk && cp "$out/walk.json" fixtures/lab-walk.json
  rm -rf fixtures/lab-join && cp -r "$out/join/join-rec" fixtures/lab-join && cp "$out/join/join.json" fixtures/lab-join.json
  echo "lab: fixtures refreshed"
fi

# The assertions (LabTests, with iw's outputs as the oracle) run on the host once this VM is
# done: make lab (Tests/lab/lab.sh).
