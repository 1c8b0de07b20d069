# Sourced by run.sh inside the lab VM (after section 4): a fast transition that fails for certain
# (#32), beside the good pair. The AP the station is not on is restarted with another passphrase:
# FT-PSK derives the PMK-R0 from the passphrase, so the target cannot find the key the station
# names and refuses the FT authentication (status 53, Invalid PMKID); wpa_supplicant then joins
# the AP it left again (by another fast transition: it holds that AP's keys). (Leaving
# ft_psk_generate_local out on the target is not enough: hostapd 2.10 still accepted.) watch and
# iw event alongside; then the AP as it was. Checked on 2026-11-25, twice in a row: "auth ...
# status: 53: Invalid PMKID", then the station back on the AP it came from within 0.6 s.
#   lab_ft_refused RESULTS_DIR   (files in RESULTS_DIR/ft-refused/)
lab_ft_refused() {
  local dir=$1/ft-refused from target index watch iw size
  mkdir -p "$dir"
  from=$(lab_bssid)
  target=$AP2; index=1
  [ "$from" = "$AP2" ] && { target=$AP1; index=0; }
  kill "$(cat "$conf/hostapd$index.pid")"
  for _ in $(seq 1 50); do kill -0 "$(cat "$conf/hostapd$index.pid")" 2> /dev/null || break; sleep 0.1; done
  sed 's/^wpa_passphrase=.*/wpa_passphrase=not-the-lab-passphrase/' "$conf/hostapd-wlan$index.conf" > "$conf/hostapd-wlan$index-other.conf"
  hostapd -B -P "$conf/hostapd$index.pid" "$conf/hostapd-wlan$index-other.conf" > "$dir/hostapd.log" 2>&1 || { cat "$dir/hostapd.log"; return 1; }
  iw event -t > "$dir/iw-event.txt" 2>&1 &
  iw=$!
  $PD watch --interface wlan2 --format jsonl --record "$dir/watch.pcap" > "$dir/watch.jsonl" 2> "$dir/watch.err" &
  watch=$!
  # Ready once its recording holds the start-up exchange (as in section 4).
  for _ in $(seq 1 150); do
    size=$(stat -c %s "$dir"/watch.pcap.tmp-* 2> /dev/null | sort -n | tail -1)
    [ "${size:-0}" -ge 5000 ] && break
    sleep 0.2
  done
  # wpa_supplicant roams only to a BSS in its table: the restarted AP must be seen again.
  wpa_cli -i wlan2 scan > /dev/null
  for _ in $(seq 1 150); do wpa_cli -i wlan2 bss "$target" 2> /dev/null | grep -q "^bssid=$target" && break; sleep 0.2; done
  echo "$from $target" > "$dir/bssids.txt"
  wpa_cli -i wlan2 roam "$target" > "$dir/roam-said.txt"
  # The refusal, then the station back on an AP.
  for _ in $(seq 1 150); do grep -q "auth $target -> .* status: [1-9]" "$dir/iw-event.txt" && break; sleep 0.2; done
  sleep 1
  lab_wait_connected 30 || return 1
  sleep 1
  kill -TERM $watch; wait $watch
  echo $? > "$dir/watch.status"
  kill $iw; wait $iw 2> /dev/null
  wpa_cli -i wlan2 status > "$dir/wpa-status.txt"
  # The AP as it was, and nothing held against it.
  kill "$(cat "$conf/hostapd$index.pid")"
  for _ in $(seq 1 50); do kill -0 "$(cat "$conf/hostapd$index.pid")" 2> /dev/null || break; sleep 0.1; done
  hostapd -B -P "$conf/hostapd$index.pid" "$conf/hostapd-wlan$index.conf" > "$conf/hostapd$index.log" 2>&1 || return 1
  wpa_cli -i wlan2 bssid_ignore clear > /dev/null 2>&1
  [ "$(lab_bssid)" = "$from" ] || lab_roam "$from" || return 1
  echo "lab: refused fast transition done (watch exit $(cat "$dir/watch.status"), back on $(sed -n 's/^bssid=//p' "$dir/wpa-status.txt"))"
}
