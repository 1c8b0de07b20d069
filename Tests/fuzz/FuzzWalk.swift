// libFuzzer target: a walk recording's push.jsonl as `walk --replay` reads it (WalkLogLine.decode:
// each line's JSON, and the numbers a walk writes, `Recorded`), and what decoded through the
// walk's assembly (WalkReport.assemble: the heartbeats, reconnects, states and places, the
// stalls, the roams' grades, the places' summaries, the iPhone lens) with link samples and moves
// made from the same lines: a sample at each heartbeat (its BSS, band, signal and counters from
// the round trip's bits) and a move at each reconnect. A crash hunt found seven traps in this
// path on 2026-11-29 (a round trip of 1e13 ms, times at Int64's ends), which the parser now refuses.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

let aps = [MACAddress(rawValue: 0x0200_0000_0000), MACAddress(rawValue: 0x0200_0000_0100)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    guard let lines = try? WalkLogLine.decode(text, file: "fuzz") else { return 0 }
    var t = WalkTimeline(interface: "wlan0", server: "10.0.0.1:3000", proto: "simplepush", startNs: 0)
    for e in lines.compactMap(\.event) { t.apply(e) }
    for h in t.heartbeats {
        let bits = Int(truncatingIfNeeded: (h.rttMs ?? 0).bitPattern >> 32)
        t.samples.append(
            WalkSample(
                timeNs: h.sentNs, bssid: aps[bits & 1], ssid: bits & 8 == 0 ? "ward" : nil, freqMhz: bits & 2 == 0 ? 2412 : 5180,
                signalDbm: bits & 4 == 0 ? -30 - (bits >> 4 & 63) : nil, retries: UInt64(bits >> 10 & 15), packets: UInt64(bits >> 14 & 31),
                signalAverageDbm: bits & 16 == 0 ? -50 : nil))
    }
    for r in t.reconnects {
        t.changes.append(
            WalkLinkChange(
                timeNs: r.timeNs, fromBssid: aps[r.attempts & 1], toBssid: aps[(r.attempts + 1) & 1], fromSsid: "ward", toSsid: "ward",
                fromFreqMhz: 2412, toFreqMhz: r.succeeded ? 5180 : 2412, fastTransition: r.attempts % 3 == 0, linkGapMs: r.ms))
    }
    _ = WalkReport.assemble(t)
    return 0
}
