# Sourced inside the lab VM: three simulated radios, two hostapd access points of one SSID
# (channels 1 and 6, FT-PSK, BSS Load, 802.11k neighbour reports, 802.11v BSS transition) and a
# wpa_supplicant station on wlan2. Both APs are bridged to br0 (10.40.0.1/24), where the walk's
# push server listens: a station in its own namespace reaches it only across the simulated air.
LAB_SSID=ward-3
AP1=02:00:00:00:00:00
AP2=02:00:00:00:01:00
STA=02:00:00:00:02:00
conf=/run/pushdiag-lab
mkdir -p "$conf"

lab_ap_conf() {  # lab_ap_conf IFACE CHANNEL NAS_ID KEYHOLDER
  cat > "$conf/hostapd-$1.conf" <<CONF
interface=$1
driver=nl80211
bridge=br0
ctrl_interface=/run/hostapd
ssid=$LAB_SSID
hw_mode=g
channel=$2
ieee80211n=1
wpa=2
wpa_key_mgmt=WPA-PSK FT-PSK
rsn_pairwise=CCMP
wpa_passphrase=pushdiag-lab-passphrase
mobility_domain=a1b2
nas_identifier=$3
r1_key_holder=$4
ft_over_ds=0
ft_psk_generate_local=1
bss_load_update_period=10
chan_util_avg_period=20
rrm_neighbor_report=1
rrm_beacon_report=1
bss_transition=1
${LAB_AP_EXTRA:-}
CONF
}

# lab_aps_up AP2_CHANNEL: hwsim's three radios (under the medium $LAB_MEDIUM if set: see
# lab_medium_start), br0 and the two APs: ap1 (wlan0) on channel 1, ap2 (wlan1) on AP2_CHANNEL
# (above 14: 5 GHz, with hw_mode a and country_code US, which 5 GHz needs).
lab_aps_up() {
  modprobe mac80211_hwsim radios="${LAB_RADIOS:-3}" || return 1
  for _ in $(seq 1 10); do [ -e "/sys/class/net/wlan$((${LAB_RADIOS:-3} - 1))" ] && break; sleep 0.2; done
  [ -z "${LAB_MEDIUM:-}" ] || lab_medium_start "$LAB_MEDIUM" || return 1
  ip link set lo up
  ip link add br0 type bridge && ip link set br0 up && ip addr add 10.40.0.1/24 dev br0
  # 5 GHz: the regulatory domain is the country's before anything scans. Left to hostapd's
  # country_code it arrived late once (2026-11-26): the station's first scans of 5180 were passive
  # under the world domain, missed ap2's beacons, and the sticky walk never saw ap2.
  if [ "$1" -gt 14 ]; then
    iw reg set US
    for _ in $(seq 1 50); do iw reg get | grep -q "country US" && break; sleep 0.1; done
  fi
  lab_ap_conf wlan0 1 ap1.lab 020000000000
  lab_ap_conf wlan1 "$1" ap2.lab 020000000100
  if [ "$1" -gt 14 ]; then
    sed -i -e 's/^hw_mode=g/hw_mode=a/' "$conf/hostapd-wlan1.conf"
    echo "country_code=US" >> "$conf/hostapd-wlan1.conf"
  fi
  lab_ap_start 0 "$conf/hostapd-wlan0.conf" && lab_ap_start 1 "$conf/hostapd-wlan1.conf"
}

