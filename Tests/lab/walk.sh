# Sourced by run.sh inside the lab VM, after the other steps (it moves the station into its own
# namespace, stops an AP and finally deletes the station's interface). pushdiag walk holds a
# push connection to a responder on the APs' bridge while a fast transition is refused for
# certain (lab_ft_refuse, ft-refused.sh), then wpa_supplicant roams with 802.11r, then without,
# then loses its AP, then moves to another SSID on another subnet (its address changed as DHCP
# would); iw event, ip monitor, nlmon and the responder's count are the oracles
# (LabTests.walk*). Then the walk's bad moments: an unknown interface, a server down at the
# start, SIGINT while connecting, the interface deleted mid-walk.
#   lab_walk RESULTS_DIR
lab_walk() {
  local out=$1 first second places=/run/walk-places
  lab_station_netns sta > "$out/walk-setup.log" 2>&1 || { cat "$out/walk-setup.log"; return 1; }
  first=$(lab_bssid)
  second=$AP2; [ "$first" = "$AP2" ] && second=$AP1
  # The other subnet: ward-5's AP will be bridged to br1; the responder (on br0) is reached
  # from there through 10.41.0.1, as a routed VLAN would be.
  ip link add br1 type bridge && ip link set br1 up && ip addr add 10.41.0.1/24 dev br1
  $PD responder --listen 10.40.0.1:3000 > "$out/walk-responder.log" 2>&1 &
  local responder=$!
  # iw and ip stamp a line when they print it: into the VM's tmpfs, copied at the end (written
  # over 9p, ip's carrier_up once came 173 ms after the walk's, in CI on 2026-11-26; join.sh's
  # oracles moved to tmpfs for the same reason).
  ip netns exec sta iw event -t > "$conf/walk-iw-event.txt" 2>&1 &
  local iw=$!
  # The kernel's own messages in the station's namespace (nlmon's stamps, when the kernel handed
  # them over; iw's and ip's are their threads' reads): the timing oracle of the walk's moves and
  # carrier changes. Made before ip monitor starts, which then never sees nlmon0.
  lab_ns_nlmon_start sta walk || return 1
  ip netns exec sta ip -ts monitor link address dev wlan2 > "$conf/walk-ip-monitor.txt" 2>&1 &
  local ipmon=$!
  # ip monitor is listening once it prints a change made for it (an alias: nothing else moves).
  for i in $(seq 1 150); do
    ip -n sta link set dev wlan2 alias "lab $i"
    [ -s "$conf/walk-ip-monitor.txt" ] && break
    sleep 0.2
  done
  # IPv6's duplicate address detection of the station's link-local address is over before the
  # walk starts: its end is an RTM_NEWADDR for an address the walk's start-up dump already
  # holds (tentative), which ip monitor prints as an address and the walk, rightly, does not
  # count as added (fresh-clone CI of 2026-11-27: it came 0.4 s into the walk).
  for _ in $(seq 1 100); do
    [ -z "$(ip -n sta -6 addr show dev wlan2 tentative)" ] && break
    sleep 0.1
  done
  rm -f "$places" && mkfifo "$places"
  # The recording goes to tmpfs too: pushdiag flushes each netlink message as it records it, and
  # over 9p a flush held the next message's receive stamp up to 227 ms (its carrier_up against ip
  # monitor's, CI of 2026-11-26).
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --location "ward 3" --format json --record "$conf/walk-rec" \
    --html "$out/walk.html" < "$places" > "$out/walk.json" 2> "$out/walk.err" &
  local walk=$!
  exec 7> "$places"
  # Ready once the push connection answers: the first heartbeat is in the responder's count
  # only at the end, so wait for the walk's first sample in its recording (about 6 kB).
  lab_wait_file "$conf/walk-rec/nl80211.pcap.tmp-*" 8000
  sleep 2
  # 0. A fast transition refused for certain (ft-refused.sh, #32): the other AP, restarted with
  #    another passphrase, refuses it and the station falls back; then that AP as it was again.
  lab_ft_refuse "$second" "$conf/walk-iw-event.txt" "$out/walk-ft-refused" || return 1
  [ "$(lab_bssid)" = "$first" ] || lab_roam "$first" || return 1
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
  local radio=wlan0; [ "$first" = "$AP2" ] && radio=wlan1
  kill "$(cat "$pidfile")"
  lab_wait_connected 30 "$second" || return 1
  sleep 3
  echo "ward 5 annex" >&7
  sleep 1
  # 4. Another SSID on another subnet: the stopped AP's radio comes back as ward-5 (bridged to
  #    br1), the station is sent there, and its address changes as a DHCP lease would.
  lab_ward5_up "$radio" || return 1
  local third; third=$(cat /sys/class/net/$radio/address)
  wpa_cli -i wlan2 add_network > /dev/null
  wpa_cli -i wlan2 set_network 1 ssid '"ward-5"' > /dev/null
  wpa_cli -i wlan2 set_network 1 psk '"pushdiag-lab-passphrase"' > /dev/null
  wpa_cli -i wlan2 set_network 1 key_mgmt WPA-PSK > /dev/null
  wpa_cli -i wlan2 set_network 1 scan_freq 2462 > /dev/null
  wpa_cli -i wlan2 select_network 1 > /dev/null
  lab_wait_connected 30 "$third" || return 1
  ip -n sta addr del 10.40.0.2/24 dev wlan2
  ip -n sta addr add 10.41.0.2/24 dev wlan2
  ip -n sta route add 10.40.0.0/24 via 10.41.0.1
  sleep 8
  kill -TERM $walk; wait $walk
  echo $? > "$out/walk.status"
  exec 7>&-
  kill -TERM $responder; wait $responder 2>/dev/null
  kill $iw $ipmon; wait $iw $ipmon 2>/dev/null
  lab_ns_nlmon_stop walk "$out"
  cp "$conf/walk-iw-event.txt" "$conf/walk-ip-monitor.txt" "$out/"
  rm -rf "$out/walk-rec" && cp -r "$conf/walk-rec" "$out/"
  echo "$first $second $first $second $third" > "$out/walk-bssids.txt"
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --format json --replay "$out/walk-rec" > "$out/walk-replay.json" 2> "$out/walk-replay.err"
  echo "lab: walk done (exit $(cat "$out/walk.status"))"
  lab_walk_faults "$out"
}

