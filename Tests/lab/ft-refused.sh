# Sourced by run.sh inside the lab VM: a fast transition that fails for certain (#32), beside
# the good pair. The AP the station is not on is restarted with another passphrase: FT-PSK derives
# the PMK-R0 from the passphrase, so the target cannot find the key the station names and refuses
# the FT authentication (status 53, Invalid PMKID); wpa_supplicant then joins the AP it left again
# (by another fast transition: it holds that AP's keys). (Leaving ft_psk_generate_local out on the
# target is not enough: hostapd 2.10 still accepted.) Checked on 2026-11-25, twice in a row:
# "auth ... status: 53: Invalid PMKID", then the station back on the AP it came from within 0.6 s.
# Section 4b runs it under watch (lab_ft_refused); the walk (walk.sh) crosses it too.

# lab_ft_refuse TARGET IW_EVENTS DIR: TARGET (the AP wlan2 is not on) restarted with another
# passphrase, wlan2 sent there (refused), and TARGET as it was again as soon as IW_EVENTS (iw
# event -t, running) shows the refusal, so that a fallback the emulator refuses in turn ends on
# a working AP, not in a 4-way handshake that cannot succeed. Back once wlan2 is connected again,
# wherever. DIR gets bssids.txt ("FROM TARGET"), roam-said.txt and hostapd.log.
# Once in a fresh-clone CI run (2026-11-27) no refusal came: iw event showed the local
# disconnect before the FT authentication and then no "auth TARGET" line with a status, and that
# run kept nothing more. So an attempt without a refusal within 15 s prints iw's and
# wpa_supplicant's lines on the console (and keeps them in DIR), puts TARGET back, returns wlan2
# to where it was and tries again, up to three times; bssids.txt names the attempt that was
# refused. After three the lab goes on, and LabTests say what is missing.
lab_ft_refuse() {
  local target=$1 events=$2 dir=$3 index=0 attempt from
  [ "$target" = "$AP2" ] && index=1
  mkdir -p "$dir"
  sed 's/^wpa_passphrase=.*/wpa_passphrase=not-the-lab-passphrase/' "$conf/hostapd-wlan$index.conf" > "$conf/hostapd-wlan$index-other.conf"
  for attempt in 1 2 3; do
    from=$(lab_bssid)
    echo "$from $target" > "$dir/bssids.txt"
    lab_ap_start $index "$conf/hostapd-wlan$index-other.conf" "$dir/hostapd.log" || return 1
    # wpa_supplicant roams only to a BSS in its table: the restarted AP must be seen again.
    wpa_cli -i wlan2 scan ${LAB_SCAN_FREQ:+freq=$LAB_SCAN_FREQ} > /dev/null
    for _ in $(seq 1 150); do wpa_cli -i wlan2 bss "$target" 2> /dev/null | grep -q "^bssid=$target" && break; sleep 0.2; done
    wpa_cli -i wlan2 roam "$target" > "$dir/roam-said.txt"
    for _ in $(seq 1 75); do grep -q "auth $target -> .* status: [1-9]" "$events" && break; sleep 0.2; done
    lab_ap_start $index "$conf/hostapd-wlan$index.conf" || return 1
    grep -q "auth $target -> .* status: [1-9]" "$events" && break
    echo "lab: $target did not refuse the fast transition (attempt $attempt of 3, from $from, roam said $(cat "$dir/roam-said.txt"))"
    {
      grep -a 'wlan2 (phy' "$events" | tail -12
      grep -ahE 'SME:|FT:|auth|Trying|CTRL-EVENT' "$(ls -t "$conf"/wpa*.log | head -1)" | tail -30
    } > "$dir/no-refusal-$attempt.txt"
    sed 's/^/lab:   /' "$dir/no-refusal-$attempt.txt"
    [ $attempt = 3 ] && break
    lab_wait_connected 30 || return 1
    [ "$(lab_bssid)" = "$from" ] || lab_roam "$from" || return 1
  done
  sleep 1
  lab_wait_connected 30 || return 1
  wpa_cli -i wlan2 bssid_ignore clear > /dev/null 2>&1
  sleep 1
}

#   lab_ft_refused RESULTS_DIR   (files in RESULTS_DIR/ft-refused/): under watch, iw event beside.
lab_ft_refused() {
  local dir=$1/ft-refused from target watch iw
  mkdir -p "$dir"
  from=$(lab_bssid)
  target=$AP2; [ "$from" = "$AP2" ] && target=$AP1
  iw event -t > "$dir/iw-event.txt" 2>&1 &
  iw=$!
  $PD watch --interface wlan2 --format jsonl --record "$dir/watch.pcap" > "$dir/watch.jsonl" 2> "$dir/watch.err" &
  watch=$!
  # Ready once its recording holds the start-up exchange (as in section 4).
  lab_wait_file "$dir/watch.pcap.tmp-*" 4600
  lab_ft_refuse "$target" "$dir/iw-event.txt" "$dir" || return 1
  kill -TERM $watch; wait $watch
  echo $? > "$dir/watch.status"
  kill $iw; wait $iw 2> /dev/null
  wpa_cli -i wlan2 status > "$dir/wpa-status.txt"
  [ "$(lab_bssid)" = "$from" ] || lab_roam "$from" || return 1
  echo "lab: refused fast transition done (watch exit $(cat "$dir/watch.status"), back on $(sed -n 's/^bssid=//p' "$dir/wpa-status.txt"))"
}