# lab_ap_start INDEX CONF [LOG]: hostapd on radio INDEX (0: wlan0, ap1; 1: wlan1, ap2) with CONF,
# after the one running there (if any) has stopped; its output in LOG ($conf/hostapdINDEX.log).
lab_ap_start() {
  local pidfile=$conf/hostapd$1.pid log=${3:-$conf/hostapd$1.log} pid
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if kill "$pid" 2> /dev/null; then
      for _ in $(seq 1 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    fi
    rm -f "$pidfile"
  fi
  # shellcheck disable=SC2086  # LAB_HOSTAPD_ARGS: words of their own (-d -f FILE for a debug log)
  hostapd -B ${LAB_HOSTAPD_ARGS:-} -P "$pidfile" "$2" > "$log" 2>&1 || { cat "$log"; return 1; }
}

# lab_up: the two APs (channels 1 and 6) and the station on wlan2, joined. The station scans only
# the lab's two channels (scan_freq; LAB_SCAN_FREQ for the scans the lab asks for: a scan asked
# over the control interface covers every channel otherwise): a scan of every channel hwsim
# offers took 8 to 22 s under emulation, and wpa_supplicant scans after every refused roam.
LAB_SCAN_FREQ=2412,2437
# Both APs are in the scan cache once it returns (section 1's wifi lists the SSID's BSSs from
# it): a run on 2026-11-27 joined ap2 with ap1 missing from the first scan.
lab_up() {
  lab_aps_up 6 || return 1
  lab_wpa_conf
  wpa_supplicant -B -i wlan2 -c "$conf/wpa.conf" -P "$conf/wpa.pid" -f "$conf/wpa.log" || return 1
  lab_wait_connected 30 && lab_wait_scanned "$AP1" kernel && lab_wait_scanned "$AP2" kernel
}

# lab_wait_scanned BSSID [kernel]: until wpa_supplicant's table holds BSSID (and with "kernel",
# the kernel's scan cache, which pushdiag reads), asking wpa_supplicant for a scan of the lab's
# channels when it lacks it (30 s at most). A scan can miss a beacon or a probe response under
# emulation, and wpa_supplicant forgets a BSS it has not seen for bss_expiration_age (180 s).
lab_wait_scanned() {
  local sta=${LAB_STA:-wlan2}
  _lab_scanned() {
    wpa_cli -i "$sta" bss "$1" 2> /dev/null | grep -q "^bssid=$1" || return 1
    [ -z "${2:-}" ] || iw dev "$sta" scan dump 2> /dev/null | grep -q "^BSS $1"
  }
  _lab_scanned "$@" && return 0
  echo "lab: $1 is not in $sta's scan results, scanning"
  local end next
  end=$(($(date +%s) + 30))
  while [ "$(date +%s)" -lt $end ]; do
    wpa_cli -i "$sta" scan ${LAB_SCAN_FREQ:+freq=$LAB_SCAN_FREQ} > /dev/null
    next=$(($(date +%s) + 5))
    while [ "$(date +%s)" -lt $next ]; do _lab_scanned "$@" && return 0; sleep 0.2; done
  done
  echo "lab: $1 still not in $sta's scan results"
  return 1
}

# lab_wpa_conf: the station's wpa_supplicant.conf ($conf/wpa.conf): the lab's SSID with FT-PSK,
# no background scan, the lab's two channels (and LAB_STA_NETWORK_EXTRA's lines).
lab_wpa_conf() {
  cat > "$conf/wpa.conf" <<CONF
ctrl_interface=/run/wpa_supplicant
network={
  ssid="$LAB_SSID"
  psk="pushdiag-lab-passphrase"
  key_mgmt=FT-PSK WPA-PSK
  bgscan=""
  scan_freq=2412 2437
${LAB_STA_NETWORK_EXTRA:-}
}
CONF
}

# The functions below act on the station wlan2, or on LAB_STA where the medium's walk has two
# (lab_station_netns also takes LAB_STA_ADDR and LAB_STA_CONF).
# lab_wait_connected SECONDS [BSSID]: until wlan2 is associated (with BSSID if given).
lab_wait_connected() {
  local i=0 want=${2:-}
  while [ $i -lt $(( $1 * 5 )) ]; do
    state=$(wpa_cli -i "${LAB_STA:-wlan2}" status 2>/dev/null)
    if echo "$state" | grep -q '^wpa_state=COMPLETED'; then
      [ -z "$want" ] && return 0
      echo "$state" | grep -q "^bssid=$want" && return 0
    fi
    sleep 0.2; i=$((i + 1))
  done
  [ -n "${LAB_QUIET:-}" ] && return 1
  echo "lab: ${LAB_STA:-wlan2} did not connect${want:+ to $want}"; wpa_cli -i "${LAB_STA:-wlan2}" status; tail -20 "$conf/wpa.log"
  return 1
}

lab_bssid() { wpa_cli -i "${LAB_STA:-wlan2}" status | sed -n 's/^bssid=//p'; }

# lab_station_netns NS [SECONDS]: moves the station's radio (and wlan2) into its own network
# namespace and runs its wpa_supplicant ($conf/wpa.conf) there, with 10.40.0.2/24 on wlan2: its
# traffic to br0 then crosses the simulated air and one of the APs. Back once it has joined
# (within SECONDS, 30 unless given).
lab_station_netns() {
  wpa_cli -i "${LAB_STA:-wlan2}" terminate > /dev/null 2>&1
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "/run/wpa_supplicant/${LAB_STA:-wlan2}" ] || break; sleep 0.2; done
  ip netns add "$1" || return 1
  iw phy "$(cat /sys/class/net/${LAB_STA:-wlan2}/phy80211/name)" set netns name "$1" || return 1
  ip -n "$1" link set lo up
  ip netns exec "$1" wpa_supplicant -B -i "${LAB_STA:-wlan2}" -c "${LAB_STA_CONF:-$conf/wpa.conf}" -P "$conf/wpa-$1.pid" -f "$conf/wpa-$1.log" || return 1
  ip -n "$1" addr add "${LAB_STA_ADDR:-10.40.0.2}/24" dev "${LAB_STA:-wlan2}"
  lab_wait_connected "${2:-30}"
}

