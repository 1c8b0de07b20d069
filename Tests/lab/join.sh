# Sourced inside the lab VM (run.sh's section 8b, or run-section.sh join alone): pushdiag join against a
# real rejoin. A fresh hwsim on its own air (no medium): the two APs of setup.sh (WPA2-PSK with
# FT, bridged to br0, 10.40.0.1) with an inactivity limit, dnsmasq on br0 for DHCP and for DNS
# (push.lab is 10.40.0.1), the responder as the push server, and the station in its own network
# namespace "join" with wpa_supplicant, a wpa_cli action script that runs busybox udhcpc on every
# connect (as a phone asks DHCP again after each rejoin), and a resolv.conf naming dnsmasq.
# Oracles, recorded beside each run: iw event -t (scan, authentication, association), ip -ts
# monitor (the address, the gateway's neighbour entry), nlmon in the station's namespace (the
# operstate's RTM_NEWLINK, stamped by the kernel as it is sent: ip monitor printed a burst of link
# messages up to 20 ms late) and tcpdump on the station's interface (DHCP, DNS, TCP and the
# heartbeat's packets).
LAB_JOIN_NS=join
LAB_JOIN_IDLE=40   # hostapd's ap_max_inactivity, advertised as the BSS Max Idle Period

# lab_wait_text FILE TEXT SECONDS: until FILE holds TEXT.
lab_wait_text() {
  for _ in $(seq 1 $(( $3 * 5 ))); do grep -q "$2" "$1" 2> /dev/null && return 0; sleep 0.2; done
  echo "lab: no \"$2\" in $1 after $3 s"; return 1
}

lab_join_up() {
  local out=$1
  LAB_MEDIUM= LAB_AP_EXTRA="ap_max_inactivity=$LAB_JOIN_IDLE" lab_aps_up 6 || return 1
  # --no-ping: dnsmasq otherwise pings an address no lease holds before offering it, and waits 3 s
  # for an echo. iwd releases its lease on each disconnect, so its first offer came 3.1 s after
  # its DISCOVER and the address steps' 4 s critical limit was crossed on CI (2026-11-26).
  dnsmasq --conf-file=/dev/null --interface=br0 --bind-interfaces --except-interface=lo \
    --dhcp-range=10.40.0.100,10.40.0.150,255.255.255.0,1h --dhcp-option=option:router,10.40.0.1 \
    --dhcp-option=option:dns-server,10.40.0.1 --address=/push.lab/10.40.0.1 --local=/lab/ --no-resolv --no-hosts \
    --no-ping --dhcp-leasefile="$conf/dnsmasq.leases" --pid-file="$conf/dnsmasq.pid" --log-dhcp --log-queries \
    --log-facility="$out/join-dnsmasq.log" || return 1
  cat > "$conf/udhcpc.sh" <<'SCRIPT'
#!/bin/sh
# busybox udhcpc's script: as Debian's default.script, the address goes at the start and comes
# with the lease.
case "$1" in
  deconfig) ip addr flush dev "$interface" scope global ;;
  bound|renew)
    ip addr replace "$ip/${mask:-24}" dev "$interface"
    [ -n "${router:-}" ] && ip route replace default via "${router%% *}" dev "$interface"
    ;;
esac
exit 0
SCRIPT
  cat > "$conf/wpa-action.sh" <<SCRIPT
#!/bin/sh
# wpa_cli -a: DHCP on every connect, the client of the connection before stopped.
case "\$2" in
  CONNECTED)
    [ -f $conf/udhcpc.pid ] && kill \$(cat $conf/udhcpc.pid) 2> /dev/null
    busybox udhcpc -i "\$1" -n -q -t 4 -T 1 -p $conf/udhcpc.pid -s $conf/udhcpc.sh >> $conf/udhcpc.log 2>&1 &
    ;;
  DISCONNECTED) [ -f $conf/udhcpc.pid ] && kill \$(cat $conf/udhcpc.pid) 2> /dev/null ;;
