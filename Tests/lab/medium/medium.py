#!/usr/bin/env python3
"""The lab's radio medium for mac80211_hwsim: signals that move, frames that fail.

Registers with hwsim (generic netlink family MAC80211_HWSIM, HWSIM_CMD_REGISTER), after which
every frame any hwsim radio transmits arrives here as HWSIM_CMD_FRAME. For each frame this
program decides, from a scenario (radios at positions, a station walking timed waypoints, a
log-distance path-loss model, a noise floor, per-rate loss), whether and at what signal each
other radio receives it, and tells the transmitter how many attempts at which rates it took and
whether it was acknowledged (HWSIM_CMD_TX_INFO_FRAME). mac80211 counts those attempts into the
station's tx retries and failures as it would a real card's, and the receivers see the signal
given here. The kernel drops deliveries for radios tuned to another channel, so frames reach
only radios on the transmitter's frequency.

Usage: medium.py SCENARIO.json [--log FILE] [--air PCAP] [--seconds N] [--hold]
With --hold the scenario's clock stands at 0 (radios at their first positions) until SIGUSR1, so
a test starts the walk when its tools are ready rather than when the medium started.
The scenario format is documented in Tests/lab/medium/README.md. Every link's signal is logged
(JSON lines) every `log_interval_s` so tests can compare pushdiag and iw with what the air was.
Pure arithmetic (path loss, positions, loss probability, rate tables) is in the Model and Path
classes, tested by test_medium.py without a kernel. Python's standard library only.
"""

import json
import math
import os
import random
import select
import signal
import socket
import struct
import sys
import time

# --- generic netlink and hwsim constants (include/uapi/linux/genetlink.h, mac80211_hwsim.h) ---
NETLINK_GENERIC = 16
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
HWSIM_CMD_REGISTER = 1
HWSIM_CMD_FRAME = 2
HWSIM_CMD_TX_INFO_FRAME = 3
HWSIM_ATTR_ADDR_RECEIVER = 1
HWSIM_ATTR_ADDR_TRANSMITTER = 2
HWSIM_ATTR_FRAME = 3
HWSIM_ATTR_FLAGS = 4
HWSIM_ATTR_RX_RATE = 5
HWSIM_ATTR_SIGNAL = 6
HWSIM_ATTR_TX_INFO = 7
HWSIM_ATTR_COOKIE = 8
HWSIM_ATTR_FREQ = 19
HWSIM_ATTR_PAD = 20
HWSIM_ATTR_TX_INFO_FLAGS = 21
HWSIM_TX_CTL_NO_ACK = 2
HWSIM_TX_STAT_ACK = 4
HWSIM_TX_RC_MCS = 1 << 3
HWSIM_TX_RC_VHT_MCS = 1 << 8
TX_MAX_RATES = 4

# --- the radio model ------------------------------------------------------------------------

# SNR (dB) at which half the frames at a rate are lost: typical receiver sensitivities (about
# -94 dBm at 1 Mb/s to -65 dBm at 65 Mb/s) over a -95 dBm noise floor. Legacy rates by their
# hwsim index (hwsim_rates[]: 1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, 48, 54 Mb/s; 5 GHz bands start
# at 6 Mb/s, index 4 of that table) and HT MCS 0-7; MCS 8-15 (two streams) need 3 dB more.
LEGACY_SNR = [1, 4, 6, 8, 8, 9, 10, 12, 15, 19, 24, 25]
HT_SNR = [9, 12, 15, 18, 22, 26, 27, 29]


