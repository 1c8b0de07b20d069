import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why `pushdiag wifi` (or the Wi-Fi part of a survey) could not run. Every case is one line a
/// field engineer can act on.
public enum WiFiError: Error, CustomStringConvertible, Equatable {
    case netlink(NetlinkError)
    case noSuchInterface(String)
    case notWireless(String)
    case noStationInterface(found: [String])

    public var description: String {
        switch self {
        case .netlink(let e): return e.description
        case .noSuchInterface(let n): return "no such interface: \(n)"
        case .notWireless(let n): return "\(n) is not a wireless interface (nl80211 does not know it)"
        case .noStationInterface(let found):
            return found.isEmpty
                ? "no wireless interfaces: nl80211 lists none"
                : "no Wi-Fi interface in station (managed) mode; found: \(found.joined(separator: ", ")); name one with --interface"
        }
    }
}

/// Samples nl80211 counters on an interface and builds the report.
public enum WiFiSampler {
    public static func chooseInterface(_ client: NL80211Client, name: String?) throws(WiFiError) -> NL80211.Interface {
        let all: [NL80211.Interface]
        client.focus(on: name.map { .init(name: $0) })
        do { all = try client.interfaces() } catch { throw .netlink(error) }
        if let name {
            if let i = all.first(where: { $0.name == name }) {
                client.focus(on: .init(ifindex: i.ifindex, name: i.name))
                return i
            }
            if client.transport.isReplay { throw .noSuchInterface("\(name) (not in the recording)") }
            return try { () throws(WiFiError) -> NL80211.Interface in
                if access("/sys/class/net/\(name)", F_OK) == 0 { throw .notWireless(name) }
                throw .noSuchInterface(name)
            }()
        }
        if let i = all.first(where: { $0.type == 2 }) {
            client.focus(on: .init(ifindex: i.ifindex, name: i.name))
            return i
        }
        throw .noStationInterface(found: all.map { "\($0.name ?? "?") (\(NL80211.interfaceTypeName($0.type ?? 0)))" })
    }

    /// One sample: the interface (frequency may change), survey and station counters.
    public static func sample(_ client: NL80211Client, ifindex: UInt32, bssid: MACAddress?) throws(WiFiError) -> WiFiSample {
        do {
            let iface = try client.interfaces().first { $0.ifindex == ifindex }
            let time = client.transport.lastReceived  // when the kernel answered (or the recording says it did)
            guard let iface else { throw WiFiError.noSuchInterface("ifindex \(ifindex) (gone during sampling)") }
            let survey = try client.survey(ifindex: ifindex)
            return WiFiSample(time: time, interface: iface, survey: survey, stations: try stations(client, interface: iface, bssid: bssid))
        } catch let e as WiFiError {
            throw e
        } catch let e as NetlinkError {
            throw .netlink(e)
        } catch {
            throw .netlink(.io("\(error)"))
        }
    }

    /// The interface's station entries; a station-mode interface whose driver returns an empty
    /// dump is asked for its AP (`bssid`) by name, which some drivers answer.
    public static func stations(_ client: NL80211Client, interface iface: NL80211.Interface, bssid: MACAddress?) throws(NetlinkError) -> [NL80211.Station] {
        let all = try client.stations(ifindex: iface.ifindex)
        if all.isEmpty, iface.type == 2, let bssid, let s = try client.station(ifindex: iface.ifindex, mac: bssid) { return [s] }
        return all
    }

    /// `driver`: the driver's sysfs name; nil reads it from sysfs (live only: a replay knows it
    /// only when told). `count` nil: as many samples as a replay can answer for the interface
    /// (whoever asked the recorded questions), two live.
    public static func run(
        _ client: NL80211Client, interfaceName: String?, count asked: Int?, intervalSeconds: Double, thresholds: Thresholds, driver: String? = nil,
        stop: () -> Bool = { false }, progress: ((Int, Int) -> Void)? = nil
    ) throws(WiFiError) -> WiFiReport {
        let iface = try chooseInterface(client, name: interfaceName)
        let driver = driver ?? (client.transport.isReplay ? nil : iface.name.flatMap { DriverName.of(interface: $0) })
        var scan: [NL80211.ScanBSS]
        do { scan = try client.scan(ifindex: iface.ifindex) } catch { throw .netlink(error) }
        let bssid = scan.first(where: \.associated)?.bssid
        var count = asked ?? 2
        if asked == nil, let replay = client.transport as? ReplayNetlink {
            // Every sample asks for the interfaces, the survey and the stations: as many as the
            // recording answers all three (one interface dump went to choosing the interface).
            let n = replay.recordedCounts(of: [
                client.request(.getInterface, dump: true), client.request(.getSurvey, dump: true, ifindex: iface.ifindex),
                client.request(.getStation, dump: true, ifindex: iface.ifindex),
            ])
            count = max(1, min(n[0] - 1, n[1], n[2]))
        }
        var samples: [WiFiSample] = []
        var interrupted = false
        for k in 0..<max(count, 1) {
            if k > 0, !client.transport.isReplay {
                let wait = max(0, intervalSeconds - Double(WallClock.nanoseconds() - samples.last!.time) / 1e9)
                // A stop (SIGINT, SIGTERM) ends the sampling: the report is made of what was taken.
                guard Clock.sleep(ms: wait * 1000, stop: stop) else {
                    interrupted = true
                    break
                }
            }
            progress?(k + 1, count)
            samples.append(try sample(client, ifindex: iface.ifindex, bssid: bssid))
        }
        var r = WiFiAnalysis.report(interface: iface, samples: samples, scan: scan, thresholds: thresholds, driver: driver)
        if let note = client.replayNote { r.notes.append(note) }
        if interrupted {
            r.notes.append("interrupted after \(samples.count) of \(NumberText.count(count, "sample"))")
            r.status = max(r.status, .unknown)
        }
        return r
    }
}