esac
exit 0
SCRIPT
  chmod +x "$conf/udhcpc.sh" "$conf/wpa-action.sh"
  echo "nameserver 10.40.0.1" > "$conf/join-resolv.conf"
  LAB_STA_NETWORK_EXTRA= lab_wpa_conf
  wpa_cli -i wlan2 terminate > /dev/null 2>&1
  ip netns add "$LAB_JOIN_NS" || return 1
  iw phy "$(cat /sys/class/net/wlan2/phy80211/name)" set netns name "$LAB_JOIN_NS" || return 1
  ip -n "$LAB_JOIN_NS" link set lo up
  ip -n "$LAB_JOIN_NS" link add nlmon0 type nlmon && ip -n "$LAB_JOIN_NS" link set nlmon0 up
  ip netns exec "$LAB_JOIN_NS" wpa_supplicant -B -i wlan2 -c "$conf/wpa.conf" -P "$conf/wpa-join.pid" -f "$conf/wpa-join.log" || return 1
  ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 -a "$conf/wpa-action.sh" -B -P "$conf/wpa-cli.pid" || return 1
  ip netns exec "$LAB_JOIN_NS" sh -c 'wpa_cli -i wlan2 status | grep -q "^wpa_state=COMPLETED" && exec "$0" "$1" CONNECTED' "$conf/wpa-action.sh" wlan2
  lab_wait_connected 60 || return 1
  for _ in $(seq 1 150); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && return 0; sleep 0.2; done
  echo "lab: the station got no DHCP lease"; cat "$conf/udhcpc.log"; return 1
}

# lab_join_run NAME ARGS...: pushdiag join in the station's namespace (resolv.conf bound over
# /etc/resolv.conf in a mount namespace of its own), with iw event -t, ip -ts monitor and
# tcpdump beside it. iw and ip stamp a line when they print it: they write to the VM's tmpfs
# (copied to RESULTS_DIR afterwards), since a line written over 9p took long enough to put ip's
# stamps 30 to 60 ms behind the messages they stand for.
lab_join_run() {
  local out=$1 name=$2 iw dump monitor nlmon
  shift 2
  ip netns exec "$LAB_JOIN_NS" iw event -t > "$conf/$name-iw-event.txt" 2>&1 &
  iw=$!
  ip -n "$LAB_JOIN_NS" -ts monitor link address neigh > "$conf/$name-ip-monitor.txt" 2>&1 &
  monitor=$!
  ip netns exec "$LAB_JOIN_NS" tcpdump -i wlan2 -n -U --immediate-mode -w "$out/$name-wlan2.pcap" > "$out/$name-tcpdump.log" 2>&1 &
  dump=$!
  ip netns exec "$LAB_JOIN_NS" tcpdump -i nlmon0 -s 65535 -B 65536 -U --immediate-mode -w "$out/$name-nlmon.pcap" > "$out/$name-nlmon.log" 2>&1 &
  nlmon=$!
  lab_wait_text "$out/$name-tcpdump.log" "listening on" 30
  lab_wait_text "$out/$name-nlmon.log" "listening on" 30
  ip netns exec "$LAB_JOIN_NS" unshare -m sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$conf/join-resolv.conf" \
    $PD join --interface wlan2 "$@" --format json > "$out/$name.json" 2> "$out/$name.err"
  echo $? > "$out/$name.status"
  sleep 0.5
  kill $iw $dump $monitor $nlmon; wait $iw $dump $monitor $nlmon 2> /dev/null
  cp "$conf/$name-iw-event.txt" "$conf/$name-ip-monitor.txt" "$out/"
  echo "lab: join $name done (exit $(cat "$out/$name.status"))"
}

