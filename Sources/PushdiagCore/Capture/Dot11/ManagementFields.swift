/// The fixed fields and elements the per-station analysis reads from management frames
/// (IEEE 802.11-2020 9.3.3 and 9.4.2). Each reader takes borrowed bytes and returns nil when
/// they run short: a truncated frame is read as far as it goes and never past its end.

/// Element 5, Traffic Indication Map (9.4.2.5): DTIM count and period, bitmap control, and the
/// partial virtual bitmap of the AIDs the AP buffers frames for.
public struct TIMElement {
    public var dtimCount: UInt8
    public var dtimPeriod: UInt8
    /// Bit 0: group-addressed frames buffered (AID 0); bits 1–7: the bitmap offset N1 / 2.
    public var bitmapControl: UInt8
    /// Borrowed from the frame.
    public var partialBitmap: UnsafeRawBufferPointer

    /// The element's body (after ID and length): at least 4 octets.
    public static func parse(_ v: UnsafeRawBufferPointer) -> TIMElement? {
        guard v.count >= 4 else { return nil }
        return TIMElement(dtimCount: v[0], dtimPeriod: v[1], bitmapControl: v[2], partialBitmap: UnsafeRawBufferPointer(rebasing: v[3...]))
    }

    /// The first AID the partial bitmap describes (N1 × 8).
    public var firstAID: Int { Int(bitmapControl & 0xFE) * 8 }

    /// Whether the AP says it buffers frames for `aid` (1–2007); false outside the partial bitmap.
    public func isSet(aid: Int) -> Bool {
        let octet = aid / 8 - Int(bitmapControl & 0xFE)
        guard octet >= 0, octet < partialBitmap.count else { return false }
        return partialBitmap[octet] & (1 << UInt8(aid & 7)) != 0
    }

    /// Calls `body` with every AID set in the partial bitmap (AID 0, the group bit, excluded).
    public func forEachSetAID(_ body: (Int) -> Void) {
        let base = firstAID
        for (i, octet) in partialBitmap.enumerated() where octet != 0 {
            for bit in 0..<8 where octet & (1 << UInt8(bit)) != 0 {
                let aid = base + i * 8 + bit
                if aid > 0 { body(aid) }
            }
        }
    }

    /// The TIM element of a beacon's element list, found without reading the others' contents;
    /// nil when absent, or when the list breaks before it.
    public static func find(in b: UnsafeRawBufferPointer) -> TIMElement? {
        var walk = ElementWalk(b)
        while let (id, contents) = walk.next() {
            if id == 5 { return parse(contents) }
        }
        return nil
    }
}

/// WNM BSS Transition Management Request (9.6.13.9): category 10, action 7.
public struct BTMRequest {
    public var dialogToken: UInt8
    /// Bit 0 preferred candidate list included, 1 abridged, 2 disassociation imminent,
    /// 3 BSS termination included, 4 ESS disassociation imminent.
    public var requestMode: UInt8
    /// Beacon intervals until the AP disassociates the station (0: not said).
    public var disassociationTimer: UInt16
    /// Beacon intervals the candidate list stays valid.
    public var validityInterval: UInt8
    /// Neighbor Report elements (52) in the candidate list, counted as far as the list is whole.
    public var candidates: Int

    public var disassociationImminent: Bool { requestMode & 0x04 != 0 }

    /// The action frame's body from the category octet on.
    public static func parse(_ body: UnsafeRawBufferPointer) -> BTMRequest? {
        guard body.count >= 7, body[0] == 10, body[1] == 7 else { return nil }
        var r = BTMRequest(
            dialogToken: body[2], requestMode: body[3], disassociationTimer: body.u16le(at: 4)!, validityInterval: body[6], candidates: 0)
        var o = 7
        if r.requestMode & 0x08 != 0 { o += 12 }  // BSS Termination Duration subelement
        if r.requestMode & 0x10 != 0 {  // Session Information URL: length, URL
            guard let len = body.u8(at: o) else { return r }
            o += 1 + Int(len)
        }
        guard o <= body.count else { return r }
        var walk = ElementWalk(UnsafeRawBufferPointer(rebasing: body[o...]))
        while let (id, _) = walk.next() {
            if id == 52 { r.candidates += 1 }
        }
        return r
    }
}

/// WNM BSS Transition Management Response (9.6.13.10): category 10, action 8.
public struct BTMResponse {
    public var dialogToken: UInt8
    /// 0 accept; otherwise a reason to reject (table 9-428).
    public var status: UInt8
    public var terminationDelay: UInt8
    /// The BSS the station moves to, present when it accepts.
    public var target: MACAddress?

    public static func parse(_ body: UnsafeRawBufferPointer) -> BTMResponse? {
        guard body.count >= 5, body[0] == 10, body[1] == 8 else { return nil }
        return BTMResponse(dialogToken: body[2], status: body[3], terminationDelay: body[4], target: body[3] == 0 ? body.mac(at: 5) : nil)
    }
}

/// The fixed fields of (re)association requests and responses (9.3.3.6–9.3.3.9).
public enum AssociationFields {
    /// The listen interval (in beacon intervals) of an association or reassociation request's body.
    public static func listenInterval(_ body: UnsafeRawBufferPointer) -> UInt16? { body.u16le(at: 2) }

    /// Where a request's elements start: after capability and listen interval, and in a
    /// reassociation request the current AP's address.
    public static func requestElements(_ body: UnsafeRawBufferPointer, reassociation: Bool) -> UnsafeRawBufferPointer? {
        let start = reassociation ? 10 : 4
        guard body.count >= start else { return nil }
        return UnsafeRawBufferPointer(rebasing: body[start...])
    }

    /// A response's status code and, when it is there, the AID (its two top bits cleared).
    public static func response(_ body: UnsafeRawBufferPointer) -> (status: UInt16, aid: UInt16?)? {
        guard let status = body.u16le(at: 2) else { return nil }
        return (status, body.u16le(at: 4).map { $0 & 0x3FFF })
    }
}

/// The EAPOL frame in a data frame's body (LLC/SNAP with ethertype 0x888E), unprotected.
public enum EAPOLFrame {
    /// The EAPOL packet type (0 EAP packet, 1 start, 3 key) and, for an EAP packet, the EAP code
    /// (1 request, 2 response, 3 success, 4 failure).
    public static func parse(_ body: UnsafeRawBufferPointer) -> (type: UInt8, eapCode: UInt8?)? {
        guard body.count >= 10, body[0] == 0xAA, body[1] == 0xAA, body[2] == 0x03, body[6] == 0x88, body[7] == 0x8E else { return nil }
        let type = body[9]
        return (type, type == 0 ? body.u8(at: 12) : nil)
    }
}
