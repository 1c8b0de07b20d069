import ArgumentParser
import PushdiagCore
import PushdiagIO

/// --record / --replay, shared by the commands that talk nl80211.
struct NetlinkOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Write every netlink message sent and received to FILE (pcap, link type NETLINK, as nlmon writes; tshark decodes it).", valueName: "FILE"),
        completion: .file())
    var record: String?

    @Option(
        help: ArgumentHelp("Run from a netlink recording (pushdiag --record, or tcpdump -i nlmon0) instead of the kernel.", valueName: "FILE"),
        completion: .file())
    var replay: String?

    func validate() throws {
        if record != nil && replay != nil { throw ValidationError("--record and --replay cannot be combined") }
    }

    /// The transport for nl80211: the kernel (recorded when asked) or the replay file.
    /// Runs `body` on nl80211 from the kernel (recorded when asked) or the replay.
    func with<T>(_ body: (NetlinkTransport) throws -> T) throws -> T {
        try NetlinkSource.with(protocol: Netlink.protocolGeneric, record: record, replay: replay, body)
    }
}

/// The driver whose counters a replay (or an override) is judged by: see `DriverProfiles`.
struct DriverOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The Wi-Fi driver to judge the counters by (its name in /sys/class/net/IF/device/driver: iwlwifi, rtw_8822ce, brcmfmac, …); read from sysfs when live, unknown in a replay unless given.",
            valueName: "NAME"))
    var driver: String?

    func validate() throws {
        if let d = driver, d.isEmpty || d.contains("/") || d.contains(where: \.isWhitespace) {
            throw ValidationError("--driver '\(d)': a driver name as sysfs shows it (iwlwifi, rtw_8822ce), without slashes or spaces")
        }
    }
}

/// A duration option's seconds, bounded (24 days unless `max` says otherwise); a bad value is a
/// usage error naming the option (exit 3).
func parseDuration(_ text: String, option: String, atLeast minimum: Double = 0, max: Double = DurationText.longest) throws -> Double {
    switch DurationText.parse(text, option: option, atLeast: minimum, max: max) {
    case .success(let s): return s
    case .failure(let e): throw ValidationError(e.description)
    }
}
