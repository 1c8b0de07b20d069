# Sourced by run.sh inside the lab VM, after the other steps (it moves the station into its own
# namespace and stops an AP). pushdiag walk holds a push connection to a responder on the APs'
# bridge while wpa_supplicant roams with 802.11r, then without, then loses its AP; iw event and
# the responder's count are the oracles (LabTests.walk*).
#   lab_walk RESULTS_DIR
lab_walk() {
  local out=$1 first second places=/run/walk-places
  lab_station_netns sta > "$out/walk-setup.log" 2>&1 || { cat "$out/walk-setup.log"; return 1; }
  first=$(lab_bssid)
  second=$AP2; [ "$first" = "$AP2" ] && second=$AP1
  $PD responder --listen 10.40.0.1:3000 > "$out/walk-responder.log" 2>&1 &
  local responder=$!
  ip netns exec sta iw event -t > "$out/walk-iw-event.txt" 2>&1 &
  local iw=$!
  rm -f "$places" && mkfifo "$places"
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --location "ward 3" --format json --record "$out/walk-rec" \
    < "$places" > "$out/walk.json" 2> "$out/walk.err" &
  local walk=$!
  exec 7> "$places"
  # Ready once the push connection answers: the first heartbeat is in the responder's count
  # only at the end, so wait for the walk's first sample in its recording (about 6 kB).
  for _ in $(seq 1 150); do
    size=$(stat -c %s "$out"/walk-rec/nl80211.pcap.tmp-* 2>/dev/null | sort -n | tail -1)
    [ "${size:-0}" -ge 8000 ] && break
    sleep 0.2
  done
  sleep 2
  lab_roam "$second" || return 1            # 1. 802.11r (FT-PSK)
  sleep 2
  echo "corridor" >&7
  sleep 1
  wpa_cli -i wlan2 set_network 0 key_mgmt WPA-PSK > /dev/null
  lab_roam "$first" || return 1             # 2. no 802.11r: WPA-PSK, a full handshake
  sleep 2
  echo "ward 5" >&7
  sleep 1
  # 3. The AP goes away: its hostapd stops; wpa_supplicant finds the other one.
  local pidfile=$conf/hostapd0.pid; [ "$first" = "$AP2" ] && pidfile=$conf/hostapd1.pid
  kill "$(cat "$pidfile")"
  lab_wait_connected 30 "$second" || return 1
  sleep 4
  kill -TERM $walk; wait $walk
  echo $? > "$out/walk.status"
  exec 7>&-
  kill -TERM $responder; wait $responder 2>/dev/null
  kill $iw; wait $iw 2>/dev/null
  echo "$first $second $first $second" > "$out/walk-bssids.txt"
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --format json --replay "$out/walk-rec" > "$out/walk-replay.json" 2> "$out/walk-replay.err"
  echo "lab: walk done (exit $(cat "$out/walk.status"))"
}
