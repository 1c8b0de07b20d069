/// Per-object answers: a dump of every object of a kind answered from recorded requests about one
/// object each. `iw dev wlan2 info` asks NL80211_CMD_GET_INTERFACE about ifindex 4 without the
/// dump flag, `iw dev wlan2 station get AP` (and wpa_supplicant's signal poll) asks
/// NL80211_CMD_GET_STATION about one MAC, wpa_supplicant dumps the radio of its own interface:
/// each reply holds what a dump would give for that object, so when the question at hand is one
/// interface, the answers about it stand in for the dump's (and the output says so).
extension NetlinkRequestMeaning {
    /// The interface a question is about: the one named (`--interface`), the one chosen, or the
    /// only one the recording's per-object answers are about.
    public struct Interface: Hashable, Sendable {
        public var ifindex: UInt32?
        public var name: String?
        /// The wireless device's id, when that is how it was asked about.
        public var wdev: UInt64?
        public init(ifindex: UInt32? = nil, name: String? = nil, wdev: UInt64? = nil) {
            self.ifindex = ifindex
            self.name = name
            self.wdev = wdev
        }

        /// Whether both name the same interface (by index, wireless device or name, whichever
        /// both know).
        public func same(_ o: Self) -> Bool {
            if let a = ifindex, let b = o.ifindex { return a == b }
            if let a = wdev, let b = o.wdev { return a == b }
            if let a = name, let b = o.name { return a == b }
            return false
        }

        /// "wlan2 (ifindex 4)", "wlan2", "ifindex 4", "wdev 0x0000000200000003".
        public var description: String {
            let hex = wdev.map { String($0, radix: 16) }
            let id = ifindex.map { "ifindex \($0)" } ?? hex.map { "wdev 0x" + String(repeating: "0", count: max(0, 16 - $0.count)) + $0 }
            switch (name, id) {
            case (let n?, let i?): return "\(n) (\(i))"
            case (let n?, nil): return n
            case (nil, let i?): return i
            case (nil, nil): return "interface ?"
            }
        }
    }

    /// The selectors that narrow each nl80211 question to one object whose answer is part of the
    /// dump's: an interface (by index, name or wireless device), a peer, a radio. The radio beside
    /// an interface adds nothing (NetworkManager names both in every request it makes:
    /// `_nl80211_alloc_msg` in its nm-wifi-utils-nl80211.c).
    static let objectSelectors: [UInt8: Set<Kind>] = [
        NL80211.Command.getInterface.rawValue: [.ifindex, .ifname, .wdev, .wiphy],
        NL80211.Command.getStation.rawValue: [.ifindex, .ifname, .wdev, .mac, .wiphy],
        NL80211.Command.getWiphy.rawValue: [.ifindex, .ifname, .wdev, .wiphy],
    ]
    static let interfaceKinds: Set<Kind> = [.ifindex, .ifname, .wdev]

    /// Whether a recorded request (`self`) asks about one object of what the dump `asked` asks
    /// about every one of: the same nl80211 question, every selector of the dump's and more, each
    /// more one that narrows to an object. The interface it adds (if any) is `interface(...)`'s.
    public func narrows(_ asked: Self) -> Bool {
        guard asked.dump, netlinkProtocol == Netlink.protocolGeneric, asked.netlinkProtocol == netlinkProtocol, type == asked.type,
            type != GenericNetlink.controlID, let c = command, c == asked.command, let allowed = Self.objectSelectors[c]
        else { return false }
        guard asked.selectors.allSatisfy(selectors.contains) else { return false }
        let more = selectors.filter { !asked.selectors.contains($0) }
        return !more.isEmpty && more.allSatisfy { allowed.contains($0.kind) }
    }

    /// The interface this request is about, where it names one (nil: it names none): by index,
    /// by name, or by the wireless device's id (named through `wdevNames`); `names` adds the
    /// name of an index.
    public func interface(names: [UInt32: String] = [:], wdevNames: [UInt64: String] = [:]) -> Interface? {
        var found = Interface()
        for s in selectors where Self.interfaceKinds.contains(s.kind) {
            switch s.kind {
            case .ifindex:
                guard s.value.count >= 4 else { continue }
                let i = s.value.withUnsafeBytes { $0.u32le(at: 0)! }
                found.ifindex = i
                found.name = found.name ?? names[i]
            case .ifname: found.name = String(decoding: s.value, as: UTF8.self)
            case .wdev:
                guard s.value.count >= 8 else { continue }
                let id = s.value.withUnsafeBytes { $0.u64le(at: 0)! }
                found.wdev = id
                found.name = found.name ?? wdevNames[id]
            default: break
            }
        }
        // An interface named in bytes that do not decode is still one: no other matches it.
        return selectors.contains { Self.interfaceKinds.contains($0.kind) } ? found : nil
    }

    /// Whether this per-object request answers `asked` for the interface at hand: it narrows the
    /// dump, and any interface it names beyond the dump's is `at`.
    public func answersPerObject(_ asked: Self, at: Interface?, names: [UInt32: String] = [:], wdevNames: [UInt64: String] = [:]) -> Bool {
        guard narrows(asked) else { return false }
        if asked.selectors.contains(where: { Self.interfaceKinds.contains($0.kind) }) { return true }
        guard let mine = interface(names: names, wdevNames: wdevNames) else { return true }  // a radio or a peer alone
        return at.map(mine.same) ?? false
    }

    /// The note a report carries when a replay answered some of its dumps from per-object answers.
    public static func perObjectNote(_ questions: [String]) -> String {
        "the recording held per-object answers only (\(questions.joined(separator: ", "))): each dump was answered with the one object it was asked about"
    }
}
