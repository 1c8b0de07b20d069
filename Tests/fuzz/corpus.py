#!/usr/bin/env python3
"""Seed corpora for the libFuzzer targets, from the project's fixtures and, when present,
../shared/pcaps: one file per capture record (link type index + record) for FuzzCapture, one per
netlink record for FuzzNetlink, protocol frames for FuzzPush, configuration files for FuzzConfig,
web configuration files (the exporter's --web-config) for FuzzWebConfig, a station's rejoin
frames (EAPOL-Key, DHCP, DNS, an association response) for FuzzJoin, and the first records of
each capture as a small pcapng file (either byte order, several sections) for FuzzPcapng, and
replies of the shapes NetworkManager and iwd send, as whole D-Bus messages, for FuzzDBus, and
request heads as Prometheus, curl and broken clients send them for FuzzHTTP."""
import hashlib, os, struct, sys

root, out = sys.argv[1], sys.argv[2]
LINKTYPES = [105, 119, 127, 163, 192]  # LinkType.allCases order

def records(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        return
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0xFFFF
    o = 24
    while o + 16 <= len(data):
        caplen = struct.unpack(e + "I", data[o + 8:o + 12])[0]
        if o + 16 + caplen > len(data) or caplen > 262144:
            return
        yield linktype, data[o + 16:o + 16 + caplen]
        o += 16 + caplen

counts = {}

def put(folder, blob, limit):
    if folder not in counts:
        os.makedirs(folder, exist_ok=True)
        counts[folder] = len(os.listdir(folder))
    if counts[folder] >= limit:
        return
    path = os.path.join(folder, hashlib.sha1(blob).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(blob)
        counts[folder] += 1

sources = []
for base in [os.path.join(root, "fixtures"), os.path.join(root, "..", "shared", "pcaps")]:
    for dirpath, _, files in os.walk(base):
        sources += [os.path.join(dirpath, n) for n in sorted(files) if n.endswith((".pcap", ".cap"))]
def pcapng(lt, recs, e, tsresol):
    def block(t, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack(e + "II", t, 12 + len(body)) + body + struct.pack(e + "I", 12 + len(body))
    out = block(0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack(e + "HHI", lt, 0, 0) + struct.pack(e + "HH", 9, 1) + bytes([tsresol, 0, 0, 0]) + struct.pack(e + "HH", 0, 0))
    for i, rec in enumerate(recs):
        if i % 3 == 2:
            out += block(3, struct.pack(e + "I", len(rec)) + rec)
        else:
            out += block(6, struct.pack(e + "IIIII", 0, 0, 1000 + i, len(rec), len(rec)) + rec)
    return out

for n, path in enumerate(sources):
    first = [r for r in records(path)][:6]
    if first:
        recs = [rec[:600] for _, rec in first]
        one = pcapng(first[0][0], recs[:3], "<>"[n % 2], (6, 9, 0x94)[n % 3])
        put(os.path.join(out, "pcapng"), one + pcapng(first[0][0], recs[3:], "<>"[n // 2 % 2], 6), 400)

for path in sources:
    for lt, rec in records(path):
        if lt in LINKTYPES:
            put(os.path.join(out, "capture"), bytes([LINKTYPES.index(lt)]) + rec[:4096], 4000)
        elif lt == 253:
            put(os.path.join(out, "netlink"), rec[16:], 2000)
            put(os.path.join(out, "netlink"), rec, 2000)
push = os.path.join(out, "push")
body = b'{"command":"request","requestIdentifier":7,"payload":{"codingKey":4,"data":"eyJjb3VudCI6MX0="}}'
put(push, struct.pack("<I", len(body)) + body, 100)
put(push, struct.pack(">I", len(body)) + body, 100)
put(push, b"\x20\x02\x00\x00\xd0\x00", 100)
put(push, b"\x8a\x05hello\x88\x02\x03\xe8", 100)
put(push, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n", 100)
put(push, b"GET /push HTTP/1.1\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", 100)
for t in (b"@10:20", b"~:40", b"500ms", b"0.5,1,2,4", b"fe80::1", b"10.0.0.1"):
    put(push, t, 100)
config = os.path.join(out, "config")
for name in ("pushdiag.toml.example", "fixtures/config-header-not-a-key.toml"):
    with open(os.path.join(root, name), "rb") as f:
        put(config, f.read(), 100)
for t in (b'[[server]]\nhost = "h"\nport = 3000\ntls = true\n', b'[thresholds]\nrtt_critical = 1000\nloss_warning = 1.5\n',
          b"x = '''\n[#'''\n", b'x = """\n\\"""\n"""\n', b'x = [\n[{a=1}], [ ]\n]\n', b'a."b".c = 1979-05-27T07:32:00Z\n',
          b'[exporter]\nprobe_allow = ["fd00::/8:3000-3010", "10.1.2.3", "push-*.ward-b.internal:443"]\n'):
    put(config, t, 100)
web = os.path.join(out, "webconfig")
with open(os.path.join(root, "contrib/pushdiag-web.yml"), "rb") as f:
    put(web, f.read(), 100)
h = b"$2y$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
for t in (b"---\ntls_server_config:\n  cert_file: a.crt\n  key_file: 'b.key'\n", b"basic_auth_users:\n  prometheus: " + h + b"\n",
          b"basic_auth_users: {}\n", b'tls_server_config:\n  cert_file: "a\\"b"  # c\n  key_file: b\n  client_ca_file: c\n  client_auth_type: RequestClientCert\n',
          b"a:\n    b:\n      c: ~\n  d: 1\n", b"- x\n", b"'k''q': [1]\n", b"tls_server_config:\r\n\tcert_file: a\r\n"):
    put(web, t, 100)
join = os.path.join(out, "join")
# join reports' ap_idle, as --join-limits reads them (whole reports are longer than -max_len).
put(join, b'{"interface": "wlan2", "cycles": [{"start": "2026-11-26T10:47:10Z"}], "ap_idle": {"rungs": [], "kept_s": 2.03, "dropped_after_s": 17.62, '
    b'"dropped_reason": 4, "limits": [{"source": "ap_kept", "seconds": 2.03}, {"source": "bss_max_idle", "seconds": 39.936}], '
    b'"safe_interval_s": 2.03, "interrupted": false}}', 100)
put(join, b'{"interface": "wlan0", "ap_idle": null}', 100)
eth = b"\x02\x00\x00\x00\x00\x51\x02\x00\x00\x00\x01\x00"
def udp4(sport, dport, payload):
    u = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    return eth + b"\x08\x00" + struct.pack(">BBHHHBBH", 0x45, 0, 20 + len(u), 1, 0, 64, 17, 0) + bytes([10, 0, 0, 7, 10, 0, 0, 1]) + u
def key(info, data=b""):
    body = struct.pack(">BHH", 2, info, 16) + b"\x00" * 7 + b"\x01" + b"\x00" * 80 + struct.pack(">H", len(data)) + data
    return eth + b"\x88\x8e" + struct.pack(">BBH", 2, 3, len(body)) + body
dhcp = bytes([2, 1, 6, 0]) + b"\xde\xad\xbe\xef" + b"\x00" * 8 + bytes([10, 0, 0, 7]) + b"\x00" * 8 + b"\x02\x00\x00\x00\x00\x51" + b"\x00" * 202
dhcp += b"\x63\x82\x53\x63" + bytes([53, 1, 5, 51, 4, 0, 0, 14, 16, 255])
dns = struct.pack(">HHHHHH", 9, 0x0100, 1, 0, 0, 0) + b"\x04push\x07example\x00\x00\x01\x00\x01"
frames = [key(0x008A), key(0x010A, b"\xdd" * 22), key(0x13CA, b"\xdd" * 56), key(0x030A), udp4(67, 68, dhcp), udp4(40000, 53, dns),
          eth + b"\x88\x8e" + bytes([1, 0, 0, 5, 1, 7, 0, 5, 1])]
put(join, b"".join(bytes([5, len(f)]) + f for f in frames if len(f) < 256), 100)
for f in frames:
    put(join, f, 100)
put(join, b"\x10\x00\x00\x00" + b"\x02\x00\x00\x00\x00\x51" + b"\x02\x00\x00\x00\x01\x00" * 2 + b"\x00\x00\x01\x04\x00\x00\x01\xc0" + bytes([90, 3, 44, 1, 1]), 100)
# join recordings' join.jsonl (a line each, and whole).
for dirpath, _, files in os.walk(os.path.join(root, "fixtures")):
    if "join.jsonl" in files:
        with open(os.path.join(dirpath, "join.jsonl"), "rb") as f:
            text = f.read()
        put(join, text, 100)
        for line in text.split(b"\n"):
            put(join, line, 100)
# FuzzWalk: walk recordings' push.jsonl (whole, the first 40 lines, and a line each).
walk = os.path.join(out, "walk")
for dirpath, _, files in os.walk(os.path.join(root, "fixtures")):
    if "push.jsonl" in files:
        with open(os.path.join(dirpath, "push.jsonl"), "rb") as f:
            text = f.read()
        put(walk, text, 100)
        put(walk, b"\n".join(text.split(b"\n")[:40]), 100)
        for line in text.split(b"\n"):
            put(walk, line, 100)
# FuzzHTTP: requests as the exporter's clients send them, after two bytes that choose the sizes of
# the pieces they are fed in ("\0\0": a byte at a time).
http = os.path.join(out, "http")
scrape = (b"GET /metrics HTTP/1.1\r\nHost: 10.0.0.5:9877\r\nUser-Agent: Prometheus/2.42.0\r\n"
          b"Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
          b"text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n")
curl = b"GET /probe?target=push.example:443&protocol=mqtt HTTP/1.1\r\nHost: localhost:9877\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"
post = b"POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"
for t in (scrape, curl, scrape + curl, post + curl, b"\r\nGET / HTTP/1.0\nConnection: keep-alive\n\nHEAD /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
          b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04\x00\x00\x00\x00\x00", b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
          b"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", b"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
          b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\nContent-Length: 4\r\n\r\n", b"GET /a\rb HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\n\r\n", b"GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n",
          b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999999999999999999999\r\n\r\n", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
          b"GET http://[fe80::1%25wlan0]:9877/metrics?x HTTP/1.1\r\nHost: [fe80::1%25wlan0]:9877\r\n\r\nGET HTTPS://h?q HTTP/1.0\r\n\r\n",
          b"GET / HTTP/1.1\r\nHost: user@a:80x\r\n\r\n",
          b"GET http://[::ffff:10.0.0.5]/ HTTP/1.1\r\nHost: [v1F.a:b]\r\n\r\nGET / HTTP/1.1\r\nHost: [fe80::1%25en%2D0]\r\n\r\n"):
    for sizes in (b"\x00\x00", b"\x07\xff", b"\x3f\x02"):
        put(http, sizes + t, 100)
for k in ("capture", "netlink", "push", "config", "webconfig", "join", "pcapng", "http", "walk"):
    print(k, len(os.listdir(os.path.join(out, k))) if os.path.isdir(os.path.join(out, k)) else 0)

# FuzzDBus: method returns (and an error) as D-Bus marshals them, little-endian, with the
# signatures join reads: GetId's s, NameHasOwner's b, ListNames' as, a property's v,
# GetConnectionCredentials' a{sv}, iwd's GetManagedObjects' a{oa{sa{sv}}}.
def dbus_split(sig):
    """The first complete type of sig, and the rest."""
    if sig[0] == "a":
        t, rest = dbus_split(sig[1:])
        return "a" + t, rest
    if sig[0] in "({":
        close = {"(": ")", "{": "}"}[sig[0]]
        depth, i = 0, 0
        while True:
            depth += sig[i] in "({"
            depth -= sig[i] in ")}"
            i += 1
            if depth == 0:
                return sig[:i], sig[i:]
    return sig[0], sig[1:]

def dbus_align(t):
    return {"y": 1, "g": 1, "v": 1, "b": 4, "u": 4, "i": 4, "s": 4, "o": 4, "a": 4, "x": 8, "t": 8, "d": 8, "(": 8, "{": 8}[t[0]]

def dbus_put(t, value, buf):
    while len(buf) % dbus_align(t):
        buf.append(0)
    if t in ("s", "o"):
        b = value.encode()
        buf += struct.pack("<I", len(b)) + b + b"\0"
    elif t == "g":
        b = value.encode()
        buf += bytes([len(b)]) + b + b"\0"
    elif t == "y":
        buf.append(value)
    elif t in ("b", "u"):
        buf += struct.pack("<I", int(value))
    elif t == "v":
        dbus_put("g", value[0], buf)
        dbus_put(value[0], value[1], buf)
    elif t[0] == "a":
        elem = t[1:]
        at = len(buf)
        buf += b"\0\0\0\0"
        while len(buf) % dbus_align(elem):
            buf.append(0)
        start = len(buf)
        for item in (value.items() if isinstance(value, dict) else value):
            dbus_put(elem, item, buf)
        struct.pack_into("<I", buf, at, len(buf) - start)
    else:  # a structure or a dictionary entry
        inner = t[1:-1]
        for v in value:
            first, inner = dbus_split(inner)
            dbus_put(first, v, buf)

def dbus_message(sig, values, kind=2, error=None):
    body = bytearray()
    rest = sig
    for v in values:
        first, rest = dbus_split(rest)
        dbus_put(first, v, body)
    fields = [(5, ("u", 1))] + ([(4, ("s", error))] if error else []) + ([(8, ("g", sig))] if sig else [])
    head = bytearray(b"l" + bytes([kind, 0, 1]) + struct.pack("<II", len(body), 2))
    dbus_put("a(yv)", fields, head)
    while len(head) % 8:
        head.append(0)
    return bytes(head + body)

dbus = os.path.join(out, "dbus")
iwd = "/net/connman/iwd/0/4"
props = lambda **kv: {k: v for k, v in kv.items()}
objects = {
    "/": {"org.freedesktop.DBus.ObjectManager": {}},
    iwd: {"net.connman.iwd.Device": props(Name=("s", "wlan0"), Address=("s", "02:00:00:00:02:00"), Powered=("b", True)),
          "net.connman.iwd.Station": props(State=("s", "connected"), ConnectedNetwork=("o", iwd + "/7761726433_psk"))},
    iwd + "/7761726433_psk": {"net.connman.iwd.Network": props(Name=("s", "ward-3"), Type=("s", "psk"), Connected=("b", True))},
}
for sig, values in [
    ("s", ["0123456789abcdef0123456789abcdef"]), ("b", [True]), ("as", [["org.freedesktop.DBus", ":1.0", ":1.7"]]),
    ("o", ["/org/freedesktop/NetworkManager/Devices/3"]), ("v", [("o", "/org/freedesktop/NetworkManager/ActiveConnection/1")]),
    ("v", [("as", ["org.freedesktop.DBus.Monitoring"])]), ("a{sv}", [{"UnixUserID": ("u", 0), "ProcessID": ("u", 1234)}]),
    ("a{oa{sa{sv}}}", [objects]), ("", []),
]:
    put(dbus, dbus_message(sig, values), 100)
put(dbus, dbus_message("s", ["The name net.connman.iwd was not provided by any .service files"], kind=3,
                       error="org.freedesktop.DBus.Error.ServiceUnknown"), 100)