lab_join() {
  local out=$1 responder
  lab_down
  echo "$LAB_JOIN_IDLE" > "$out/join-ap-max-inactivity.txt"
  lab_join_up "$out" > "$out/join-setup.log" 2>&1 || { cat "$out/join-setup.log"; return 1; }
  $PD responder --listen 10.40.0.1:3000 > "$out/join-responder.log" 2>&1 &
  responder=$!
  lab_wait_text "$out/join-responder.log" "listening on" 60
  # A first rejoin, not checked: the VM reads pushdiag and its libraries over 9p as each
  # code path first runs, and once held pushdiag's first control-port event 73 ms (iw and the
  # kernel's own record agreed to 0.1 ms).
  lab_join_run "$out" join-warmup push.lab:3000
  # Three rejoins through wpa_supplicant's DISCONNECT and RECONNECT, recorded (replayed by the
  # tests, and fixtures/lab-join in record mode).
  lab_join_run "$out" join push.lab:3000 --count 3 --interval 1s --record "$conf/join-rec"
  rm -rf "$out/join-rec" && cp -r "$conf/join-rec" "$out/"
  # The interface down and up.
  lab_join_run "$out" join-link push.lab:3000 --kick link
  # A delay on DNS's queries alone (netem behind a prio qdisc's filter on UDP port 53): the name
  # step takes it, no other.
  ip netns exec "$LAB_JOIN_NS" tc qdisc add dev wlan2 root handle 1: prio
  ip netns exec "$LAB_JOIN_NS" tc qdisc add dev wlan2 parent 1:3 handle 30: netem delay 1000ms
  ip netns exec "$LAB_JOIN_NS" tc filter add dev wlan2 parent 1:0 protocol ip u32 match ip dport 53 0xffff flowid 1:3
  ip netns exec "$LAB_JOIN_NS" tc qdisc show dev wlan2 > "$out/join-dns-delay-qdisc.txt"
  lab_join_run "$out" join-dns-delay push.lab:3000
  ip netns exec "$LAB_JOIN_NS" tc qdisc del dev wlan2 root
  # WPA2-Enterprise: the second AP with hostapd's own EAP server.
  lab_join_enterprise "$out" || echo "lab: join's Enterprise rejoin could not be set up"
  lab_join_ap_idle "$out" || echo "lab: join's AP idle ladder could not be set up"
  lab_join_chan_switch "$out" || echo "lab: the channel switch could not be set up"
  lab_join_heartbeat_scans "$out" || echo "lab: heartbeat's scans could not be set up"
  lab_join_scan_every "$out" || echo "lab: walk --scan-every could not be set up"
  lab_join_address_flap "$out" || echo "lab: heartbeat's address change could not be set up"
  lab_join_sae "$out" || echo "lab: join's WPA3-SAE rejoin could not be set up"
  cp "$conf/udhcpc.log" "$out/join-udhcpc.log"; cp "$conf/wpa-join.log" "$out/join-wpa.log"
  lab_join_managers "$out"
  kill -TERM $responder; wait $responder 2> /dev/null
}

# lab_join_enterprise RESULTS_DIR: the second AP (wlan1) becomes WPA2-Enterprise ("ward-3-eap":
# PEAP with MSCHAPv2 against hostapd's own EAP server, a certificate made here), the station
# selects it, and one rejoin is timed: EAP shows as the station's responses in nl80211's
# control-port TX status events. PMKSA caching is off at the AP: with it (hostapd's default) the
# rejoin reused the PMK and sent no EAP at all (run of 07:22).
lab_join_enterprise() {
  local out=$1 id
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$conf/eap.key" -out "$conf/eap.pem" -days 2 -subj /CN=radius.lab > /dev/null 2>&1 || return 1
  printf '"nurse" PEAP\n"nurse" MSCHAPV2 "pushdiag-lab-eap" [2]\n' > "$conf/eap_users"
  cat > "$conf/hostapd-eap.conf" <<CONF
interface=wlan1
driver=nl80211
bridge=br0
ctrl_interface=/run/hostapd
ssid=ward-3-eap
hw_mode=g
channel=6
ieee80211n=1
wpa=2
wpa_key_mgmt=WPA-EAP
rsn_pairwise=CCMP
ieee8021x=1
eap_server=1
eap_user_file=$conf/eap_users
ca_cert=$conf/eap.pem
server_cert=$conf/eap.pem
private_key=$conf/eap.key
ap_max_inactivity=$LAB_JOIN_IDLE
disable_pmksa_caching=1
CONF
  lab_ap_start 1 "$conf/hostapd-eap.conf" "$out/join-eap-hostapd.log" || return 1
  id=$(ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 add_network | tail -1)
  for kv in 'ssid "ward-3-eap"' 'key_mgmt WPA-EAP' 'eap PEAP' 'identity "nurse"' 'password "pushdiag-lab-eap"' \
    'phase2 "auth=MSCHAPV2"' "ca_cert \"$conf/eap.pem\"" 'scan_freq 2437'; do
    # shellcheck disable=SC2086
    ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 set_network "$id" ${kv%% *} "${kv#* }" > /dev/null || return 1
  done
  ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 select_network "$id" > /dev/null
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  for _ in $(seq 1 150); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && break; sleep 0.2; done
  lab_join_run "$out" join-eap push.lab:3000
}

