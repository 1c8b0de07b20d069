/// `pushdiag doctor`: what this machine can measure, before the engineer leaves the van.
public struct DoctorReport: Codable, Sendable, Equatable {
    /// OK when at least one wireless interface could be inspected; UNKNOWN (exit 3) when there is
    /// no Wi-Fi at all (`error` says why).
    public var status: Severity
    public var machine: DoctorMachine
    public var privileges: [DoctorPrivilege]
    public var interfaces: [DoctorInterface]
    @Nullable public var error: String?
}

public struct DoctorMachine: Codable, Sendable, Equatable {
    /// uname -r.
    public var kernel: String
    /// pcap_lib_version().
    public var libpcap: String
    /// This executable (for the setcap line).
    public var executable: String
    public var uid: UInt32
    /// Whether the kernel has nl80211 (cfg80211 loaded).
    public var nl80211: Bool

    public init(kernel: String, libpcap: String, executable: String, uid: UInt32, nl80211: Bool) {
        self.kernel = kernel
        self.libpcap = libpcap
        self.executable = executable
        self.uid = uid
        self.nl80211 = nl80211
    }
}

/// A capability pushdiag needs for some of its work, whether this process has it, and how to
/// give it.
public struct DoctorPrivilege: Codable, Sendable, Equatable {
    /// CAP_NET_RAW, CAP_NET_ADMIN.
    public var capability: String
    public var has: Bool
    /// What needs it.
    public var neededFor: String
    /// The line that gives it (nil when it is there, or not needed by pushdiag).
    @Nullable public var fix: String?
}

public struct DoctorInterface: Codable, Sendable, Equatable {
    public var name: String
    public var ifindex: UInt32
    /// managed, AP, monitor, …
    public var type: String
    @Nullable public var phy: String?
    @Nullable public var mac: MACAddress?
    /// The sysfs driver name, and pushdiag's family for it.
    @Nullable public var driver: String?
    @Nullable public var driverFamily: String?
    /// ethtool -i: the driver's version, firmware version and bus address.
    @Nullable public var driverVersion: String?
    @Nullable public var firmware: String?
    @Nullable public var bus: String?
    /// The radio's interface types.
    public var interfaceTypes: [String]
    public var monitor: Bool
    /// A monitor interface can be added while this radio has a managed one.
    public var monitorBesideManaged: Bool
    /// What the driver gives, asked (empty for an interface that is not a connected client).
    public var counters: [DoctorCounter]
    /// What pushdiag will use for each check, from the same analysis as `wifi`.
    public var checks: [DoctorCheck]
    public var notes: [String]

    public init(name: String, ifindex: UInt32, type: String) {
        self.name = name
        self.ifindex = ifindex
        self.type = type
        interfaceTypes = []
        monitor = false
        monitorBesideManaged = false
        counters = []
        checks = []
        notes = []
    }
}

/// One counter: whether the driver answered with it, and what pushdiag's driver table says.
public struct DoctorCounter: Codable, Sendable, Equatable {
    /// channel_busy_time, radio_busy_time, tx_retries, tx_failed, signal, noise, bss_load.
    public var counter: String
    public var reported: Bool
    /// kept, absent, unreliable, undercounted, per_period (nil: the driver is not in the table).
    @Nullable public var table: String?
    @Nullable public var why: String?
}

/// A check and the source pushdiag will take its value from (nil with the reason when none).
public struct DoctorCheck: Codable, Sendable, Equatable {
    public var check: CheckName
    /// The source's and the trust's raw values (`ValueSources.swift`), as the JSON has them.
    @Nullable public var source: String?
    @Nullable public var trust: String?
    @Nullable public var unknownBecause: String?
    /// The source and the trust as the text says them (not in the JSON; nil when decoded).
    public var said: String? = nil

    enum CodingKeys: String, CodingKey { case check, source, trust, unknownBecause }

    init<S: RawRepresentable<String>, T: RawRepresentable<String>>(_ check: CheckName, _ source: S?, _ trust: T?, said: String?, unknownBecause: String?) {
        self.check = check
        self.source = source?.rawValue
        self.trust = trust?.rawValue
        self.said = said
        self.unknownBecause = unknownBecause
    }
}