# lab_ward5_up RADIO: hostapd on RADIO as ward-5 (WPA-PSK, channel 11), bridged to br1.
lab_ward5_up() {
  cat > "$conf/hostapd-ward5.conf" <<CONF
interface=$1
driver=nl80211
bridge=br1
ctrl_interface=/run/hostapd
ssid=ward-5
hw_mode=g
channel=11
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase=pushdiag-lab-passphrase
CONF
  hostapd -B -P "$conf/hostapd-ward5.pid" "$conf/hostapd-ward5.conf" > "$conf/hostapd-ward5.log" 2>&1 || { cat "$conf/hostapd-ward5.log"; return 1; }
}

# lab_walk_faults RESULTS_DIR: the walk's bad moments, each with the report it still owes.
lab_walk_faults() {
  local out=$1 pid t0
  # An interface that does not exist.
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface nosuch0 --duration 2s > "$out/walk-nosuch.out" 2> "$out/walk-nosuch.err"
  echo $? > "$out/walk-nosuch.status"
  # A server that is down at the start: nobody listens on port 3999.
  ip netns exec sta $PD walk 10.40.0.1:3999 --interface wlan2 --duration 3s --format json > "$out/walk-down.json" 2> "$out/walk-down.err"
  echo $? > "$out/walk-down.status"
  # SIGINT while the connection is being made: 10.41.0.9 is on the station's subnet but no
  # host answers for it, so the connect waits (for ARP, then its own timeout of 20 s).
  # (A permanent neighbour entry with a MAC nobody has: the SYN goes out and nothing answers.)
  ip -n sta neigh replace 10.41.0.9 lladdr 02:00:00:00:99:99 dev wlan2 nud permanent
  ip netns exec sta $PD walk 10.41.0.9:3000 --interface wlan2 --timeout 20s --format json --html "$out/walk-startup.html" \
    --record "$out/walk-startup-rec" > "$out/walk-startup.json" 2> "$out/walk-startup.err" &
  pid=$!
  # In start-up once its netlink recording is open (a signal before the handlers are in place
  # is ignored: a background job of a script starts with SIGINT ignored).
  lab_wait_file "$out/walk-startup-rec/nl80211.pcap.tmp-*" 1
  t0=$(date +%s%N)
  kill -INT $pid; wait $pid
  echo "$? $(( ($(date +%s%N) - t0) / 1000000 ))" > "$out/walk-startup.status"
  # The interface deleted mid-walk (last: the station is gone after it).
  $PD responder --listen 10.40.0.1:3000 > /dev/null 2>&1 &
  local responder=$!
  ip netns exec sta $PD walk 10.40.0.1:3000 --interface wlan2 --duration 90s --format json --record "$out/walk-gone-rec" \
    > "$out/walk-gone.json" 2> "$out/walk-gone.err" &
  pid=$!
  lab_wait_file "$out/walk-gone-rec/nl80211.pcap.tmp-*" 12000   # a few samples in
  t0=$(date +%s%N)
  ip netns exec sta iw dev wlan2 del
  wait $pid
  echo "$? $(( ($(date +%s%N) - t0) / 1000000 ))" > "$out/walk-gone.status"
  kill $responder; wait $responder 2>/dev/null
  echo "lab: walk faults done"
}