# lab_join_ap_idle RESULTS_DIR: the AP the station is on (the Enterprise one) drops a silent
# station: ap_max_inactivity=LAB_JOIN_AP_IDLE and skip_inactivity_poll=1 (by default hostapd
# polls an idle station with a null frame, which hwsim's station acknowledges, and keeps it).
# IPv6 is off in the station's namespace: its router solicitations and MLD reports would break
# the silence. First a rung of 20 s with wpa_supplicant's keep-alives (an empty frame to the AP
# at its BSS Max Idle Period): kept alive. Then without them (no_keep_alive), rungs of 1, 2 and
# 26 s: kept, kept, dropped. hostapd adds 0 to 19 s at random to each inactivity check (its debug
# log: "active 7s ago" → a check 18 s later, "active 14s ago" → 3 s), so a silence is dropped
# between the limit and about 20 s after it; the last rung must outlast that, yet end before the
# 30 s after which the station's mac80211 probes its AP (which the AP counts as activity).
LAB_JOIN_AP_IDLE=5
lab_join_ap_idle() {
  local out=$1
  sed -e "s/^ap_max_inactivity=.*/ap_max_inactivity=$LAB_JOIN_AP_IDLE/" "$conf/hostapd-eap.conf" > "$conf/hostapd-eap-idle.conf"
  echo skip_inactivity_poll=1 >> "$conf/hostapd-eap-idle.conf"
  echo "$LAB_JOIN_AP_IDLE" > "$out/join-ap-idle-limit.txt"
  ip netns exec "$LAB_JOIN_NS" cat /sys/class/net/wlan2/address > "$out/join-ap-idle-station.txt"
  ip netns exec "$LAB_JOIN_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.wlan2.disable_ipv6=1
  # hostapd's debug log: its inactivity checks (with their random delay) and the disassociation;
  # written to tmpfs and copied at the end, so that no write over 9p holds hostapd up during the
  # rejoin the run times.
  LAB_HOSTAPD_ARGS="-d -t -f $conf/join-ap-idle-hostapd-debug.log" lab_ap_start 1 "$conf/hostapd-eap-idle.conf" "$out/join-ap-idle-hostapd.log" || return 1
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  for _ in $(seq 1 150); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && break; sleep 0.2; done
  lab_join_run "$out" join-ap-keepalive push.lab:3000 --find-ap-idle --ladder 20s
  wpa_cli -i wlan2 set no_keep_alive 1 > "$out/join-ap-idle-no-keep-alive.txt"
  lab_join_run "$out" join-ap-idle push.lab:3000 --find-ap-idle --ladder 1s,2s,26s --idle-timeout 5m --record "$conf/join-ap-idle-rec"
  rm -rf "$out/join-ap-idle-rec" && cp -r "$conf/join-ap-idle-rec" "$out/"
  wpa_cli -i wlan2 set no_keep_alive 0 > /dev/null
  cp "$conf/join-ap-idle-hostapd-debug.log" "$out/"
}

