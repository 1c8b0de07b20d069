/// A change of the walk's interface seen over rtnetlink: its carrier lost or back (for Wi-Fi:
/// disassociated or associated), an address added or removed (a DHCP lease on another subnet),
/// or the interface itself gone.
public struct WalkInterfaceChange: Codable, Sendable, Equatable {
    /// What changed; the raw value is the reports' spelling.
    public enum Kind: String, Codable, Sendable, RawValueDescribed {
        case carrierDown = "carrier_down"
        case carrierUp = "carrier_up"
        case addressAdded = "address_added"
        case addressRemoved = "address_removed"
        case interfaceRemoved = "interface_removed"
    }

    public var timeNs: Int64
    public var change: Kind
    /// The address, as `ip addr` writes it ("10.40.0.2/24"), for address changes.
    public var address: String?

    public var isAddress: Bool { change == .addressAdded || change == .addressRemoved }
}

/// Follows one interface through rtnetlink messages: the state the dumps found at the start
/// (not changes), then every message that changes it. A message repeating the state it already
/// had (an address's flags updated, a link message for another reason) is no change.
public struct InterfaceTracker: Sendable {
    public let ifindex: Int32
    public private(set) var carrier: Bool?
    public private(set) var addresses: Set<String> = []
    public private(set) var changes: [WalkInterfaceChange] = []
    public private(set) var removed = false

    public init(ifindex: Int32) { self.ifindex = ifindex }

    /// The changes so far, forgotten here (a resident follower hands each on and keeps none).
    public mutating func takeChanges() -> [WalkInterfaceChange] {
        defer { changes.removeAll() }
        return changes
    }

    /// One netlink message: `baseline` for the replies to the start-up dumps.
    public mutating func apply(_ m: Netlink.Message, timeNs: Int64, baseline: Bool = false) {
        if let l = RTNetlink.link(m), l.index == ifindex {
            if l.removed {
                if !removed && !baseline { changes.append(WalkInterfaceChange(timeNs: timeNs, change: .interfaceRemoved)) }
                removed = true
                return
            }
            // IFLA_CARRIER; without it the operational state (RFC 2863: 6 is up, 5 dormant).
            let now: Bool? = l.carrier.map { $0 != 0 } ?? l.operstate.map { $0 == 6 }
            guard let now else { return }
            if !baseline, let before = carrier, before != now {
                changes.append(WalkInterfaceChange(timeNs: timeNs, change: now ? .carrierUp : .carrierDown))
            }
            carrier = now
        } else if let a = RTNetlink.address(m), a.ifindex == ifindex, a.address != nil {
            let text = a.text
            if a.removed {
                guard addresses.remove(text) != nil else { return }
            } else {
                guard addresses.insert(text).inserted else { return }
            }
            if !baseline { changes.append(WalkInterfaceChange(timeNs: timeNs, change: a.removed ? .addressRemoved : .addressAdded, address: text)) }
        }
    }
}
