import Foundation
import PushdiagCore

/// `pushdiag join --replay DIR`: the cycles of a `--record DIR` run, from its recordings through
/// the same decoders and the same analysis as live. nl80211's events (DIR/nl80211.pcap) and
/// rtnetlink's (DIR/rtnetlink.pcap, its address dump first) at the times they were received, the
/// packets (DIR/packets.pcap, when the run could capture) at the kernel's times, pushdiag's own
/// events and each cycle's window from DIR/join.jsonl (`JoinLog`); `--find-ap-idle`'s rungs
/// from the same events (`APIdle`).
public enum JoinReplay {
    /// What a replay gives: the recording's header, its cycles, the ladder's verdict, and where
    /// the recording broke (nil when whole): the cycles that ended before are kept, the later
    /// ones left out (a note says which), never reported from half their events.
    public struct Replayed {
        public var header: JoinLog.Header
        public var cycles: [JoinCycleReport]
        public var apIdle: APIdleReport?
        public var broken: String?
    }

    public static func run(directory: String, thresholds: JoinThresholds) throws -> Replayed {
        let logPath = directory + "/join.jsonl"
        let data: [UInt8]
        switch SmallFile.read(logPath, most: SmallFile.mostRecordingLog, what: "a join log") {
        case .success(let b): data = b
        case .failure(let f): throw JoinLogError("\(logPath): \(f)")
        }
        var (header, own, windows) = try JoinLog.decode(String(decoding: data, as: UTF8.self), file: logPath).get()
        var events = own
        // A recording that ends inside a record or holds garbage stops there: its time, and why.
        var breaks: [(timeNs: Int64, why: String)] = []
        let nlRecording = try ReplayNetlink(path: directory + "/nl80211.pcap", protocol: Netlink.protocolGeneric)
        let nl = try NL80211Client(transport: nlRecording)
        _ = try nl.interfaces()
        // Read to its end; a buffer the decoders refuse breaks it at the replay's time, a file
        // that ends inside a record (or holds garbage) at its last whole record.
        func drain(_ recording: ReplayNetlink, _ read: () throws -> Void) {
            do { try read() } catch { breaks.append((recording.now, "\(error)")) }
            if let e = recording.readError { breaks.append((recording.lastRecordNs, e)) }
        }
        // Each part's events, to tell a part of another run (`strays`).
        var parts: [(file: String, events: Range<Int>)] = []
        var partStart = events.count
        func endPart(_ file: String) {
            parts.append((file, partStart..<events.count))
            partStart = events.count
        }
        drain(nlRecording) {
            while let (t, evs) = try nl.nextEvent(timeoutMs: 0) {
                for e in evs { if let k = JoinEvent.Kind.nl80211(e, ifindex: header.ifindex) { events.append(JoinEvent(t, k)) } }
            }
        }
        endPart("nl80211.pcap")
        let route = try ReplayNetlink(path: directory + "/rtnetlink.pcap", protocol: Netlink.protocolRoute)
        let ifindex = Int32(bitPattern: header.ifindex)
        events += JoinEvent.rtnetlink(try route.exchange(RTNetlink.addressDumpRequest(sequence: 1), dump: true), ifindex: ifindex, time: route.lastReceived)
        drain(route) {
            while let buf = try route.nextEvent(timeoutMs: 0) { events += JoinEvent.rtnetlink([buf], ifindex: ifindex, time: route.lastReceived) }
        }
        endPart("rtnetlink.pcap")
        let packets = directory + "/packets.pcap"
        if FileManager.default.fileExists(atPath: packets) {
            let file: PcapFile
            do throws(CaptureError) { file = try PcapFile(path: packets) } catch { throw JoinLogError(error.description) }
            var frame = 0
            var last = Int64.min
            while true {
                frame += 1
                let record: CaptureRecord?
                do throws(CaptureError) { record = try file.next(frame: frame) } catch {
                    breaks.append((last, error.description))
                    break
                }
                guard let r = record else { break }
                last = r.timestampNs
                if let station = header.station, let k = JoinEvent.Kind.stationFrame(ethernet: r.bytes, station: station) {
                    events.append(JoinEvent(r.timestampNs, k))
                }
                if let p = StationPacket.parse(ethernet: r.bytes) { events.append(JoinEvent(r.timestampNs, .packet(p))) }
            }
        }
        endPart("packets.pcap")
        header.notes += Self.strays(parts, events: events, windows: windows)
        var broken: String?
        if let first = breaks.min(by: { $0.timeNs < $1.timeNs }) {
            let whole = windows.filter { $0.to <= first.timeNs }
            let left = windows.dropFirst(whole.count).map { String($0.cycle) }
            broken = first.why
            // .min: broken at its first record, so nothing of it is known.
            let at = first.timeNs == .min ? "at its first record" : "at \(Timestamp.rfc3339(nanoseconds: first.timeNs))"
            header.notes.append(
                "the recording breaks \(at) (\(first.why))"
                    + (left.isEmpty ? "" : ": cycle \(left.joined(separator: ", ")) left out, not reported from part of its events"))
            windows = whole
            events.removeAll { $0.timeNs > first.timeNs }
        }
        let cycles = windows.map { w in
            JoinAnalysis.cycle(w.cycle, events: JoinAnalysis.window(w, of: events), setup: w.setup(header.setup), thresholds: thresholds)
        }
        let apIdle = header.apIdleRungs.map { _ in
            APIdleReport.conclude(
                rungs: APIdle.rungs(events), bssMaxIdleS: cycles.last { $0.bssMaxIdleS != nil }?.bssMaxIdleS, pathIdleTimeoutS: header.pathIdleTimeoutS)
        }
        return Replayed(header: header, cycles: cycles, apIdle: apIdle, broken: broken)
    }

    /// A part whose events all lie outside the cycles' span is a recording of another run (a
    /// directory put together from two): said, since its steps then read as never reached.
    static func strays(_ parts: [(file: String, events: Range<Int>)], events: [JoinEvent], windows: [JoinLog.Window]) -> [String] {
        guard let from = windows.map(\.from).min(), let to = windows.map(\.to).max() else { return [] }
        return parts.compactMap { p in
            guard !p.events.isEmpty, !events[p.events].contains(where: { (from...to).contains($0.timeNs) }) else { return nil }
            return
                "\(p.file): none of its \(NumberText.count(p.events.count, "event")) lies within the cycles (\(Timestamp.rfc3339(nanoseconds: from)) to \(Timestamp.rfc3339(nanoseconds: to))): a recording of another run? The steps it measures read as not reached"
        }
    }
}