# lab_join_chan_switch RESULTS_DIR: a channel switch that walk's stalls name (#29). The station is
# back on the Enterprise AP (wlan1, channel 6) after the idle ladder. A walk follows it (its
# heartbeats every 250 ms); 4 s after its push connection is ready the AP announces a switch to
# channel 1 ten beacons ahead (about 1 s) with blocktx, which holds the station's frames until the
# switch, so the heartbeats sent meanwhile are late; the walk goes on 12 s more (about 65
# heartbeats in all, one at a time, so the one or two late ones stay above its p95; 20 s until
# 2026-11-27, when the last fresh-clone run's walk had one late heartbeat) and is interrupted. The
# oracle is the kernel's CH_SWITCH_STARTED_NOTIFY and CH_SWITCH_NOTIFY as nlmon stamped them; iw
# event -t on the station says they were a switch and no disconnect.
lab_join_chan_switch() {
  local out=$1 iw walk
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  for _ in $(seq 1 150); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && break; sleep 0.2; done
  ip netns exec "$LAB_JOIN_NS" iw event -t > "$conf/join-chan-switch-iw-event.txt" 2>&1 &
  iw=$!
  lab_ns_nlmon_start "$LAB_JOIN_NS" join-chan-switch
  ip netns exec "$LAB_JOIN_NS" $PD walk 10.40.0.1:3000 --interface wlan2 --format json < /dev/null \
    > "$out/join-chan-switch-walk.json" 2> "$out/join-chan-switch-walk.err" &
  walk=$!
  for _ in $(seq 1 600); do grep -q "push connection ready" "$out/join-chan-switch-walk.err" 2> /dev/null && break; sleep 0.2; done
  sleep 4
  hostapd_cli -p /run/hostapd -i wlan1 chan_switch 10 2412 ht blocktx > "$out/join-chan-switch-hostapd-cli.txt" 2>&1
  sleep 12
  kill -TERM $walk; wait $walk
  echo $? > "$out/join-chan-switch-walk.status"
  lab_ns_nlmon_stop join-chan-switch "$out"
  kill $iw; wait $iw 2> /dev/null
  cp "$conf/join-chan-switch-iw-event.txt" "$out/"
  echo "lab: the channel switch done (walk exit $(cat "$out/join-chan-switch-walk.status"), hostapd_cli: $(cat "$out/join-chan-switch-hostapd-cli.txt"))"
}

# lab_join_heartbeat_scans RESULTS_DIR: heartbeat --interface (#29's stalls explained) on the
# station (on the Enterprise AP, channel 1 since the switch) while iw asks for passive scans of
# two other channels: 200 heartbeats 100 ms apart, and three `iw scan trigger`s 5 s apart once
# the push connection is established (ss says so), the last 5 s before the heartbeats end. A
# passive scan leaves the operating channel for mac80211's 111 ms per channel, so a heartbeat
# sent off-channel waits longer than the stall margin; active scans' 60 ms did too rarely (one scan of three here, none of three on CI,
# 2026-11-26). The oracle is the kernel's TRIGGER_SCAN, NEW_SCAN_RESULTS and SCAN_ABORTED as nlmon
# stamped them, and iw event -t on the station counts the scans; nothing else happens to the link
# meanwhile.
lab_join_heartbeat_scans() {
  local out=$1 iw hb
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  ip netns exec "$LAB_JOIN_NS" iw event -t > "$conf/join-heartbeat-iw-event.txt" 2>&1 &
  iw=$!
  lab_ns_nlmon_start "$LAB_JOIN_NS" join-heartbeat
  ip netns exec "$LAB_JOIN_NS" $PD heartbeat 10.40.0.1:3000 --interface wlan2 --count 200 --interval 100ms --format json < /dev/null \
    > "$out/join-heartbeat.json" 2> "$out/join-heartbeat.err" &
  hb=$!
  for _ in $(seq 1 150); do ip netns exec "$LAB_JOIN_NS" ss -tnH state established dst 10.40.0.1 | grep -q ':3000' && break; sleep 0.2; done
  for _ in 1 2 3; do
    sleep 5
    ip netns exec "$LAB_JOIN_NS" iw dev wlan2 scan trigger freq 2437 2462 passive > /dev/null 2>&1
  done
  wait $hb
  echo $? > "$out/join-heartbeat.status"
  lab_ns_nlmon_stop join-heartbeat "$out"
  kill $iw; wait $iw 2> /dev/null
  cp "$conf/join-heartbeat-iw-event.txt" "$out/"
  echo "lab: heartbeat's scans done (exit $(cat "$out/join-heartbeat.status"))"
}

