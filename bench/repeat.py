#!/usr/bin/env python3
"""For make bench: repeat.py SRC PASSES DST writes the records of the classic pcap file SRC
PASSES times over into DST, each pass's timestamps shifted one hour after the previous pass's
(as `editcap -t` would), so a mix of a few hundred frames can be timed at millions.

An hour, not a day: 8,500 passes of a day would carry the shared captures' times past 2038
(2^31 seconds), where libpcap versions disagree on the sign of the seconds field; pushdiag
leaves such records to libpcap, which a benchmark of the common case should not measure."""
import struct, sys

src, passes, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = open(src, 'rb').read()
magic = struct.unpack('<I', d[:4])[0]
if magic not in (0xA1B2C3D4, 0xA1B23C4D):
    sys.exit(f'repeat.py: {src}: not a little-endian classic pcap file (magic {magic:#x})')
recs = []  # (seconds, the rest of the record header and the record)
o = 24
while o + 16 <= len(d):
    sec, frac, caplen, length = struct.unpack('<IIII', d[o:o + 16])
    if o + 16 + caplen > len(d):
        sys.exit(f'repeat.py: {src}: truncated record at byte {o}')
    recs.append((sec, d[o + 4:o + 16 + caplen]))
    o += 16 + caplen
with open(dst, 'wb') as out:
    out.write(d[:24])
    pack = struct.Struct('<I').pack
    for i in range(passes):
        shift = i * 3600
        out.write(b''.join(pack(sec + shift) + rest for sec, rest in recs))
print(f'{len(recs) * passes} frames')
