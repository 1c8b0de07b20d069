#!/usr/bin/env bash
# Boots Debian's own kernel under qemu (TCG) with this machine's root filesystem shared over 9p,
# and runs one script inside it as root. The script's exit status becomes ours.
#
#   Tests/lab/vm.sh SCRIPT [ARGS...]
#
# The console is printed with each line prefixed "LAB_NAME SECONDS| " (vm by default; the seconds
# since qemu started, where the VM's time goes), so that its lines can be told from the host's; on
# failure a digest of what failed closes the output.
#
# Needs: qemu-system-x86, linux-image-amd64, busybox-static (make lab-deps installs them).
set -euo pipefail
script=$(readlink -f "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
kver=${kernel#/boot/vmlinuz-}
work=$(mktemp -d /var/tmp/pushdiag-lab.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The initramfs: busybox, the modules that reach the host's root over virtio-9p, and /init.
# The root is mounted with cache=loose: the guest keeps what it reads and writes in its own page
# cache (synced before the power-off) instead of a round trip to qemu's 9p server for each. The
# host must not change what the guest reads meanwhile: make test's builds beside the VM write
# only .build-asan, .build/fuzz and their logs, which the guest never reads. The full lab's VM
# took 567 s with it against 692 s without (2026-11-27).
root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,mnt,lib/modules}
cp /bin/busybox "$root/bin/busybox"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
  f=$(modinfo -k "$kver" -n "$m" 2>/dev/null || true)
  [ -n "$f" ] && [ "$f" != "(builtin)" ] || continue
  case "$f" in
    *.ko.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
    *.ko.zst) zstd -qdc "$f" > "$root/lib/modules/$m.ko" ;;
    *) cp "$f" "$root/lib/modules/$m.ko" ;;
  esac
  echo "$m" >> "$root/lib/modules/order"
done
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko 2>/dev/null; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /mnt || { echo "lab: cannot mount the host root"; poweroff -f; }
script=$(sed -n 's/.*pushdiag.script=\([^ ]*\).*/\1/p' /proc/cmdline)
for d in proc sys dev; do mount --move /$d /mnt/$d; done
exec switch_root /mnt /bin/sh -c "mount -t tmpfs tmpfs /run; /bin/sh \"$script\"; echo \"lab: exit status \$?\"; sync; echo o > /proc/sysrq-trigger; while :; do :; done"
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

# Arguments reach the script through a file on the shared root.
args=$work/args
printf '%s\n' "$@" > "$args"
runner=$work/run.sh
cat > "$runner" <<RUN
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/swift/usr/bin
export HOME=/root LAB_ARGS_FILE=$args
${LAB_MEDIUM:+export LAB_MEDIUM=$LAB_MEDIUM}
# /tmp must be local (wpa_cli and hostapd_cli make their sockets there; 9p has none), but a
# checkout may live under the host's /tmp: bind it back in.
mkdir -p /run/hosttmp && mount --bind /tmp /run/hosttmp && mount -t tmpfs tmpfs /tmp
case "$(pwd)" in /tmp/*) mkdir -p "$(pwd)" && mount --bind "/run/hosttmp/$(pwd | sed 's|^/tmp/||')" "$(pwd)" ;; esac
cd "$(pwd)"
sh "$script" \$(cat "$args")
status=\$?
echo "\$status" > "$work/status"
exit \$status
RUN
chmod +x "$runner"

stamp() {
  SECONDS=0
  while IFS= read -r line || [ -n "$line" ]; do printf '%s %3d| %s\n' "${LAB_NAME:-vm}" "$SECONDS" "${line//$'\r'/}"; done
}
timeout "${LAB_TIMEOUT:-1800}" qemu-system-x86_64 -accel "tcg,thread=${LAB_TCG_THREAD:-multi}" -m "${LAB_MEMORY:-1024}" -smp "${LAB_SMP:-2}" -nographic -no-reboot \
  -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 quiet edd=off panic=-1 pushdiag.script=$runner" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,id=hostroot,multidevs=remap \
  -nic none </dev/null | stamp | tee "$work/console.log" || echo "lab: qemu ended with status $? (LAB_TIMEOUT ${LAB_TIMEOUT:-1800} s)"

# On failure, a digest last, where a CI log's tail shows it: the lab's own lines (a section that
# did not finish says so).
digest() {
  echo "lab: what ${LAB_NAME:-vm} said of what failed, from its console above:"
  grep -E "^${LAB_NAME:-vm} +[0-9]+\\| lab:" "$work/console.log" | grep -vE 'done \(exit 0|exit status 0' | tail -30 || true
}
[ -f "$work/status" ] || { digest; echo "lab: the VM did not finish its script" >&2; exit 3; }
[ "$(cat "$work/status")" = 0 ] || digest
exit "$(cat "$work/status")"
