/// An EAPOL packet (IEEE 802.1X-2020 11.3) as it leaves or reaches a station: its EAP packet
/// (RFC 3748: code, identifier, type) or, for an EAPOL-Key frame (IEEE 802.11-2020 12.7.2), which
/// message of the 4-way or the group key handshake it is, from the Key Information bits.
/// Bytes in, a value out: nil when the header does not fit, never a read past the end.
public enum EAPOLPacket: Equatable, Sendable {
    case eap(EAPPacket)
    case key(EAPOLKey)
    /// EAPOL-Start (type 1): the supplicant asks for 802.1X.
    case start
    /// EAPOL-Logoff (type 2).
    case logoff
    /// Any other packet type (encapsulated ASF alert, MKA, …).
    case other(type: UInt8)

    /// The EAPOL header (version, type, body length, big-endian) and its body. A body shorter
    /// than its length field is read as far as it goes (captures cut packets short).
    public static func parse(_ b: UnsafeRawBufferPointer) -> EAPOLPacket? {
        guard let type = b.u8(at: 1), let length = b.u16be(at: 2) else { return nil }
        let body = b.suffix(from: 4)
        let bounded = body.slice(0, min(Int(length), body.count)) ?? body
        switch type {
        case 0: return EAPPacket.parse(bounded).map(EAPOLPacket.eap)
        case 1: return .start
        case 2: return .logoff
        case 3: return EAPOLKey.parse(bounded).map(EAPOLPacket.key)
        default: return .other(type: type)
        }
    }
}

/// An EAP packet's header (RFC 3748 4): code, identifier and, for a request or a response, the
/// method type.
public struct EAPPacket: Equatable, Sendable, CustomStringConvertible {
    public init(code: Code?, rawCode: UInt8, identifier: UInt8, type: UInt8?) {
        self.code = code
        self.rawCode = rawCode
        self.identifier = identifier
        self.type = type
    }

    public enum Code: UInt8, Sendable { case request = 1, response = 2, success = 3, failure = 4 }
    /// nil for a code RFC 3748 does not define (the raw value is in `rawCode`).
    public var code: Code?
    public var rawCode: UInt8
    public var identifier: UInt8
    /// 1 Identity, 3 Nak, 4 MD5, 13 TLS, 21 TTLS, 25 PEAP, 43 FAST, 254 expanded; nil for success
    /// and failure.
    public var type: UInt8?

    public static func parse(_ b: UnsafeRawBufferPointer) -> EAPPacket? {
        guard let code = b.u8(at: 0), let id = b.u8(at: 1), b.u16be(at: 2) != nil else { return nil }
        let c = Code(rawValue: code)
        return EAPPacket(code: c, rawCode: code, identifier: id, type: c == .request || c == .response ? b.u8(at: 4) : nil)
    }

    /// The method's name as RFC 3748 and IANA's registry name it.
    public static func typeName(_ t: UInt8) -> String {
        switch t {
        case 1: return "Identity"
        case 2: return "Notification"
        case 3: return "Nak"
        case 4: return "MD5-Challenge"
        case 13: return "TLS"
        case 18: return "SIM"
        case 21: return "TTLS"
        case 23: return "AKA"
        case 25: return "PEAP"
        case 26: return "MSCHAPv2"
        case 43: return "FAST"
        case 50: return "AKA'"
        case 52: return "PWD"
        case 55: return "TEAP"
        case 254: return "expanded"
        default: return "type \(t)"
        }
    }

    public var description: String {
        switch code {
        case .request?: return "Request/\(type.map(Self.typeName) ?? "?")"
        case .response?: return "Response/\(type.map(Self.typeName) ?? "?")"
        case .success?: return "Success"
        case .failure?: return "Failure"
        case nil: return "code \(rawCode)"
        }
    }
}

/// An EAPOL-Key frame's Key Information (IEEE 802.11-2020 Figure 12-33) and what it makes of the
/// frame: message 1 to 4 of the 4-way handshake, or message 1 or 2 of the group key handshake.
public struct EAPOLKey: Equatable, Sendable, CustomStringConvertible {
    public init(descriptorType: UInt8, keyInfo: UInt16, replayCounter: UInt64?, keyDataLength: UInt16?) {
        self.descriptorType = descriptorType
        self.keyInfo = keyInfo
        self.replayCounter = replayCounter
        self.keyDataLength = keyDataLength
    }

    public enum Message: Equatable, Sendable {
        /// The 4-way handshake's message 1…4.
        case pairwise(Int)
        /// The group key handshake's message 1 or 2.
        case group(Int)
    }
    /// 2 RSN (802.11), 254 WPA.
    public var descriptorType: UInt8
    public var keyInfo: UInt16
    public var replayCounter: UInt64?
    /// Key Data Length where the frame reaches it (a 16-byte MIC assumed: every AKM but Suite B
    /// 192-bit and FILS), read only to tell WPA's message 4 from message 2.
    public var keyDataLength: UInt16?

    public var pairwise: Bool { keyInfo & 0x0008 != 0 }
    public var install: Bool { keyInfo & 0x0040 != 0 }
    public var ack: Bool { keyInfo & 0x0080 != 0 }
    public var mic: Bool { keyInfo & 0x0100 != 0 }
    public var secure: Bool { keyInfo & 0x0200 != 0 }
    public var error: Bool { keyInfo & 0x0400 != 0 }
    public var request: Bool { keyInfo & 0x0800 != 0 }

    /// Which message: from the authenticator Ack without MIC is message 1, Ack with MIC (and
    /// Install) message 3; from the supplicant MIC with Secure is message 4 (RSN), without it
    /// message 2 — or WPA's message 4, which carries no key data. nil for a request (the
    /// supplicant asks for a handshake) or a combination no message has.
    public var message: Message? {
        guard !request else { return nil }
        if !pairwise { return ack ? .group(1) : (mic ? .group(2) : nil) }
        switch (ack, mic) {
        case (true, false): return .pairwise(1)
        case (true, true): return install ? .pairwise(3) : nil
        case (false, true):
            if secure { return .pairwise(4) }
            return keyDataLength == 0 ? .pairwise(4) : .pairwise(2)
        case (false, false): return nil
        }
    }

    public static func parse(_ b: UnsafeRawBufferPointer) -> EAPOLKey? {
        guard let d = b.u8(at: 0), let info = b.u16be(at: 1) else { return nil }
        // Descriptor type, info, key length (2), replay counter (8), nonce (32), IV (16), RSC (8),
        // reserved (8), MIC (16), key data length (2).
        let replay = b.slice(5, 8).map { s in s.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        return EAPOLKey(descriptorType: d, keyInfo: info, replayCounter: replay, keyDataLength: b.u16be(at: 93))
    }

    public var description: String {
        switch message {
        case .pairwise(let n)?: return "4-way \(n)/4"
        case .group(let n)?: return "group \(n)/2"
        case nil:
            let hex = String(keyInfo, radix: 16)
            return request ? "key request" : "key info 0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}
