# pushdiag — see README.md. `make demo` runs the main job, `make test` the tests; both install
# the Debian packages they need first (apt-get, as root or through sudo).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
SWIFT_FLAGS := $(if $(filter 1,$(V)),-v,)

# Build: libpcap, libnl, OpenSSL, libxcrypt (bcrypt for the exporter's basic auth), libdbus (join asks NetworkManager or iwd). Tests: tshark (the capture oracle), python3 (tomllib, the TOML oracle), zzuf (corrupted inputs), real servers (openssl s_server, mosquitto, python3-websockets). Bench: tshark's editcap/mergecap, gcc, time; openssl and mosquitto for the storms.
BUILD_PACKAGES := libpcap-dev libnl-3-dev libnl-genl-3-dev libssl-dev libsqlite3-dev libcrypt-dev libdbus-1-dev pkg-config
TEST_PACKAGES := tshark zzuf openssl mosquitto python3 python3-websockets iproute2 prometheus prometheus-node-exporter sqlite3 chromium time fish zsh curl
BENCH_PACKAGES := tshark gcc time python3 curl openssl mosquitto

BIN = .build/$(CONFIG)/pushdiag
# A release build links Swift's runtime and Foundation into the binary: it runs on a probe without
# the Swift toolchain (Debian's libc, libstdc++, OpenSSL, libpcap, libnl and SQLite suffice), starts
# a little faster and keeps fewer pages resident. It is linked by the toolchain's lld so that the
# resident exporter maps less of it (docs/PERFORMANCE.md, the exporter at rest):
# - relative relocations packed (RELR; glibc 2.36 or later): 18 KiB where there were 2.2 MB;
# - every function in a section of its own, and the ones a resident exporter runs
#   (bench/exporter.order, remade by `make orderfile`) laid side by side at the front;
# - no dynamic symbol table for the whole program (1.3 MB; nothing looks pushdiag's symbols up).
# Line tables rather than full debug information: Swift's backtraces and perf still name file and
# line (inlined frames too), and the build is 8% less CPU (docs/PERFORMANCE.md, "make test").
RELEASE_FLAGS := --static-swift-stdlib -Xswiftc -gline-tables-only -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xlinker --symbol-ordering-file=$(abspath bench/exporter.order) -Xlinker --no-warn-symbol-ordering
BUILD_FLAGS := $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS),)
# The Wi-Fi lab (Tests/lab/): Debian's kernel under qemu with mac80211_hwsim, hostapd, wpa_supplicant.
LAB_PACKAGES := qemu-system-x86 linux-image-amd64 hostapd wpasupplicant iw busybox-static tcpdump kmod cpio ethtool iputils-ping dnsmasq-base \
  nftables linux-headers-amd64 linux-source wireless-regdb python3 iwd network-manager dbus-daemon
LAB_RESULTS ?= .build/lab


.PHONY: all deps deps-test deps-bench build debug test unit lint format fuzz demo bench orderfile install uninstall fixtures clean lab lab-deps lab-record

all: build

define apt_install
	$(Q)missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt_install,$(BUILD_PACKAGES))

deps-test: deps
	$(call apt_install,$(TEST_PACKAGES))

deps-bench: deps
	$(call apt_install,$(BENCH_PACKAGES))

build: deps
	$(Q)[ "$(CONFIG)" != release ] || [ ! bench/exporter.order -nt $(BIN) ] || rm -f $(BIN)  # relink: SwiftPM does not watch the list
	$(Q)$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS) $(SWIFT_FLAGS) --product pushdiag

debug: deps
	$(Q)$(SWIFT) build $(SWIFT_FLAGS)

# Everything: the Wi-Fi lab (make lab), every test under the address sanitizer (the core's TOML
# against tomllib included), a short run of every fuzz target, the main job on the release binary
# (its link is not the tests' one: lld, RELR, the exporter's layout).
# The lab and the suite's CLI tests run the release binary, the one users install
# (PUSHDIAG_BINARY): the debug build's argument parser checks every option group at each start,
# 0.1 to 0.5 s of CPU per run here and 10 to 15 s in the lab's emulated VM; one test still asks
# the debug build for every command's help, so those checks keep running (ArgumentDefinitionTests).
# Tests/make-test.sh runs the phases: the release build; the lab's VM of sections 1 to 8b on one
# vCPU held to one core, and on the other cores the one debug build (with the tests, under ASan:
# .build-asan) and then the fuzz targets' build (-Onone); the medium's walks in a VM of their own
# on every core; then side by side the fuzz targets' 10 s runs, make demo, and the suite a suite
# a process, four at a time (Tests/suite.sh), LabTests among them. docs/PERFORMANCE.md, "make test", has the phases and
# their times. (Through SUBMAKE, not $(MAKE): a line naming $(MAKE) runs even under make -n,
# and this one starts the VM.)
SUBMAKE := $(MAKE)
test: deps-test lab-deps lint
	$(Q)MAKE="$(SUBMAKE)" SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" Tests/make-test.sh $(abspath $(LAB_RESULTS))

