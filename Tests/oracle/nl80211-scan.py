#!/usr/bin/python3
"""tshark as the oracle for the scan cache a walk reads: for every BSS of every
NL80211_CMD_NEW_SCAN_RESULTS message (a GET_SCAN dump's entries) of a netlink recording, prints
"frame bssid freq_mhz signal_mbm seen_ms_ago" as tshark decodes them ("-" when tshark finds no
such attribute). Usage: nl80211-scan.py TSHARK FILE"""
import subprocess, sys
import xml.etree.ElementTree as ET

WANTED = {"NL80211_BSS_BSSID": "bssid", "NL80211_BSS_FREQUENCY": "freq", "NL80211_BSS_SIGNAL_MBM": "signal",
          "NL80211_BSS_SEEN_MS_AGO": "seen"}
pdml = subprocess.run([sys.argv[1], "-n", "-r", sys.argv[2], "-Y", "nl80211.cmd == 34", "-T", "pdml"],
                      check=True, capture_output=True).stdout
for packet in ET.fromstring(pdml).iter("packet"):
    frame = next(f.get("show") for f in packet.iter("field") if f.get("name") == "frame.number")
    for bss in (f for f in packet.iter("field") if f.get("show") == "Attribute: NL80211_ATTR_BSS"):
        got = {}
        for f in bss.iter("field"):
            name = (f.get("show") or "").removeprefix("Attribute: ")
            if name not in WANTED or WANTED[name] in got:
                continue
            value = next((c.get("show") for c in f if c.get("name", "").startswith("nl80211.attr_value")), None)
            if value is None:
                continue
            if name == "NL80211_BSS_BSSID":
                got["bssid"] = ":".join(value.replace(":", "")[i:i + 2] for i in range(0, 12, 2))
            else:
                v = int(value.split()[0], 0)
                got[WANTED[name]] = v - (1 << 32) if name == "NL80211_BSS_SIGNAL_MBM" and v >= 1 << 31 else v
        print(frame, *(got.get(k, "-") for k in ("bssid", "freq", "signal", "seen")))