def required_snr(idx, flags, band5):
    """The SNR at which half the frames sent at this rate are lost."""
    if idx < 0:
        return None
    if flags & HWSIM_TX_RC_VHT_MCS:
        mcs, nss = idx & 0x0F, (idx >> 4) + 1
        return HT_SNR[min(mcs, 7)] + 3 * (nss - 1) + (4 if mcs > 7 else 0)
    if flags & HWSIM_TX_RC_MCS:
        return HT_SNR[idx % 8] + 3 * (idx // 8)
    table = LEGACY_SNR[4:] if band5 else LEGACY_SNR
    return table[min(idx, len(table) - 1)]


class Model:
    """Log-distance path loss, a noise floor and a logistic frame-loss curve per rate."""

    def __init__(self, reference_loss_db=40.0, exponent=3.0, tx_power_dbm=20.0,
                 noise_floor_dbm=-95.0, loss_slope_per_db=1.0, min_distance_m=1.0):
        self.reference_loss_db = float(reference_loss_db)
        self.exponent = float(exponent)
        self.tx_power_dbm = float(tx_power_dbm)
        self.noise_floor_dbm = float(noise_floor_dbm)
        self.loss_slope_per_db = float(loss_slope_per_db)
        self.min_distance_m = float(min_distance_m)

    def path_loss(self, distance_m):
        """PL(d) = PL(1 m) + 10·n·log10(d / 1 m); distances under min_distance_m count as that."""
        d = max(distance_m, self.min_distance_m)
        return self.reference_loss_db + 10.0 * self.exponent * math.log10(d)

    def signal(self, distance_m, extra_loss_db=0.0):
        return self.tx_power_dbm - self.path_loss(distance_m) - extra_loss_db

    def snr(self, signal_dbm):
        return signal_dbm - self.noise_floor_dbm

    def loss_probability(self, snr_db, needed_snr_db):
        """1/2 at the rate's needed SNR, towards 0 above it and 1 below, `slope` per dB."""
        x = (snr_db - needed_snr_db) * self.loss_slope_per_db
        if x > 40:
            return 0.0
        if x < -40:
            return 1.0
        return 1.0 / (1.0 + math.exp(x))


class Path:
    """Where a radio is at time t: a fixed position, or timed waypoints walked in straight lines
    (before the first it stands at the first, after the last at the last)."""

    def __init__(self, spec):
        if "path" in spec:
            self.points = sorted((float(p["t"]), tuple(map(float, p["position"]))) for p in spec["path"])
            if not self.points:
                raise ValueError("an empty path")
        else:
            self.points = [(0.0, tuple(map(float, spec["position"])))]
        dims = {len(p) for _, p in self.points}
        if len(dims) != 1 or dims.pop() not in (2, 3):
            raise ValueError("positions are [x, y] or [x, y, z] in metres")

    def at(self, t):
        pts = self.points
        if t <= pts[0][0]:
            return pts[0][1]
        for (t0, p0), (t1, p1) in zip(pts, pts[1:]):
            if t <= t1:
                f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
                return tuple(a + (b - a) * f for a, b in zip(p0, p1))
        return pts[-1][1]


def distance(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


class Scenario:
    """Radios (by hwsim radio number), their paths, the model, and timed events."""

    def __init__(self, doc):
        self.model = Model(**doc.get("model", {}))
        self.seed = int(doc.get("seed", 1))
        self.log_interval_s = float(doc.get("log_interval_s", 1.0))
        self.radios = {}
        for r in doc["radios"]:
            name = r["name"]
            if name in self.radios:
                raise ValueError(f"radio {name} twice")
            self.radios[name] = {"radio": int(r["radio"]), "path": Path(r)}
        self.events = []
        for e in doc.get("events", []):
            kind = e.get("kind")
            if kind == "gone":
                self._radio(e["radio"])
                self.events.append(("gone", float(e["at"]), None, e["radio"], None))
            elif kind == "extra_loss":
                a, b = e["link"]
                self._radio(a), self._radio(b)
                self.events.append(("extra_loss", float(e["from"]), float(e["to"]), frozenset((a, b)), float(e["db"])))
            else:
                raise ValueError(f"unknown event kind {kind!r} (gone, extra_loss)")
        # The same events by radio and by link, for the per-frame questions below.
        self._gone_at = {}
        self._extra = {}
        for k, t0, t1, who, db in self.events:
            if k == "gone":
                self._gone_at[who] = min(t0, self._gone_at.get(who, t0))
            else:
                self._extra.setdefault(who, []).append((t0, t1, db))

    def _radio(self, name):
        if name not in self.radios:
            raise ValueError(f"an event names radio {name}, which the scenario does not place")

    def gone(self, name, t):
        at = self._gone_at.get(name)
        return at is not None and t >= at

    def extra_loss(self, a, b, t):
        return sum(db for t0, t1, db in self._extra.get(frozenset((a, b)), ()) if t0 <= t < t1)

    def link_signal(self, a, b, t):
        """The signal (dBm) radio b receives from radio a at time t (reciprocal), or None if
        either has gone."""
        if self.gone(a, t) or self.gone(b, t):
            return None
        d = distance(self.radios[a]["path"].at(t), self.radios[b]["path"].at(t))
        return self.model.signal(d, self.extra_loss(a, b, t))


def parse_tx_info(rates, flags):
    """HWSIM_ATTR_TX_INFO ({s8 idx, u8 count} x4) and _FLAGS ({s8 idx, u16 flags} x4)."""
    if len(rates) >= 2 * TX_MAX_RATES and len(flags) >= 3 * TX_MAX_RATES:
        r = struct.unpack_from("bBbBbBbB", rates)
        f = struct.unpack_from("=bHbHbHbH", flags)
        return [(r[0], r[1], f[1]), (r[2], r[3], f[3]), (r[4], r[5], f[5]), (r[6], r[7], f[7])]
    plan = []
    for i in range(TX_MAX_RATES):
        idx, count = struct.unpack_from("bB", rates, 2 * i) if len(rates) >= 2 * (i + 1) else (-1, 0)
        f = struct.unpack_from("=bH", flags, 3 * i)[1] if len(flags) >= 3 * (i + 1) else 0
        plan.append((idx, count, f))
    return plan


def attempt(plan, p_loss_of, rng):
    """Walks the rate controller's plan: each stage's attempts until one gets through. Returns
    (the attempts made per stage as [(idx, count)], acknowledged, the stage that got through)."""
    used = []
    for idx, count, f in plan:
        if idx < 0 or count == 0:
            break
        p = p_loss_of(idx, f)
        for n in range(1, count + 1):
            if rng.random() >= p:
                used.append((idx, n))
                return used, True, (idx, f)
        used.append((idx, count))
    return used, False, None


# --- the air as a sniffer would record it ---------------------------------------------------

# hwsim's legacy rates in 500 kb/s (radiotap's unit), by index: hwsim_rates[] on 2.4 GHz; 5 GHz
# bands start at its index 4 (6 Mb/s).
RATES_2G = [2, 4, 11, 22, 12, 18, 24, 36, 48, 72, 96, 108]
RATES_5G = RATES_2G[4:]
PCAP_HEADER = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 127)  # LINKTYPE_IEEE802_11_RADIOTAP


def radiotap(freq, rate_idx, flags, signal_dbm):
    """A radiotap header: Flags (0: no FCS in the frame), Rate (legacy rates only; omitted for
    MCS), Channel (frequency, band), dBm antenna signal (omitted when unknown)."""
    band5 = freq >= 4900
    table = RATES_5G if band5 else RATES_2G
    legacy = not (flags & (HWSIM_TX_RC_MCS | HWSIM_TX_RC_VHT_MCS)) and 0 <= rate_idx < len(table)
    present = (1 << 1) | (1 << 3) | ((1 << 2) if legacy else 0) | ((1 << 5) if signal_dbm is not None else 0)
    body = struct.pack("<B", 0)
    if legacy:
        body += struct.pack("<B", table[rate_idx])
    body += b"\0" * (len(body) % 2)  # Channel is aligned to 2
    body += struct.pack("<HH", freq, 0x0100 if band5 else 0x0080)
    if signal_dbm is not None:
        body += struct.pack("<b", max(-128, min(127, int(round(signal_dbm)))))
    return struct.pack("<BBHI", 0, 0, 8 + len(body), present) + body


def air_records(frame, freq, used, signal_dbm, wall):
    """One pcap record per attempt the medium made of `frame` (stages `used` as
    [(idx, count, rate flags)]),
    the Retry bit set on every attempt after the first, as a sniffer beside the receiver would
    have recorded them. (hwsim's own monitor, hwsim0, sees each frame once, before the medium
    decides its attempts, so its Retry bits are never set.)"""
    out = b""
    n = 0
    for idx, count, flags in used:
        for _ in range(count):
            f = bytearray(frame)
            if n > 0 and len(f) >= 2:
                f[1] |= 0x08
            rec = radiotap(freq, idx, flags, signal_dbm) + bytes(f)
            sec = int(wall)
            out += struct.pack("<IIII", sec, int((wall - sec) * 1e6), len(rec), len(rec)) + rec
            n += 1
    return out


# --- netlink --------------------------------------------------------------------------------

def nla(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, kind = struct.unpack_from("=HH", buf, off)
        if n < 4 or off + n > len(buf):
            break
        out[kind & 0x3FFF] = buf[off + 4:off + n]
        off += (n + 3) & ~3
    return out


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind((0, 0))
        self.seq = 0

    def send(self, family, cmd, payload=b"", flags=NLM_F_REQUEST):
        self.seq += 1
        body = struct.pack("=BBH", cmd, 1, 0) + payload
        self.sock.send(struct.pack("=IHHII", 16 + len(body), family, flags, self.seq, 0) + body)

    def messages(self, data):
        off = 0
        while off + 16 <= len(data):
            n, kind, _, _, _ = struct.unpack_from("=IHHII", data, off)
            if n < 16 or off + n > len(data):
                break
            yield kind, data[off + 16:off + n]
            off += (n + 3) & ~3

    def family(self, name):
        self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        for kind, body in self.messages(self.sock.recv(65536)):
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("=i", body)[0]
                raise OSError(-err, f"generic netlink family {name}: {os.strerror(-err)}")
            a = attrs(body[4:])
            if CTRL_ATTR_FAMILY_ID in a:
                return struct.unpack("=H", a[CTRL_ATTR_FAMILY_ID][:2])[0]
        raise OSError(f"generic netlink family {name}: no answer")


def mac(b):
    return ":".join(f"{x:02x}" for x in b)


def medium_address(mac_text):
    """hwsim's medium address of a radio: its permanent address with 0x40 set in the first byte."""
    b = bytes(int(x, 16) for x in mac_text.split(":"))
    return bytes([b[0] | 0x40]) + b[1:]


def hwsim_radios():
    """Radio number → (medium address, interface address), from sysfs: hwsim's phys sit under
    /sys/devices/virtual/mac80211_hwsim/hwsimN, with the permanent address 02:00:00:NN:NN:00."""
    out = {}
    base = "/sys/class/ieee80211"
    for phy in os.listdir(base):
        try:
            if "mac80211_hwsim" not in os.path.realpath(f"{base}/{phy}/device"):
                continue
            with open(f"{base}/{phy}/macaddress") as f:
                addr = f.read().strip()
        except OSError:
            continue
        b = bytes(int(x, 16) for x in addr.split(":"))
        out[b[3] << 8 | b[4]] = (medium_address(addr), b)
    return out


# --- the medium -----------------------------------------------------------------------------

_UNCACHED = object()  # link_signal's cache holds None for a link with a radio gone

class Medium:
    def __init__(self, scenario, log, air=None):
        self.s = scenario
        self.log = log
        self.air = air
        if air:
            air.write(PCAP_HEADER)
        self.rng = random.Random(scenario.seed)
        self.genl = Genl()
        self.family = self.genl.family("MAC80211_HWSIM")
        radios = hwsim_radios()
        self.by_medium = {}      # medium address → scenario name
        self.names = {}          # scenario name → medium address
        self.unicast = {}        # an interface address seen as a transmitter → scenario name
        for name, r in scenario.radios.items():
            if r["radio"] not in radios:
                raise SystemExit(f"medium: the scenario places radio {r['radio']} ({name}), which hwsim does not have (radios: {sorted(radios)})")
            medium, iface = radios[r["radio"]]
            self.by_medium[medium] = name
            self.names[name] = medium
            self.unicast[iface] = name
        self.prepare()
        self.start = time.monotonic()
        self.held = False
        self.cache_slot, self.cache = None, {}
        self.stats = {"frames": 0, "delivered": 0, "lost": 0, "attempts": 0, "unacked": 0, "unplaced": 0}
        self.busy = 0.0
        self.behind_reported = 0.0

    def prepare(self):
        """Each receiver's address attribute, made once rather than per delivery."""
        self.receiver_attr = {name: nla(HWSIM_ATTR_ADDR_RECEIVER, medium) for name, medium in self.names.items()}

    def now(self):
        return 0.0 if self.held else time.monotonic() - self.start

    def release(self, *_):
        if self.held:
            self.held = False
            self.start = time.monotonic()
            self.write({"event": "released"})

    def link_signal(self, a, b, t):
        """The scenario's link signal, computed once per 50 ms of scenario time (the station
        walks a few centimetres in that time) and once for both directions (it is reciprocal):
        the per-frame cost under emulation matters."""
        slot = int(t * 20)
        if slot != self.cache_slot:
            self.cache_slot, self.cache = slot, {}
        key = (a, b) if a < b else (b, a)
        sig = self.cache.get(key, _UNCACHED)
        if sig is _UNCACHED:
            sig = self.cache[key] = self.s.link_signal(a, b, t)
        return sig

    def write(self, record):
        if self.log:
            record["wall"] = round(time.time(), 3)
            self.log.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.log.flush()

    def log_links(self, t):
        names = sorted(self.s.radios)
        links = {}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                sig = self.s.link_signal(a, b, t)
                links[f"{a}-{b}"] = None if sig is None else round(sig, 2)
        self.write({"t": round(t, 3), "links": links,
                    "positions": {n: [round(x, 2) for x in self.s.radios[n]["path"].at(t)] for n in names},
                    "stats": dict(self.stats)})

    def register(self):
        self.genl.send(self.family, HWSIM_CMD_REGISTER)

    def on_frame(self, a):
        self.stats["frames"] += 1
        t = self.now()
        tx_medium = a.get(HWSIM_ATTR_ADDR_TRANSMITTER, b"")[:6]
        frame = a.get(HWSIM_ATTR_FRAME, b"")
        flags = struct.unpack("=I", a[HWSIM_ATTR_FLAGS][:4])[0] if HWSIM_ATTR_FLAGS in a else 0
        freq = struct.unpack("=I", a[HWSIM_ATTR_FREQ][:4])[0] if HWSIM_ATTR_FREQ in a else 0
        cookie = a.get(HWSIM_ATTR_COOKIE, b"\0" * 8)[:8]
        plan = parse_tx_info(a.get(HWSIM_ATTR_TX_INFO, b""), a.get(HWSIM_ATTR_TX_INFO_FLAGS, b""))
        band5 = freq >= 4900
        tx = self.by_medium.get(tx_medium)
        if tx is None:
            self.stats["unplaced"] += 1
        elif len(frame) >= 16:
            self.unicast[frame[10:16]] = tx
        addr1 = frame[4:10] if len(frame) >= 10 else b"\xff" * 6
        group = bool(addr1[0] & 1)
        no_ack = bool(flags & HWSIM_TX_CTL_NO_ACK) or group
        rx_target = None if group else self.unicast.get(addr1)

        def p_loss(rx):
            sig = None if tx is None else self.link_signal(tx, rx, t)
            if sig is None:
                return lambda idx, f: 1.0
            snr = self.s.model.snr(sig)
            return lambda idx, f: self.s.model.loss_probability(snr, required_snr(idx, f, band5))

        acked = False
        if not no_ack and rx_target is not None:
            used, acked, got = attempt(plan, p_loss(rx_target), self.rng)
            receivers = [(rx_target, got)] if acked else []
        elif not no_ack:
            # Unicast to an address no placed radio has: every attempt goes unanswered.
            used, _, _ = attempt(plan, lambda idx, f: 1.0, self.rng)
            receivers = []
        else:
            # Group-addressed or sent without an ACK: one attempt at the first rate, each placed
            # receiver drawing on its own link.
            first = next(((i, f) for i, c, f in plan if i >= 0 and c > 0), (0, 0))
            used = [(first[0], 1)]
            receivers = []
            for rx in self.s.radios:
                if rx == tx:
                    continue
                if self.rng.random() >= p_loss(rx)(*first):
                    receivers.append((rx, first))
                else:
                    self.stats["lost"] += 1
        self.stats["attempts"] += sum(n for _, n in used)
        if self.air:
            sig = self.link_signal(tx, rx_target, t) if (tx and rx_target) else None
            # Each stage's rate flags (MCS or legacy), from the plan the stages were walked in.
            stages = [(idx, n, plan[k][2] if k < len(plan) else 0) for k, (idx, n) in enumerate(used)]
            self.air.write(air_records(frame, freq, stages, sig, time.time()))
            self.air.flush()
        if not acked and not no_ack:
            self.stats["unacked"] += 1
        frame_attr = nla(HWSIM_ATTR_FRAME, frame) if receivers else b""
        for rx, (idx, f) in receivers:
            sig = self.link_signal(tx, rx, t)
            rx_rate = idx if not (f & (HWSIM_TX_RC_MCS | HWSIM_TX_RC_VHT_MCS)) and 0 <= idx < 8 else 0
            # RX_RATE, SIGNAL and FREQ: three attributes of four bytes each, packed at once.
            payload = (self.receiver_attr[rx] + frame_attr
                       + struct.pack("=HHIHHiHHI", 8, HWSIM_ATTR_RX_RATE, rx_rate, 8, HWSIM_ATTR_SIGNAL, int(round(sig)),
                                     8, HWSIM_ATTR_FREQ, freq))
            try:
                self.genl.send(self.family, HWSIM_CMD_FRAME, payload)
                self.stats["delivered"] += 1
            except OSError:
                pass  # a radio that is down (EINVAL): nothing hears it
        # The transmitter's status: the attempts made, and the ACK (carrying the reverse link's
        # signal) unless the frame asked for none or every attempt failed.
        rates = b"".join(struct.pack("bB", i, n) for i, n in used)
        rates += struct.pack("bB", -1, 0) * (TX_MAX_RATES - len(used))
        back = flags & ~HWSIM_TX_STAT_ACK
        if acked or (group and not (flags & HWSIM_TX_CTL_NO_ACK)):
            back |= HWSIM_TX_STAT_ACK
        ack_sig = self.link_signal(rx_target, tx, t) if (rx_target and tx) else None
        payload = (nla(HWSIM_ATTR_ADDR_TRANSMITTER, tx_medium)
                   + struct.pack("=HHIHHi", 8, HWSIM_ATTR_FLAGS, back, 8, HWSIM_ATTR_SIGNAL,
                                 int(round(ack_sig if ack_sig is not None else -95)))
                   + nla(HWSIM_ATTR_TX_INFO, rates) + nla(HWSIM_ATTR_COOKIE, cookie))
        try:
            self.genl.send(self.family, HWSIM_CMD_TX_INFO_FRAME, payload)
        except OSError:
            pass

    def run(self, seconds=None, hold=False):
        self.held = hold
        signal.signal(signal.SIGUSR1, self.release)
        self.register()
        self.write({"event": "registered", "radios": {n: mac(m) for n, m in self.names.items()}})
        print("medium: registered", flush=True)
        next_log = 0.0
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        signal.signal(signal.SIGINT, lambda *_: stop.append(1))
        window_start, window_busy = time.monotonic(), 0.0
        while not stop:
            t = self.now()
            if seconds is not None and t >= seconds:
                break
            if t >= next_log:
                self.log_links(t)
                next_log = t + self.s.log_interval_s
            try:
                ready, _, _ = select.select([self.genl.sock], [], [], max(0.0, min(0.2, next_log - t)))
            except InterruptedError:
                continue
            if not ready:
                continue
            began = time.monotonic()
            try:
                data = self.genl.sock.recv(1 << 20)
            except OSError as e:
                # ENOBUFS: the kernel dropped messages because this process did not keep up.
                self.write({"event": "behind", "t": round(self.now(), 3), "error": str(e)})
                print(f"medium: falling behind: {e}", file=sys.stderr, flush=True)
                continue
            for kind, body in self.genl.messages(data):
                if kind == self.family and body[0] == HWSIM_CMD_FRAME:
                    self.on_frame(attrs(body[4:]))
                # NLMSG_ERROR: a delivery to a radio that is down (EINVAL); nothing hears it.
            window_busy += time.monotonic() - began
            if time.monotonic() - window_start >= 5.0:
                load = window_busy / (time.monotonic() - window_start)
                if load > 0.9:
                    self.write({"event": "behind", "t": round(self.now(), 3), "busy": round(load, 2)})
                    print(f"medium: busy {load:.0%} of the last 5 s: it may fall behind", file=sys.stderr, flush=True)
                window_start, window_busy = time.monotonic(), 0.0
        self.log_links(self.now())
        # Its CPU time (this process): what the medium costs the lab. The system part is mostly
        # the kernel's: each delivery's receive path (mac80211, the bridge, IP) runs as a softirq
        # on the way out of the medium's send and is charged to it.
        cpu = os.times()
        self.write({"event": "stopped", "stats": dict(self.stats), "cpu_s": round(cpu.user + cpu.system, 2),
                    "user_s": round(cpu.user, 2), "system_s": round(cpu.system, 2)})


def main(argv):
    import argparse
    p = argparse.ArgumentParser(description="A radio medium for mac80211_hwsim (see README.md).")
    p.add_argument("scenario")
    p.add_argument("--log", help="JSON lines: every link's signal each log_interval_s, and the counts")
    p.add_argument("--seconds", type=float, help="stop after this long (scenario time)")
    p.add_argument("--hold", action="store_true", help="the scenario's clock starts at SIGUSR1")
    p.add_argument("--air", help="pcap (radiotap): every attempt at every frame, the Retry bit on each after the first")
    args = p.parse_args(argv)
    try:
        with open(args.scenario) as f:
            scenario = Scenario(json.load(f))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"medium: cannot read {args.scenario}: {e}", file=sys.stderr)
        return 3
    try:
        log = open(args.log, "w") if args.log else None
        air = open(args.air, "wb") if args.air else None
    except OSError as e:
        print(f"medium: {e}", file=sys.stderr)
        return 3
    try:
        Medium(scenario, log, air).run(args.seconds, args.hold)
    except OSError as e:
        print(f"medium: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
