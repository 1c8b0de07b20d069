# Sourced by run.sh after its sections (and by run-section.sh medium, which runs them alone in a VM of their own): the air moves.
# The radio medium (Tests/lab/medium) places ap1 (channel 1, 2.4 GHz) and ap2 (channel 36,
# 5 GHz) of one SSID 105 m apart and walks the station from ap1 towards ap2 (corridor.json), with
# the walk holding a push connection through the air. Twice:
#   sticky: no bgscan, so wpa_supplicant stays on ap1 as its signal falls from about -40 to
#           -80 dBm while ap2 grows stronger (the scan cache refreshed by `iw scan`, as the
#           system's own scans would); then the link to ap1 loses 10 dB more and wifi and survey
#           measure its retransmissions, and the exporter beside them;
#   bgscan: wpa_supplicant's bgscan roams by itself to ap2 (no wpa_cli roam): a band change.
# Oracles: iw station dump every second, iw event, the medium's own log of every link, and its
# capture of every attempt at every frame (NAME-air.pcap; hwsim0 sees each frame once, before
# the medium, so its Retry bits are never set), read by tshark.
# The station runs without HT: see Tests/lab/medium/README.md (retries and aggregation).
#   lab_medium_walks RESULTS_DIR

# lab_down: everything the earlier sections started, and hwsim itself.
lab_down() {
  pkill -x wpa_supplicant; pkill -x wpa_cli; pkill -x hostapd; pkill -x dnsmasq; pkill -f 'pushdiag (responder|exporter|walk|watch|join)'
  if [ -f "$conf/medium.pid" ]; then
    local medium
    medium=$(cat "$conf/medium.pid")
    kill "$medium" 2> /dev/null
    for _ in $(seq 1 50); do kill -0 "$medium" 2> /dev/null || break; sleep 0.1; done
    rm -f "$conf/medium.pid"
  fi
  for _ in $(seq 1 50); do pgrep -x hostapd > /dev/null || pgrep -x wpa_supplicant > /dev/null || break; sleep 0.1; done
  for ns in $(ip netns list | cut -d' ' -f1); do ip netns del "$ns"; done
  for b in br0 br1; do ip link del "$b" 2> /dev/null; done
  rmmod mac80211_hwsim 2> /dev/null
  rm -f "$conf"/hostapd*.pid
  for _ in $(seq 1 50); do [ -e /sys/class/net/wlan0 ] || break; sleep 0.1; done
  rm -f /run/hostapd/* /run/wpa_supplicant/* 2> /dev/null
  return 0
}

# lab_medium_up SCENARIO BGSCAN LOG [AIR]: hwsim under the medium (its capture of the air in AIR) (held at the scenario's start),
# ap1 on channel 1 and ap2 on channel 36, and the station in its own namespace with
# wpa_supplicant's bgscan set to BGSCAN ("" for none), scanning the two channels, first joining
# ap1 (bssid_hint, then a roam to it if a first scan under emulation missed it). WPA-PSK without 802.11r: under TCG
# an FT roam is sometimes refused by the simulated driver ("key not allowed"), and bgscan would
# then wait out wpa_supplicant's ignore list instead of roaming.
lab_medium_up() {
  LAB_SCAN_FREQ=2412,5180
  LAB_MEDIUM=$1 LAB_MEDIUM_HOLD=1 LAB_MEDIUM_LOG=$3 LAB_MEDIUM_AIR=${4:-} lab_aps_up 36 || return 1
  cat > "$conf/wpa.conf" <<CONF
ctrl_interface=/run/wpa_supplicant
network={
  ssid="$LAB_SSID"
  psk="pushdiag-lab-passphrase"
  key_mgmt=WPA-PSK
  bssid_hint=$AP1
  scan_freq=2412 5180
  freq_list=2412 5180
  disable_ht=1
  bgscan="$2"
}
CONF
  lab_station_netns sta 60 || return 1
  # bssid_hint is a preference: when the first scan missed ap1 (its answer came late under
  # emulation) the station joins ap2, 100 m off. Bring it to ap1 before the walk starts.
  [ "$(lab_bssid)" = "$AP1" ] || { echo "lab: joined $(lab_bssid) first, roaming to ap1"; lab_roam "$AP1"; }
}

# lab_medium_walk RESULTS_DIR NAME BGSCAN: one walk along corridor.json; files NAME-*.
lab_medium_walk() {
  local out=$1 name=$2 bgscan=$3 walk iw sampler scanner responder
  lab_down
  # The air's capture goes to the VM's tmpfs (a write per frame to the 9p share costs the
  # medium a round trip to the host each time); copied out once the medium has stopped.
  lab_medium_up Tests/lab/medium/corridor.json "$bgscan" "$out/$name-medium.jsonl" "$conf/$name-air.pcap" > "$out/$name-setup.log" 2>&1 || { cat "$out/$name-setup.log"; return 1; }
  $PD responder --listen 10.40.0.1:3000 > "$out/$name-responder.log" 2>&1 &
  responder=$!
  ip netns exec sta iw event -t > "$out/$name-iw-event.txt" 2>&1 &
  iw=$!
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --location corridor --duration 48s --format json \
    --record "$out/$name-rec" > "$out/$name-walk.json" 2> "$out/$name-walk.err" &
  walk=$!
  # The scenario's clock starts once the walk holds its push connection (and so samples): in a
  # VM of its own the debug binary's first start reads everything over 9p, which took 46 s once.
  for _ in $(seq 1 600); do grep -q "push connection ready" "$out/$name-walk.err" 2> /dev/null && break; sleep 0.2; done
  grep -q "push connection ready" "$out/$name-walk.err" || echo "lab: the $name walk's push connection was not ready after 120 s"
  # iw's view every second, stamped (Unix time) before and after each reading: under emulation
  # starting iw takes a while, and the signal moves meanwhile.
  (while :; do echo "@ $(date +%s.%N)"; ip netns exec sta iw dev wlan2 station dump; echo "@@ $(date +%s.%N)"; sleep 1; done) > "$out/$name-iw-station.txt" 2>&1 &
  sampler=$!
  if [ -z "$bgscan" ]; then
    # No bgscan: nothing refreshes the scan cache but these scans (as the system's own would).
    (while :; do sleep 6; ip netns exec sta iw dev wlan2 scan trigger freq 2412 5180 > /dev/null 2>&1; done) &
    scanner=$!
  fi
  kill -USR1 "$(cat "$conf/medium.pid")"   # the scenario's clock starts: the station walks
  wait $walk
  echo $? > "$out/$name-walk.status"
  [ -n "${scanner:-}" ] && kill $scanner
  kill $sampler $iw $responder; wait $sampler $iw $responder 2> /dev/null
  ip netns exec sta wpa_cli -i wlan2 status > "$out/$name-wpa-status.txt" 2>&1
  echo "lab: medium walk $name done (exit $(cat "$out/$name-walk.status"), on $(sed -n 's/^bssid=//p' "$out/$name-wpa-status.txt"))"
}

lab_medium_walks() {
  local out=$1 ping exporter
  lab_medium_walk "$out" sticky "" || return 1
  # Retransmissions for real: the scenario adds 8 dB of loss on the station's link to ap1 from
  # 52 s (about -88 dBm). wifi and survey sample it while the station pings its AP; iw's
  # station dump before and after brackets their counters.
  local tries=0
  until python3 -c "import json,sys; l=[json.loads(x) for x in open('$out/sticky-medium.jsonl') if '\"links\"' in x]; sys.exit(0 if l[-1]['t'] > 54 else 1)"; do
    tries=$((tries + 1)); [ $tries -lt 120 ] || { echo "lab: the medium's clock did not pass 54 s"; tail -3 "$out/sticky-medium.jsonl"; return 1; }
    sleep 0.5
  done
  ip netns exec sta ping -6 -n -I wlan2 -i 0.1 ff02::1 > /dev/null 2>&1 &
  ping=$!
  # The exporter follows the same link beside them (sampling every second), scraped at the end.
  ip netns exec sta $PD exporter --listen 127.0.0.1:9745 --interface wlan2 --wifi-interval 1s > /dev/null 2> "$out/weak-exporter.log" &
  exporter=$!
  # iw's readings stamped (Unix time) before and after, as the medium's capture is.
  { echo "@ $(date +%s.%N)"; ip netns exec sta iw dev wlan2 station dump; echo "@@ $(date +%s.%N)"; } > "$out/weak-station-before.txt"
  ip netns exec sta $PD wifi --interface wlan2 --count 3 --interval 2s --format json > "$out/weak-wifi.json" 2> "$out/weak-wifi.err"
  echo $? > "$out/weak-wifi.status"
  ip netns exec sta $PD survey --interface wlan2 --duration 4s --format json > "$out/weak-survey.json" 2> "$out/weak-survey.err"
  echo $? > "$out/weak-survey.status"
  ip netns exec sta curl -s 127.0.0.1:9745/metrics > "$out/weak-exporter-metrics.txt"
  { echo "@ $(date +%s.%N)"; ip netns exec sta iw dev wlan2 station dump; echo "@@ $(date +%s.%N)"; } > "$out/weak-station-after.txt"
  kill $ping; wait $ping 2> /dev/null
  kill -TERM $exporter; wait $exporter 2> /dev/null
  echo "lab: weak link done (wifi exit $(cat "$out/weak-wifi.status"), survey exit $(cat "$out/weak-survey.status"))"
  lab_down
  cp "$conf/sticky-air.pcap" "$out/sticky-air.pcap"
  lab_medium_walk "$out" bgscan "simple:4:-65:30" || return 1
  lab_down
  cp "$conf/bgscan-air.pcap" "$out/bgscan-air.pcap"
  cp "$conf"/medium.out "$out/medium.out" 2> /dev/null
  return 0
}
