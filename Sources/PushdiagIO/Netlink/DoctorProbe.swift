private import CPcap
import Foundation
import PushdiagCore

/// `pushdiag doctor`'s questions to this machine: the kernel, libpcap, the process's
/// capabilities, and for each wireless interface its radio, driver and firmware, and what its
/// counters give when asked (two samples, judged by the same analysis as `wifi`).
public enum DoctorProbe {
    /// The machine part, which needs no Wi-Fi.
    public static func machine(nl80211: Bool) -> DoctorMachine {
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return DoctorMachine(kernel: release, libpcap: String(cString: pcap_lib_version()), executable: exe, uid: getuid(), nl80211: nl80211)
    }

    /// The effective capabilities (CapEff in /proc/self/status): CAP_NET_ADMIN (12), CAP_NET_RAW (13).
    public static func capabilities(status: String? = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) -> (netAdmin: Bool, netRaw: Bool) {
        guard let line = status?.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let v = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return (false, false) }
        return (v & (1 << 12) != 0, v & (1 << 13) != 0)
    }

    /// ethtool -i of an interface: (version, firmware, bus); nil when the ioctl fails.
    public static func driverInfo(_ name: String) -> (version: String, firmware: String, bus: String)? {
        DriverName.ethtoolInfo(name).map { ($0.version, $0.firmware, $0.bus) }
    }

    /// Every wireless interface (or the one named), with two samples `intervalSeconds` apart for
    /// a connected client. `driver` overrides sysfs (a replay knows none).
    /// A stop (SIGINT, SIGTERM) ends the sampling: what was asked before stays, each interface
    /// not sampled says so.
    public static func interfaces(
        _ client: NL80211Client, only: String?, intervalSeconds: Double, driver: String?, thresholds: Thresholds, stop: () -> Bool = { false }
    ) throws(WiFiError) -> [DoctorInterface] {
        let all: [NL80211.Interface]
        client.focus(on: only.map { .init(name: $0) })
        do { all = try client.interfaces() } catch { throw .netlink(error) }
        // Without the radios the interfaces are still worth describing (each says so).
        let radios = (try? client.wiphys()) ?? []
        if let only, !all.contains(where: { $0.name == only }) { _ = try WiFiSampler.chooseInterface(client, name: only) }
        let live = !client.transport.isReplay
        var out: [DoctorInterface] = []
        // A wdev without a netdev (wpa_supplicant's P2P device) is nothing to measure on.
        for i in all where i.ifindex != 0 && (only == nil || i.name == only) {
            let name = i.name ?? "ifindex \(i.ifindex)"
            let radio = radios.first { $0.index == i.wiphy }
            let drv = driver ?? (live ? DriverName.of(interface: name) : nil)
            let info = live ? driverInfo(name) : nil
            var d = DoctorInterface(name: name, ifindex: i.ifindex, type: NL80211.interfaceTypeName(i.type ?? 0))
            d.phy = radio?.name
            d.mac = i.mac
            d.driver = drv
            d.driverFamily = drv.flatMap(DriverProfiles.profile)?.family
            d.driverVersion = info?.version
            d.firmware = info.flatMap { $0.firmware.isEmpty || $0.firmware == "N/A" ? nil : $0.firmware }
            d.bus = info?.bus
            d.interfaceTypes = (radio?.interfaceTypes ?? []).sorted().map(NL80211.interfaceTypeName)
            d.monitor = radio?.interfaceTypes.contains(NL80211.IfType.monitor) ?? false
            d.monitorBesideManaged = radio?.allows(NL80211.IfType.station, beside: NL80211.IfType.monitor) ?? false
            if radio == nil { d.notes.append("the radio (wiphy) of this interface was not listed: its interface types are unknown") }
            if info == nil && live { d.notes.append("ethtool's driver information (SIOCETHTOOL) is not available for this interface") }
            if i.type == NL80211.IfType.station, stop() {
                d.notes.append("interrupted: its counters were not sampled")
            } else if i.type == NL80211.IfType.station {
                do {
                    try counters(
                        client, interface: i, into: &d, intervalSeconds: live ? intervalSeconds : 0, driver: drv, thresholds: thresholds, stop: stop)
                } catch {
                    d.notes.append("its counters could not be read: \(error)")
                }
            } else {
                d.notes.append("not a client (managed) interface: its counters are not what an iPhone would see")
            }
            if let note = client.replayNote { d.notes.append(note) }
            out.append(d)
        }
        return out
    }

    /// Two samples of a connected client, judged as `wifi` judges them.
    static func counters(
        _ client: NL80211Client, interface i: NL80211.Interface, into d: inout DoctorInterface, intervalSeconds: Double, driver: String?,
        thresholds: Thresholds, stop: () -> Bool
    ) throws {
        let scan = try client.scan(ifindex: i.ifindex)
        let bssid = scan.first(where: \.associated)?.bssid
        guard bssid != nil || i.ssid != nil else {
            d.notes.append("not connected: connect to the SSID under test to see what its counters give")
            return
        }
        var samples = [try WiFiSampler.sample(client, ifindex: i.ifindex, bssid: bssid)]
        guard Clock.sleep(ms: intervalSeconds * 1000, stop: stop) else {
            d.notes.append("interrupted before its second sample: its counters were not judged")
            return
        }
        samples.append(try WiFiSampler.sample(client, ifindex: i.ifindex, bssid: bssid))
        let r = WiFiAnalysis.report(interface: i, samples: samples, scan: scan, thresholds: thresholds, driver: driver)
        d.counters = DoctorAnalysis.counters(r, samples: samples, profile: driver.flatMap(DriverProfiles.profile))
        d.checks = DoctorAnalysis.checks(r)
    }
}