# lab_join_scan_every RESULTS_DIR: walk --scan-every (#29) on the station, on the Enterprise AP
# (ward-3-eap) at 2412 since the channel switch, where ap1 (ward-3: another SSID) shares the
# channel. The walk asks for a scan every 10 s (of the channels its SSID was seen on; the first
# when the push connection is ready) and is interrupted 14 s after that: two scans, the next 6 s
# away. Oracles: iw event -t on the station (a connected wpa_supplicant without bgscan does not
# scan, so every scan started is the walk's) and iw's scan dump at the end (the BSSs on the
# station's channel, for the co-channel count).
lab_join_scan_every() {
  local out=$1 iw walk
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  ip netns exec "$LAB_JOIN_NS" iw event -t > "$conf/join-scan-every-iw-event.txt" 2>&1 &
  iw=$!
  ip netns exec "$LAB_JOIN_NS" $PD walk 10.40.0.1:3000 --interface wlan2 --scan-every 10s --format json < /dev/null \
    > "$out/join-scan-every-walk.json" 2> "$out/join-scan-every-walk.err" &
  walk=$!
  for _ in $(seq 1 600); do grep -q "push connection ready" "$out/join-scan-every-walk.err" 2> /dev/null && break; sleep 0.2; done
  sleep 14
  kill -TERM $walk; wait $walk
  echo $? > "$out/join-scan-every-walk.status"
  kill $iw; wait $iw 2> /dev/null
  ip netns exec "$LAB_JOIN_NS" iw dev wlan2 scan dump > "$out/join-scan-every-scan-dump.txt" 2>&1
  cp "$conf/join-scan-every-iw-event.txt" "$out/"
  echo "lab: walk --scan-every done (exit $(cat "$out/join-scan-every-walk.status"))"
}

# lab_join_address_flap RESULTS_DIR: heartbeat --interface (#29) across an address change over
# rtnetlink, with no nl80211 event: 60 heartbeats 250 ms apart; 4 s after the push connection is
# established the station's address is removed (its subnet's route with it) and, 1 s later,
# added back. The heartbeats in flight meanwhile wait for TCP's retransmission, and are
# link_change. The oracle is the kernel's RTM_DELADDR and RTM_NEWADDR as nlmon stamped them, and
# ip -ts monitor in the station's namespace (written to tmpfs) says they were the address.
# Removing the last IPv4 address takes wlan2's routes with it, the default one too: the steps
# after this one reach only the on-link 10.40.0.1, and the managers' section flushes the address
# and starts again anyway.
lab_join_address_flap() {
  local out=$1 hb mon addr
  lab_wait_connected 60 02:00:00:00:01:00 || return 1
  for _ in $(seq 1 150); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && break; sleep 0.2; done
  addr=$(ip -n "$LAB_JOIN_NS" -4 -o addr show dev wlan2 | awk '{ print $4; exit }')
  [ -n "$addr" ] || { echo "lab: the station has no address for the address change"; return 1; }
  ip -n "$LAB_JOIN_NS" -ts monitor address > "$conf/join-flap-ip-monitor.txt" 2>&1 &
  mon=$!
  lab_ns_nlmon_start "$LAB_JOIN_NS" join-flap
  ip netns exec "$LAB_JOIN_NS" $PD heartbeat 10.40.0.1:3000 --interface wlan2 --count 60 --interval 250ms --format json < /dev/null \
    > "$out/join-flap.json" 2> "$out/join-flap.err" &
  hb=$!
  for _ in $(seq 1 150); do ip netns exec "$LAB_JOIN_NS" ss -tnH state established dst 10.40.0.1 | grep -q ':3000' && break; sleep 0.2; done
  sleep 4
  ip -n "$LAB_JOIN_NS" addr del "$addr" dev wlan2
  sleep 1
  ip -n "$LAB_JOIN_NS" addr add "$addr" dev wlan2
  wait $hb
  echo $? > "$out/join-flap.status"
  lab_ns_nlmon_stop join-flap "$out"
  kill $mon; wait $mon 2> /dev/null
  cp "$conf/join-flap-ip-monitor.txt" "$out/"
  echo "lab: heartbeat's address change done (exit $(cat "$out/join-flap.status"))"
}