# lab_roam BSSID: wpa_supplicant roams wlan2 to BSSID. Under TCG an FT roam is sometimes refused
# by the simulated driver ("key not allowed", then ASSOC-REJECT status 55) and wpa_supplicant
# goes back to the AP it had: that is wpa_supplicant's and hwsim's affair, not what the lab
# checks, so the roam is tried again (up to five times) once it is back. Every attempt is an
# event pushdiag and iw both see; the tests compare the two and count the roams that happened.
lab_roam() {
  local attempt said
  for attempt in 1 2 3 4 5; do
    # wpa_supplicant roams only to a BSS in its table, and forgets one it has not seen for
    # bss_expiration_age (180 s): after a slow stretch of the lab, scan again for the target.
    lab_wait_scanned "$1"
    said=$(wpa_cli -i "${LAB_STA:-wlan2}" roam "$1") || return 1
    [ "$said" = OK ] || echo "lab: wpa_cli roam $1 said: $said"
    lab_wait_roam "$1" 15 && return 0
    echo "lab: roam to $1 refused (attempt $attempt), trying again"
    # A refused attempt is a disconnect and a connect of its own in any recording made meanwhile.
    if [ -n "${LAB_ROAM_LOG:-}" ]; then echo "$1 $attempt" >> "$LAB_ROAM_LOG"; fi
    lab_wait_connected 20 || return 1
    sleep 1
  done
  lab_wait_connected 1 "$1"
}

# lab_roam_there_and_back OTHER INITIAL REFUSED ROAMS: to OTHER and back to INITIAL (lab_roam,
# each refused attempt logged in REFUSED); "INITIAL OTHER INITIAL" in ROAMS, as the tests expect.
lab_roam_there_and_back() {
  : > "$3"
  LAB_ROAM_LOG=$3 lab_roam "$1" || return 1
  sleep 1
  LAB_ROAM_LOG=$3 lab_roam "$2" || return 1
  echo "$2 $1 $2" > "$4"
}

# lab_wait_file GLOB BYTES: until a file matching GLOB holds at least BYTES (30 s at most).
lab_wait_file() {
  local size
  for _ in $(seq 1 150); do
    size=$(stat -c %s $1 2>/dev/null | sort -n | tail -1)
    [ "${size:-0}" -ge "$2" ] && return 0
    sleep 0.2
  done
  echo "lab: $1 did not reach $2 bytes"
}

# lab_wait_roam BSSID SECONDS: until wlan2 is associated with BSSID (0), or until it is back on
# another BSS after having left the one it was on, a refusal (1), or SECONDS have passed (1).
# A refused fast transition is over in under a second; waiting the whole SECONDS for it cost
# the lab about 15 s a refusal (nine refusals in the fresh-clone run of 2026-11-25 22:00).
# wpa_cli is polled every 0.2 s: a state change shorter than that can be missed, and then the
# wait lasts SECONDS, as before.
lab_wait_roam() {
  local i=0 state left=""
  while [ $i -lt $(( $2 * 5 )) ]; do
    state=$(wpa_cli -i "${LAB_STA:-wlan2}" status 2> /dev/null)
    if echo "$state" | grep -q '^wpa_state=COMPLETED'; then
      echo "$state" | grep -q "^bssid=$1" && return 0
      [ -n "$left" ] && return 1
    else
      left=1
    fi
    sleep 0.2; i=$((i + 1))
  done
  return 1
}

# lab_medium_start SCENARIO: the radio medium (held at its start until SIGUSR1 with LAB_MEDIUM_HOLD=1;
# its capture of every attempt into LAB_MEDIUM_AIR if set) (Tests/lab/medium) takes hwsim's air over before
# any AP starts; its log (every link's signal) goes to $LAB_MEDIUM_LOG. Ready once registered:
# Python starts slowly under emulation, so wait for its word (up to 60 s), not a fixed time.
# It runs at nice -10: the air does not wait for the lab's own tools (iw every second, the
# walks, a wifi and a survey beside them), and a medium that stalls for a second lets mac80211's
# connection monitor drop an AP the scenario never took away.
lab_medium_start() {
  local log=${LAB_MEDIUM_LOG:-$conf/medium.jsonl}
  nice -n -10 python3 Tests/lab/medium/medium.py "$1" --log "$log" ${LAB_MEDIUM_HOLD:+--hold} ${LAB_MEDIUM_AIR:+--air "$LAB_MEDIUM_AIR"} > "$conf/medium.out" 2>&1 &
  echo $! > "$conf/medium.pid"
  for _ in $(seq 1 600); do
    grep -q '^medium: registered' "$conf/medium.out" 2>/dev/null && return 0
    kill -0 "$(cat "$conf/medium.pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "lab: the medium did not register"; cat "$conf/medium.out"; return 1
}

