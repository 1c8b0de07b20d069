#!/usr/bin/env bash
# Builds virt_wifi.ko for the lab's kernel, out of tree: Debian's kernel does not build it.
# virt_wifi (drivers/net/wireless/virt_wifi.c) is a cfg80211 full-MAC driver over an Ethernet
# link, the lab's second real driver beside mac80211_hwsim. Needs linux-headers-KVER and
# linux-source (make lab-deps installs them); takes seconds (one file from the source tarball,
# then kbuild). Writes .build/virt_wifi/virt_wifi.ko; on failure says why and exits 1 (the lab then
# records the driver as missing and LabTests fails).
#
# Two traps of virt_wifi on Debian 12's 6.1 kernel, met in the lab (run.sh works around both):
# - `iw dev X connect VirtWifi` without a BSSID oopses cfg80211 (__cfg80211_connect_result reads
#   the NULL BSSID virt_wifi reports): name the BSSID from the scan.
# - `iw dev X scan` can loop forever on ENOBUFS (its 8 KiB buffer, a regulatory beacon hint
#   ahead of the dump): trigger, wait for "scan finished" in iw event, then dump.
set -euo pipefail
cd "$(dirname "$0")/../.."
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
kver=${kernel#/boot/vmlinuz-}
out=.build/virt_wifi
src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1 || true)
[ -d "/lib/modules/$kver/build" ] || { echo "virt_wifi: no headers for $kver (apt-get install linux-headers-$kver)"; exit 1; }
[ -n "$src" ] || { echo "virt_wifi: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"; exit 1; }
work=$(mktemp -d /var/tmp/pushdiag-virt-wifi.XXXXXX)
trap 'rm -rf "$work"' EXIT
# One file: --occurrence stops reading the archive once it is found.
tar -xJf "$src" -C "$work" --wildcards --occurrence=1 '*/drivers/net/wireless/virt_wifi.c' '*/drivers/net/wireless/virtual/virt_wifi.c' 2> /dev/null || true
file=$(find "$work" -name virt_wifi.c | head -1)
[ -n "$file" ] || { echo "virt_wifi: virt_wifi.c is not in $src"; exit 1; }
mkdir -p "$work/build" "$out"
cp "$file" "$work/build/"
echo 'obj-m := virt_wifi.o' > "$work/build/Kbuild"
make -s -C "/lib/modules/$kver/build" M="$work/build" modules > "$work/build.log" 2>&1 || { cat "$work/build.log"; echo "virt_wifi: the build failed"; exit 1; }
cp "$work/build/virt_wifi.ko" "$out/virt_wifi.ko"
echo "virt_wifi: built for $kver from $(basename "$src")"
