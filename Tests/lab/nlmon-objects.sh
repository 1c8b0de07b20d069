# Sourced by run.sh inside the lab VM (after section 2): nlmon recordings of the tools that ask
# about one object at a time, for the replay's per-object answers (issue #26), each with the
# tools' printed outputs beside it as the oracle (NetlinkReplayTests, LabTests):
#   iw-object-nlmon/  iw dev wlan2 info, survey dump and station get AP (twice, frames to the AP
#                     between), then iw dev wlan2 link (a scan dump and a station get)
#   wpa-nlmon/        wpa_supplicant alone: restarted (it resolves nl80211, dumps its radio, scans
#                     and connects), a signal poll, a roam there and back, a signal poll
#   lab_nlmon_objects RESULTS_DIR INITIAL_BSSID OTHER_BSSID
lab_nlmon_objects() {
  local out=$1 initial=$2 other=$3 want=$2 dir ping_pid
  modprobe nlmon && ip link add nlmon0 type nlmon && ip link set nlmon0 up || return 1

  dir=$out/iw-object-nlmon
  mkdir -p "$dir" && lab_nlmon_start "$dir/nlmon.pcap" "$dir/tcpdump.log" || return 1
  ping -6 -n -I wlan2 -i 0.02 -w 4 ff02::1 > /dev/null 2>&1 &
  ping_pid=$!
  iw dev wlan2 info > "$dir/info.txt"
  for k in 1 2; do
    iw dev wlan2 info > "$dir/info-$k.txt"
    iw dev wlan2 survey dump > "$dir/survey-$k.txt"
    iw dev wlan2 station get "$initial" > "$dir/station-$k.txt"
    [ $k = 1 ] && sleep 2
  done
  wait $ping_pid
  iw dev wlan2 link > "$dir/link.txt"
  echo "$initial" > "$dir/bssid.txt"
  lab_nlmon_stop "$dir/nlmon.pcap"

  dir=$out/wpa-nlmon
  mkdir -p "$dir" && lab_nlmon_start "$dir/nlmon.pcap" "$dir/tcpdump.log" || return 1
  wpa_cli -i wlan2 terminate > /dev/null
  for i in $(seq 1 50); do [ -e /run/wpa_supplicant/wlan2 ] || break; sleep 0.2; done
  wpa_supplicant -B -i wlan2 -c "$conf/wpa.conf" -P "$conf/wpa.pid" -f "$conf/wpa.log" || return 1
  lab_wait_connected 30 || return 1
  initial=$(lab_bssid)
  other=$AP2; [ "$initial" = "$AP2" ] && other=$AP1
  wpa_cli -i wlan2 signal_poll > "$dir/signal-poll-1.txt"
  lab_roam_there_and_back "$other" "$initial" "$dir/refused.txt" "$dir/roams.txt" || return 1
  wpa_cli -i wlan2 signal_poll > "$dir/signal-poll-2.txt"
  lab_nlmon_stop "$dir/nlmon.pcap"
  # After the recording (iw's own traffic stays out of it): what iw says of the link.
  iw dev wlan2 link > "$dir/link-after.txt"
  iw dev > "$dir/dev.txt"
  ip link del nlmon0
  # The sections after this one expect the AP the lab began with.
  [ "$(lab_bssid)" = "$want" ] || lab_roam "$want" || return 1
  echo "lab: per-object nlmon recordings done"
}