# lab_nlmon_start PCAP LOG: tcpdump on nlmon0 (which the caller made), back once it listens; its
# counts go to LOG (LabTests read "dropped by kernel"). It writes to the VM's own tmpfs (a 64 MiB
# ring, below), not to the 9p share: a recording of 2026-11-25 written to 9p lost the events of
# one association (tcpdump fell behind a burst of scan dumps and hostapd's station changes).
lab_nlmon_start() {
  rm -f "$conf/nlmon-rec.pcap"
  # Immediate mode puts libpcap on TPACKET_V2, whose ring has a slot per packet of the snapshot
  # length: 16 MiB of 256 KiB slots held 64 messages, and a fresh-clone run of 2026-11-26 (two
  # vCPUs) dropped 9 of a burst. 64 KiB slots (the largest message seen is 16 KiB; a netlink
  # dump's are at most 32) in 64 MiB hold 1,024.
  tcpdump -i nlmon0 -s 65535 -B 65536 --immediate-mode -U -w "$conf/nlmon-rec.pcap" > "$2" 2>&1 &
  tcpdump_pid=$!
  for _ in $(seq 1 150); do grep -q listening "$2" && return 0; sleep 0.2; done
  echo "lab: tcpdump on nlmon0 did not start"; cat "$2"; return 1
}

# lab_ns_nlmon_start NS NAME: the kernel's netlink messages in namespace NS (its nlmon0, made
# when missing) recorded by tcpdump into the VM's tmpfs ($conf/NAME-nlmon.pcap, its counts in
# NAME-nlmon.log), back once it listens. nlmon stamps a message when the kernel hands it to a
# socket; iw event and ip monitor stamp it when their thread reads it (iw's lagged the kernel by
# 173 ms once, 2026-11-28): the sections that time pushdiag against the kernel use this.
lab_ns_nlmon_start() {
  ip -n "$1" link show nlmon0 > /dev/null 2>&1 || { modprobe nlmon; ip -n "$1" link add nlmon0 type nlmon && ip -n "$1" link set nlmon0 up; }
  ip netns exec "$1" tcpdump -i nlmon0 -s 65535 -B 65536 -U --immediate-mode -w "$conf/$2-nlmon.pcap" > "$conf/$2-nlmon.log" 2>&1 &
  echo $! > "$conf/$2-nlmon.pid"
  for _ in $(seq 1 150); do grep -q listening "$conf/$2-nlmon.log" 2> /dev/null && return 0; sleep 0.2; done
  echo "lab: tcpdump on $1's nlmon0 did not start"; cat "$conf/$2-nlmon.log"; return 1
}

# lab_ns_nlmon_stop NAME RESULTS_DIR: that recording ended and copied to RESULTS_DIR. The events
# the tests time come seconds before the sections end (tcpdump writes each message as it comes).
lab_ns_nlmon_stop() {
  local pid
  pid=$(cat "$conf/$1-nlmon.pid" 2> /dev/null) || return 0
  kill "$pid"; wait "$pid" 2> /dev/null
  rm -f "$conf/$1-nlmon.pid"
  cp "$conf/$1-nlmon.pcap" "$conf/$1-nlmon.log" "$2/" 2> /dev/null
}

# lab_nlmon_stop PCAP: once the recording holds a message nlmon captured after this call (so
# every message before it is in), into PCAP. Not "once the file stops growing": hostapd's own
# nl80211 traffic (about 16 messages a second here) never let it stop, and each recording waited
# out the 50 s bound (2026-11-26). Bounded at 50 s still, for a lab without that traffic.
lab_nlmon_stop() {
  python3 - "$conf/nlmon-rec.pcap" "$(date +%s.%N)" <<'PY'
import struct, sys, time
path, end = sys.argv[1], float(sys.argv[2])
deadline = time.time() + 50
while time.time() < deadline:
    data = open(path, "rb").read()
    o, last = 24, 0.0
    while o + 16 <= len(data):  # classic pcap, microseconds, this machine's byte order (tcpdump -w)
        sec, usec, incl, _ = struct.unpack_from("=IIII", data, o)
        if o + 16 + incl > len(data):
            break
        last, o = sec + usec / 1e6, o + 16 + incl
    if last > end:
        sys.exit(0)
    time.sleep(0.2)
print("lab: nlmon captured nothing after the recording's end for 50 s")
PY
  kill -INT $tcpdump_pid; wait $tcpdump_pid 2>/dev/null
  cp "$conf/nlmon-rec.pcap" "$1"
}
