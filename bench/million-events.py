#!/usr/bin/env python3
"""For make bench: a netlink recording with N replayed nl80211 events (the lab recording's set-up
exchanges, then its first disconnect event repeated 1 ms apart)."""
import struct, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
out = open(dst, 'wb'); out.write(d[:24])
o = 24; recs = []
while o + 16 <= len(d):
    ts, tu, cl, ol = struct.unpack('<IIII', d[o:o+16]); recs.append((d[o:o+16], d[o+16:o+16+cl])); o += 16 + cl
# header part: records until the first multicast (seq 0) incoming event
head = []
event = None
for h, r in recs:
    msg = r[16:]
    seq = struct.unpack('<I', msg[8:12])[0]; flags = struct.unpack('<H', msg[6:8])[0]; cmd = msg[16]
    if seq == 0 and not flags & 1:
        if cmd == 48 and event is None: event = (h, r)
        if event: break
    head.append((h, r))
for h, r in head: out.write(h + r)
ts, tu, cl, ol = struct.unpack('<IIII', event[0])
for i in range(n):
    t = ts + i // 1000
    out.write(struct.pack('<IIII', t, (i % 1000) * 1000000, cl, ol) + event[1])
out.close()
