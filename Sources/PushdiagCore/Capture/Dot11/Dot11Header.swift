/// The 802.11 MAC header: frame control, addresses, and where the body starts.
public struct Dot11Header {
    public enum FrameType: UInt8, Sendable {
        case management = 0
        case control = 1
        case data = 2
        case extensionFrame = 3
    }

    /// Management subtypes (IEEE 802.11-2020 table 9-1).
    public enum ManagementSubtype: UInt8, CaseIterable, Sendable {
        case associationRequest = 0
        case associationResponse = 1
        case reassociationRequest = 2
        case reassociationResponse = 3
        case probeRequest = 4
        case probeResponse = 5
        case timingAdvertisement = 6
        case beacon = 8
        case atim = 9
        case disassociation = 10
        case authentication = 11
        case deauthentication = 12
        case action = 13
        case actionNoAck = 14

        /// The kinds 802.11w protects (robust management frames) that the analyses count when
        /// protected, by their addresses alone: the body (a reason, an action's category) is
        /// encrypted. (Action No Ack frames, protected or not, are not counted.)
        public var isRobust: Bool { self == .deauthentication || self == .disassociation || self == .action }
    }

    /// The frame the header was read from: a borrowed view, valid while the frame's bytes are.
    /// The addresses are read from it when asked for, so the parsed header fits in registers
    /// (a header holding four optional addresses was returned through memory, and reading it
    /// back stalled on the narrower stores that wrote it).
    public let frame: UnsafeRawBufferPointer
    public let type: FrameType
    public let subtype: UInt8
    /// The second frame-control octet: 0x01 To DS, 0x02 From DS, 0x08 Retry, 0x40 Protected, 0x80 +HTC/Order.
    public let flags: UInt8
    public let protocolVersion: UInt8
    /// The header is shorter than its type requires.
    public let truncated: Bool
    /// Where the frame body starts; equals the frame length when the header is cut short.
    public let headerLength: Int

    /// Address 1 (receiver), where the frame is long enough to hold it.
    @inline(__always)
    public var addr1: MACAddress? { frame.mac(at: 4) }

    /// Address 2 (transmitter): in management and data frames only when the fixed header through
    /// Sequence Control is there (as Wireshark: a frame cut inside it names no transmitter or
    /// BSSID); in control frames other than CTS, ACK and the control wrapper.
    @inline(__always)
    public var addr2: MACAddress? {
        switch type {
        case .management, .data: return frame.count >= 24 ? frame.mac(at: 10) : nil
        case .control:
            switch subtype {
            case 12, 13, 7: return nil
            default: return frame.mac(at: 10)
            }
        case .extensionFrame: return nil
        }
    }

    /// Address 3 of management and data frames, with the fixed header there.
    @inline(__always)
    public var addr3: MACAddress? {
        switch type {
        case .management, .data: return frame.count >= 24 ? frame.mac(at: 16) : nil
        default: return nil
        }
    }

    /// Address 4 of data frames sent from one distribution system to another.
    @inline(__always)
    public var addr4: MACAddress? {
        type == .data && flags & 0x03 == 0x03 ? frame.mac(at: 24) : nil
    }

    /// The sequence control of management and data frames: the sequence number (high 12 bits)
    /// and the fragment number (low 4), which a retransmission repeats.
    @inline(__always)
    public var sequenceControl: UInt16? {
        switch type {
        case .management, .data: return frame.u16le(at: 22)
        default: return nil
        }
    }

    public var retry: Bool { flags & 0x08 != 0 }
    public var protected: Bool { flags & 0x40 != 0 }
    public var toDS: Bool { flags & 0x01 != 0 }
    public var fromDS: Bool { flags & 0x02 != 0 }

    public var managementSubtype: ManagementSubtype? {
        type == .management ? ManagementSubtype(rawValue: subtype) : nil
    }

    /// The transmitter address (Wireshark's `wlan.ta`), where the frame carries one.
    @inline(__always)
    public var transmitter: MACAddress? {
        switch type {
        case .management, .data: return addr2
        case .control:
            switch subtype {
            case 2, 3, 4, 5, 8, 9, 10, 11, 14, 15: return addr2
            default: return nil
            }
        case .extensionFrame: return nil
        }
    }

    /// The BSSID (Wireshark's `wlan.bssid`), where the frame names one.
    @inline(__always)
    public var bssid: MACAddress? {
        switch type {
        case .management: return addr3
        case .data:
            switch flags & 0x03 {
            case 0: return addr3
            case 1: return addr1
            case 2: return addr2
            default: return nil
            }
        case .control:
            switch subtype {
            case 10: return addr1  // PS-Poll
            case 14, 15: return addr2  // CF-End
            default: return nil
            }
        case .extensionFrame: return nil
        }
    }

    /// Parses the header. Returns nil only when not even the two frame-control octets are there;
    /// a header cut short keeps what it had and sets `truncated`. The header borrows `f`.
    @inline(__always)
    public static func parse(_ f: UnsafeRawBufferPointer) -> Dot11Header? {
        guard f.count >= 2 else { return nil }
        let fc0 = f[0]
        let fc1 = f[1]
        let type = FrameType(rawValue: (fc0 >> 2) & 0x03)!
        let subtype = fc0 >> 4
        var need: Int
        switch type {
        case .management:
            need = 24
            if fc1 & 0x80 != 0 { need += 4 }  // HT Control
        case .data:
            need = fc1 & 0x03 == 0x03 ? 30 : 24
            if subtype & 0x08 != 0 {
                need += 2  // QoS Control
                if fc1 & 0x80 != 0 { need += 4 }
            }
        case .control:
            switch subtype {
            case 12, 13, 7: need = 10  // CTS, ACK, control wrapper (header only)
            default: need = 16
            }
        case .extensionFrame:
            need = 10
        }
        return Dot11Header(
            frame: f, type: type, subtype: subtype, flags: fc1, protocolVersion: fc0 & 0x03,
            truncated: f.count < need, headerLength: min(need, f.count))
    }
}
