/// The 802.11 MAC header: frame control, addresses, and where the body starts.
public struct Dot11Header: Sendable {
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
    }

    public var type: FrameType
    public var subtype: UInt8
    /// The second frame-control octet: 0x01 To DS, 0x02 From DS, 0x08 Retry, 0x40 Protected, 0x80 +HTC/Order.
    public var flags: UInt8
    public var protocolVersion: UInt8
    public var addr1: MACAddress?
    public var addr2: MACAddress?
    public var addr3: MACAddress?
    public var addr4: MACAddress?
    /// Where the frame body starts; equals the frame length when the header is cut short.
    public var headerLength: Int
    /// The header is shorter than its type requires.
    public var truncated: Bool

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
    /// a header cut short keeps what it had and sets `truncated`.
    @inline(__always)
    public static func parse(_ f: UnsafeRawBufferPointer) -> Dot11Header? {
        guard f.count >= 2 else { return nil }
        let fc0 = f[0]
        let fc1 = f[1]
        var h = Dot11Header(
            type: FrameType(rawValue: (fc0 >> 2) & 0x03)!, subtype: fc0 >> 4, flags: fc1,
            protocolVersion: fc0 & 0x03, addr1: f.mac(at: 4), addr2: nil, addr3: nil, addr4: nil,
            headerLength: 0, truncated: false)
        var need: Int
        switch h.type {
        case .management:
            // As Wireshark: the addresses after addr1 count only when the fixed header through
            // Sequence Control is there (a frame cut inside it names no transmitter or BSSID).
            if f.count >= 24 {
                h.addr2 = f.mac(at: 10)
                h.addr3 = f.mac(at: 16)
            }
            need = 24
            if fc1 & 0x80 != 0 { need += 4 }  // HT Control
        case .data:
            if f.count >= 24 {
                h.addr2 = f.mac(at: 10)
                h.addr3 = f.mac(at: 16)
            }
            need = 24
            if fc1 & 0x03 == 0x03 {
                h.addr4 = f.mac(at: 24)
                need = 30
            }
            if h.subtype & 0x08 != 0 {
                need += 2  // QoS Control
                if fc1 & 0x80 != 0 { need += 4 }
            }
        case .control:
            switch h.subtype {
            case 12, 13, 7: need = 10  // CTS, ACK, control wrapper (header only)
            default:
                h.addr2 = f.mac(at: 10)
                need = 16
            }
        case .extensionFrame:
            need = 10
        }
        h.truncated = f.count < need
        h.headerLength = min(need, f.count)
        return h
    }
}
