import Foundation
import PushdiagCore

/// `pushdiag join --replay DIR`: the cycles of a `--record DIR` run, from its recordings through
/// the same decoders and the same analysis as live. nl80211's events (DIR/nl80211.pcap) and
/// rtnetlink's (DIR/rtnetlink.pcap, its address dump first) at the times they were received, the
/// packets (DIR/packets.pcap, when the run could capture) at the kernel's times, pushdiag's own
/// events and each cycle's window from DIR/join.jsonl (`JoinLog`); `--find-ap-idle`'s rungs
/// from the same events (`APIdle`).
public enum JoinReplay {
    public static func run(directory: String, thresholds: JoinThresholds) throws -> (header: JoinLog.Header, cycles: [JoinCycleReport], apIdle: APIdleReport?) {
        let logPath = directory + "/join.jsonl"
        guard let data = FileManager.default.contents(atPath: logPath) else {
            throw JoinLogError("cannot read \(logPath): \(Errno.current)")
        }
        let (header, own, windows) = try JoinLog.decode(String(decoding: data, as: UTF8.self), file: logPath).get()
        var events = own
        let nl = try NL80211Client(transport: try ReplayNetlink(path: directory + "/nl80211.pcap", protocol: Netlink.protocolGeneric))
        _ = try nl.interfaces()
        while let (t, evs) = try nl.nextEvent(timeoutMs: 0) {
            for e in evs { if let k = JoinEvent.Kind.nl80211(e, ifindex: header.ifindex) { events.append(JoinEvent(t, k)) } }
        }
        let route = try ReplayNetlink(path: directory + "/rtnetlink.pcap", protocol: Netlink.protocolRoute)
        let ifindex = Int32(bitPattern: header.ifindex)
        events += JoinEvent.rtnetlink(try route.exchange(RTNetlink.addressDumpRequest(sequence: 1), dump: true), ifindex: ifindex, time: route.lastReceived)
        while let buf = try route.nextEvent(timeoutMs: 0) { events += JoinEvent.rtnetlink([buf], ifindex: ifindex, time: route.lastReceived) }
        let packets = directory + "/packets.pcap"
        if FileManager.default.fileExists(atPath: packets) {
            let file: PcapFile
            do throws(CaptureError) { file = try PcapFile(path: packets) } catch { throw JoinLogError(error.description) }
            var frame = 0
            while true {
                frame += 1
                let record: CaptureRecord?
                do throws(CaptureError) { record = try file.next(frame: frame) } catch { throw JoinLogError(error.description) }
                guard let r = record else { break }
                if let station = header.station, let k = JoinEvent.Kind.stationFrame(ethernet: r.bytes, station: station) {
                    events.append(JoinEvent(r.timestampNs, k))
                }
                if let p = StationPacket.parse(ethernet: r.bytes) { events.append(JoinEvent(r.timestampNs, .packet(p))) }
            }
        }
        let cycles = windows.map { w in JoinAnalysis.cycle(w.cycle, events: JoinAnalysis.window(w, of: events), setup: header.setup, thresholds: thresholds) }
        let apIdle = header.apIdleRungs.map { _ in
            APIdleReport.conclude(
                rungs: APIdle.rungs(events), bssMaxIdleS: cycles.last { $0.bssMaxIdleS != nil }?.bssMaxIdleS, pathIdleTimeoutS: header.pathIdleTimeoutS)
        }
        return (header, cycles, apIdle)
    }
}