# lab_join_sae RESULTS_DIR: a WPA3-Personal rejoin. ap1 (wlan0, channel 1) becomes "ward-3-sae":
# SAE with management frame protection required, no PMKSA caching (each rejoin runs SAE anew; a
# station that offers a cached PMKID is refused, status 53, and runs SAE), and an anti-clogging
# token asked of every commit (sae_anti_clogging_threshold=0: status 76, as an AP under load
# asks), so that each rejoin's authentication is commit, token, commit again, confirm. The
# station selects it and two rejoins are timed, with nlmon's record of the kernel's
# AUTHENTICATE events beside them (lab_join_run). ap1 then comes back as it was (iwd's section
# joins it).
lab_join_sae() {
  local out=$1 id
  sed -e 's/^ssid=.*/ssid=ward-3-sae/' -e 's/^wpa_key_mgmt=.*/wpa_key_mgmt=SAE/' \
    -e '/^mobility_domain=/d' -e '/^nas_identifier=/d' -e '/^r1_key_holder=/d' -e '/^ft_/d' "$conf/hostapd-wlan0.conf" > "$conf/hostapd-sae.conf"
  printf 'ieee80211w=2\nsae_anti_clogging_threshold=0\ndisable_pmksa_caching=1\n' >> "$conf/hostapd-sae.conf"
  lab_ap_start 0 "$conf/hostapd-sae.conf" "$out/join-sae-hostapd.log" || return 1
  id=$(ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 add_network | tail -1)
  for kv in 'ssid "ward-3-sae"' 'key_mgmt SAE' 'psk "pushdiag-lab-passphrase"' 'ieee80211w 2' 'scan_freq 2412'; do
    # shellcheck disable=SC2086
    ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 set_network "$id" ${kv%% *} "${kv#* }" > /dev/null || return 1
  done
  ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 select_network "$id" > /dev/null
  lab_wait_connected 60 "$AP1" || return 1
  # The connect's DHCP client (wpa-action.sh) done: the address is the new network's lease.
  for _ in $(seq 1 100); do pgrep -f 'busybox udhcpc' > /dev/null || break; sleep 0.2; done
  lab_join_wait_address 30 || { echo "lab: no address on the SAE network"; return 1; }
  lab_join_run "$out" join-sae push.lab:3000 --count 2 --interval 1s
  ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 remove_network "$id" > /dev/null
  lab_ap_start 0 "$conf/hostapd-wlan0.conf" || return 1
}

# lab_join_managers RESULTS_DIR: the station's manager becomes iwd, then NetworkManager, on a
# system bus of the VM's (dbus-daemon --system with Debian's policies, which let root own both
# names): wpa_supplicant's control-socket set-up and its DHCP client stop first. pushdiag join
# finds each by itself (--kick auto) and rejoins twice through it; asked for NetworkManager while
# only iwd runs, it says in one line that NetworkManager is not running, and exits 3. Each
# manager's configuration and state live in the VM's tmpfs, never in the host's /etc or /var/lib.
lab_join_managers() {
  local out=$1
  kill "$(cat "$conf/wpa-cli.pid")" 2> /dev/null
  ip netns exec "$LAB_JOIN_NS" wpa_cli -i wlan2 terminate > /dev/null 2>&1
  [ -f "$conf/udhcpc.pid" ] && kill "$(cat "$conf/udhcpc.pid")" 2> /dev/null
  for _ in $(seq 1 50); do [ -e /run/wpa_supplicant/wlan2 ] || break; sleep 0.1; done
  mkdir -p /run/dbus
  dbus-daemon --system --fork --print-address > "$out/join-managers-bus.txt" 2>&1 || { echo "lab: no system bus"; return 1; }
  lab_join_iwd "$out" || echo "lab: join through iwd could not be set up"
  lab_join_networkmanager "$out" || echo "lab: join through NetworkManager could not be set up"
  kill "$(cat /run/dbus/pid)" 2> /dev/null
}

# lab_join_wait_address SECONDS: until the station has the lab's address.
lab_join_wait_address() {
  for _ in $(seq 1 "$1"); do ip -n "$LAB_JOIN_NS" -4 addr show dev wlan2 | grep -q 'inet 10.40.0.1[0-5][0-9]' && return 0; sleep 1; done
  return 1
}