public enum DoctorAnalysis {
    /// The report of what the doctor found: UNKNOWN when no interface could be inspected or the
    /// run was interrupted (what was asked before the stop is still in it), OK otherwise.
    public static func report(
        machine: DoctorMachine, interfaces: [DoctorInterface], netAdmin: Bool, netRaw: Bool, interrupted: Bool, error: String?
    ) -> DoctorReport {
        DoctorReport(
            status: interfaces.isEmpty || interrupted ? .unknown : .ok, machine: machine,
            privileges: privileges(netAdmin: netAdmin, netRaw: netRaw, executable: machine.executable), interfaces: interfaces, error: error)
    }

    /// What the privileges are for, and the line that gives them to `executable`.
    public static func privileges(netAdmin: Bool, netRaw: Bool, executable: String) -> [DoctorPrivilege] {
        [
            DoctorPrivilege(
                capability: "CAP_NET_RAW", has: netRaw,
                neededFor: "capturing on a monitor interface (capture --interface, survey --monitor)",
                fix: netRaw ? nil : "sudo setcap cap_net_raw+ep \(executable)   (or run those commands with sudo)"),
            DoctorPrivilege(
                capability: "CAP_NET_ADMIN", has: netAdmin,
                neededFor:
                    "nothing pushdiag does (it reads the scan cache, never triggers a scan); iw dev IF scan to refresh the cache, and putting an interface in monitor mode, need it",
                fix: nil),
        ]
    }

    /// The counters an interface's samples show, against the driver table.
    public static func counters(_ report: WiFiReport, samples: [WiFiSample], profile: DriverProfile?) -> [DoctorCounter] {
        guard let last = samples.last else { return [] }
        let inUse = WiFiAnalysis.inUse(last.survey, frequency: last.interface.frequency)
        let peer = report.bssid.flatMap { b in last.stations.first { $0.mac == b } } ?? (last.stations.count == 1 ? last.stations.first : nil)
        let current = report.bss.first(where: \.current)
        func row(_ name: String, _ reported: Bool, _ c: DriverProfile.Counter?, _ why: String?) -> DoctorCounter {
            DoctorCounter(counter: name, reported: reported, table: c?.rawValue, why: c == .kept ? nil : why)
        }
        return [
            row("channel_busy_time", inUse?.busy != nil && inUse?.active != nil, profile?.survey, profile?.surveyWhy),
            row("radio_busy_time", WiFiAnalysis.radioWide(last.survey) != nil, nil, nil),
            row("tx_retries", peer?.txRetries != nil, profile?.txRetries, profile?.retriesWhy),
            row("tx_failed", peer?.txFailed != nil, profile?.txFailed, profile?.failedWhy),
            row("signal", peer?.signal != nil, nil, nil),
            row("noise", inUse?.noise != nil, nil, nil),
            row("bss_load", current?.bssLoad != nil, nil, nil),
        ]
    }

    /// What `wifi` and `survey` take each check from, as the analysis decided on the samples.
    public static func checks(_ r: WiFiReport) -> [DoctorCheck] {
        func why(_ text: String?, _ prefix: String) -> String {
            guard let text else { return "no source" }
            return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        }
        return [
            DoctorCheck(
                .channelUtilization, r.channelUtilizationSource, r.channelUtilizationTrust,
                said: r.channelUtilizationSource.map { $0.said + (r.channelUtilizationTrust?.qualifier ?? "") },
                unknownBecause: r.channelUtilizationPercent == nil ? why(r.utilizationUnknown, "channel utilisation: ") : nil),
            DoctorCheck(
                .retransmissions, r.retransmissionSource, r.retransmissionTrust,
                said: r.retransmissionSource.map { $0.said + (r.retransmissionTrust?.qualifier ?? "") },
                unknownBecause: r.retransmissionPercent == nil ? why(r.retransmissionsUnknown, "retransmissions: ") : nil),
            DoctorCheck(
                .signal, r.signalDbm.map { _ in SignalSource.station }, r.signalDbm.map { _ in SignalTrust.measured },
                said: r.signalDbm.map { _ in SignalSource.station.said },
                unknownBecause: r.signalDbm == nil ? r.signalUnknown ?? "the driver reports no signal for its AP" : nil),
        ]
    }
}
