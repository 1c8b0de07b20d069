#!/usr/bin/python3
"""tshark as the oracle for station counters: for every NL80211_CMD_NEW_STATION message of a
netlink recording, prints "frame signal_avg tx_bitrate_100kbps" as tshark decodes them
("-" when tshark finds no such attribute). Usage: nl80211-station.py TSHARK FILE"""
import subprocess, sys
import xml.etree.ElementTree as ET

pdml = subprocess.run([sys.argv[1], "-n", "-r", sys.argv[2], "-Y", "nl80211.cmd == 19", "-T", "pdml"],
                      check=True, capture_output=True).stdout
for packet in ET.fromstring(pdml).iter("packet"):
    frame = next(f.get("show") for f in packet.iter("field") if f.get("name") == "frame.number")
    avg, rate32, rate = "-", None, None
    for f in packet.iter("field"):
        if f.get("show") == "Attribute: NL80211_STA_INFO_SIGNAL_AVG":
            avg = next(c.get("show") for c in f if c.get("name") == "nl80211.dbm")
    tx = next((f for f in packet.iter("field") if f.get("show") == "Attribute: NL80211_STA_INFO_TX_BITRATE"), None)
    for f in (tx.iter("field") if tx is not None else []):
        show = f.get("show") or ""
        if show in ("Attribute: NL80211_RATE_INFO_BITRATE32", "Attribute: NL80211_RATE_INFO_BITRATE"):
            value = next(c.get("show") for c in f if c.get("name", "").startswith("nl80211.attr_value"))
            if show.endswith("32"):
                rate32 = int(value, 0)
            else:
                rate = int(value, 0)
    best = rate32 if rate32 is not None else rate
    print(frame, avg, best if best is not None else "-")