# lab_join_iwd RESULTS_DIR: iwd on wlan2 alone, with its own DHCP (EnableNetworkConfiguration)
# and the lab's PSK network known (CONFIGURATION_DIRECTORY, STATE_DIRECTORY). iwd checks the
# kernel's crypto (AF_ALG) at its start: the modules are loaded first. Its first connection follows
# a scan of every channel (about 9 s under emulation); its Connect goes to the BSS it knows.
lab_join_iwd() {
  local out=$1 iwd
  [ -x /usr/libexec/iwd ] || { echo "lab: iwd is not installed (make lab-deps)"; return 1; }
  ip -n "$LAB_JOIN_NS" addr flush dev wlan2 scope global
  for m in af_alg algif_hash algif_skcipher hmac md4 md5 sha1 sha256 sha512 cmac aes ecb cbc des_generic ccm gcm ctr pkcs8_key_parser; do
    modprobe "$m" 2> /dev/null
  done
  mkdir -p "$conf/iwd-conf" "$conf/iwd-state"
  printf '[General]\nEnableNetworkConfiguration=true\n[DriverQuirks]\nDefaultInterface=*\n' > "$conf/iwd-conf/main.conf"
  printf '[Security]\nPassphrase=pushdiag-lab-passphrase\n' > "$conf/iwd-state/$LAB_SSID.psk"
  ip netns exec "$LAB_JOIN_NS" env CONFIGURATION_DIRECTORY="$conf/iwd-conf" STATE_DIRECTORY="$conf/iwd-state" \
    /usr/libexec/iwd -i wlan2 > "$conf/join-iwd.log" 2>&1 &
  iwd=$!
  if lab_join_wait_address 90; then
    lab_join_run "$out" join-nm push.lab:3000 --kick networkmanager
    lab_join_run "$out" join-iwd push.lab:3000 --count 2 --interval 1s
  else
    echo "lab: iwd did not connect with an address"
  fi
  kill $iwd; wait $iwd 2> /dev/null
  cp "$conf/join-iwd.log" "$out/"
  [ -f "$out/join-iwd.status" ]
}

# lab_join_networkmanager RESULTS_DIR: NetworkManager in the station's namespace with
# wpa_supplicant in D-Bus mode (-u) under it and its internal DHCP client, the lab's SSID added
# as a connection with nmcli. NetworkManager runs in a mount namespace of its own: tmpfs over
# /etc/NetworkManager and /var/lib/NetworkManager (its keyfiles and state), and /sys read-only,
# which tells it no udev runs (with /sys writable it waited for udev to initialise wlan2 and kept
# it unmanaged, 2026-11-26). After ActivateConnection its wpa_supplicant scans every channel
# (8 s under emulation), so the run's critical limits are raised: the lab checks the steps, and
# a WARNING stays allowed for the timing alone (LabTests' expectJoinStatus).
lab_join_networkmanager() {
  local out=$1 nm
  [ -x /usr/sbin/NetworkManager ] || { echo "lab: NetworkManager is not installed (make lab-deps)"; return 1; }
  ip -n "$LAB_JOIN_NS" addr flush dev wlan2 scope global
  ip netns exec "$LAB_JOIN_NS" wpa_supplicant -u -B -f "$conf/join-nm-wpa.log" -P "$conf/wpa-nm.pid" || return 1
  mkdir -p "$conf/nm"
  printf '[main]\nauth-polkit=false\ndhcp=internal\nplugins=keyfile\n[keyfile]\nunmanaged-devices=interface-name:nlmon*\n' > "$conf/nm/NetworkManager.conf"
  ip netns exec "$LAB_JOIN_NS" unshare -m sh -c 'mount -t tmpfs tmpfs /etc/NetworkManager && mount -t tmpfs tmpfs /var/lib/NetworkManager &&
    mount -o remount,bind,ro /sys && exec /usr/sbin/NetworkManager --no-daemon --debug --config="$0/NetworkManager.conf" --state-file="$0/state"' "$conf/nm" \
    > "$conf/join-networkmanager.log" 2>&1 &
  nm=$!
  for _ in $(seq 1 60); do nmcli -t -f DEVICE dev 2> /dev/null | grep -qx wlan2 && break; sleep 1; done
  nmcli con add type wifi ifname wlan2 con-name "$LAB_SSID" ssid "$LAB_SSID" wifi-sec.key-mgmt wpa-psk wifi-sec.psk pushdiag-lab-passphrase \
    > "$out/join-networkmanager-nmcli.txt" 2>&1
  if lab_join_wait_address 90; then
    nmcli dev >> "$out/join-networkmanager-nmcli.txt" 2>&1
    lab_join_run "$out" join-networkmanager push.lab:3000 --count 2 --interval 1s --push-ready-critical 60000 --join-link-critical 30000
  else
    echo "lab: NetworkManager did not connect with an address"; nmcli dev
  fi
  kill $nm; wait $nm 2> /dev/null
  kill "$(cat "$conf/wpa-nm.pid")" 2> /dev/null
  cp "$conf/join-networkmanager.log" "$conf/join-nm-wpa.log" "$out/" 2> /dev/null
  [ -f "$out/join-networkmanager.status" ]
}