# The formatter that ships with the toolchain, configured in .swift-format: `make format`
# rewrites, `make lint` (run by `make test`) fails on any difference. Warnings are errors in
# every build of pushdiag's targets (Package.swift).
FORMAT_PATHS := Sources Tests Package.swift
lint:
	$(Q)$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

format:
	$(Q)$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

# libFuzzer on every parser (the core's sources built with -sanitize=fuzzer,address); figures go
# to docs/RELIABILITY.md by hand from the printed statistics.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 10
fuzz:
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) Tests/fuzz/run.sh $(FUZZ_TARGETS)

# The suite without the lab (no qemu needed).
unit: deps-test
	$(Q)$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(Q)$(SWIFT) test $(SWIFT_FLAGS)

# The main job on a machine without Wi-Fi: pushdiag survey on the bundled recordings (nl80211
# recorded in the lab, with the survey counters of a 57%-busy channel; the lab's monitor capture)
# and a pushdiag responder on loopback as the push server.
demo: build
	$(Q)port=$$(( 20000 + $$$$ % 20000 )); \
	  $(BIN) responder --listen 127.0.0.1:$$port 2> .build/demo-responder.log & resp=$$!; \
	  for i in 1 2 3 4 5 6 7 8 9 10; do grep -q listening .build/demo-responder.log 2>/dev/null && break; sleep 0.2; done; \
	  $(BIN) survey --interface wlan2 --replay fixtures/wifi-utilization-57pct.pcap --capture fixtures/lab-hwsim0-beacons.pcap \
	    --server 127.0.0.1:$$port --duration 5s; status=$$?; \
	  kill $$resp; wait $$resp 2>/dev/null; \
	  echo "exit status $$status (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)"; [ $$status -le 3 ]

bench: deps-bench build
	$(Q)CONFIG=$(CONFIG) bench/run.sh

# The functions a resident exporter runs, seen by callgrind (bench/orderfile.sh), for the release
# link's layout; the list is committed, so a build needs no valgrind. Relinks with the new list.
orderfile: deps-bench
	$(call apt_install,valgrind binutils)
	$(Q)$(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product pushdiag
	$(Q)bench/orderfile.sh
	$(Q)rm -f .build/release/pushdiag && $(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product pushdiag

fixtures: debug
	$(Q).build/debug/pushdiag-fixtures fixtures

install: build
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	$(Q)install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/pushdiag
	$(Q)install -m 644 man/pushdiag.1 $(DESTDIR)$(MANDIR)/man1/pushdiag.1
	$(Q)$(BIN) --generate-completion-script bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/pushdiag
	$(Q)$(BIN) --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_pushdiag
	$(Q)$(BIN) --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/pushdiag.fish

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/pushdiag $(DESTDIR)$(MANDIR)/man1/pushdiag.1 \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions/pushdiag $(DESTDIR)$(DATADIR)/zsh/site-functions/_pushdiag \
	  $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/pushdiag.fish

clean:
	$(Q)rm -rf .build bench/out bench/bin

# The Wi-Fi lab: Debian's kernel under qemu with mac80211_hwsim, hostapd and wpa_supplicant; see
# Tests/lab/. `make lab` checks pushdiag against iw there (one VM of two vCPUs, then LabTests on the
# host: Tests/lab/lab.sh); `make lab-record` also refreshes the lab recordings in fixtures/.

lab-deps:
	$(call apt_install,$(LAB_PACKAGES))

lab: deps-test lab-deps
	$(Q)$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(Q)$(SUBMAKE) --no-print-directory build CONFIG=release
	$(Q)Tests/lab/virt-wifi-build.sh || true  # missing, the lab says so and LabTests fails
	$(Q)Tests/lab/lab.sh $(abspath $(LAB_RESULTS))

lab-record: deps-test lab-deps
	$(Q)$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(Q)$(SUBMAKE) --no-print-directory build CONFIG=release
	$(Q)Tests/lab/virt-wifi-build.sh || true
	$(Q)Tests/lab/lab.sh $(abspath $(LAB_RESULTS)) record
	$(Q).build/debug/pushdiag-fixtures fixtures  # the fixtures derived from the new recordings
