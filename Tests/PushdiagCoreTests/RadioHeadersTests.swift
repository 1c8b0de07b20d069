import PushdiagCore
import Testing

func withBytes<R>(_ b: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try b.withUnsafeBytes(body)
}

func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }

struct RadiotapTests {
    @Test func extendedBitmapAndAlignment() throws {
        // Words: TSFT | Flags | Channel | ext, then an empty word. Data starts at 12; TSFT is
        // 8-aligned (16), Flags at 24, Channel 2-aligned at 26.
        var h: [UInt8] = [0, 0, 0, 0] + le32(0x8000_000B) + le32(0)
        h += [0, 0, 0, 0]  // pad to 16
        h += [UInt8](repeating: 0x11, count: 8)  // TSFT
        h += [0x10]  // Flags: FCS at end
        h += [0]  // pad to 26
        h += [0x85, 0x09, 0x80, 0x00]  // 2437 MHz, 2 GHz
        h[2] = UInt8(h.count)
        let (info, len) = try #require(withBytes(h) { Radiotap.parse($0) })
        #expect(len == 30)
        #expect(info.fcsPresent)
        #expect(info.frequencyMHz == 2437)
        #expect(!info.walkIncomplete)
    }

    @Test func vendorNamespaceIsSkipped() throws {
        // word0: Flags, vendor NS next, ext; word1 (vendor): back to radiotap, ext; word2: dBm signal.
        var h: [UInt8] = [0, 0, 0, 0] + le32(0xC000_0002) + le32(0xA000_0000) + le32(0x0000_0020)
        h += [0x40]  // Flags at 16: bad FCS
        h += [0]  // align 2
        h += [0x00, 0x11, 0x22, 0x01] + [3, 0]  // vendor NS: OUI, sub-namespace, skip length 3
        h += [0xAA, 0xBB, 0xCC]  // vendor data
        h += [0xC4]  // dBm signal: -60
        h[2] = UInt8(h.count)
        let (info, len) = try #require(withBytes(h) { Radiotap.parse($0) })
        #expect(len == 28)
        #expect(info.badFCSFlagged)
        #expect(info.signalDBm == -60)
        #expect(!info.walkIncomplete)
    }

    @Test func unknownFieldEndsTheWalkKeepingEarlierFields() throws {
        var h: [UInt8] = [0, 0, 0, 0] + le32(0x1000_0022)  // Flags, dBm signal, bit 28 (reserved)
        h += [0x10, 0xC4, 0xFF, 0xFF]
        h[2] = UInt8(h.count)
        let (info, _) = try #require(withBytes(h) { Radiotap.parse($0) })
        #expect(info.fcsPresent && info.signalDBm == -60)
        #expect(info.walkIncomplete)
    }

    @Test func unusableHeadersAreRefused() {
        #expect(withBytes([1, 0, 8, 0, 0, 0, 0, 0]) { Radiotap.parse($0) } == nil, "version 1")
        #expect(withBytes([0, 0, 64, 0, 0, 0, 0, 0]) { Radiotap.parse($0) } == nil, "longer than the record")
        #expect(withBytes([0, 0, 4, 0, 0, 0, 0, 0]) { Radiotap.parse($0) } == nil, "shorter than 8")
        #expect(withBytes([0, 0, 8]) { Radiotap.parse($0) } == nil, "cut inside the header")
        // A presence word announcing another one that is not there.
        let h: [UInt8] = [0, 0, 8, 0] + le32(0x8000_0000)
        #expect(withBytes(h) { Radiotap.parse($0) }?.info.walkIncomplete == true)
    }

    @Test func htAndVhtRates() throws {
        var h: [UInt8] = [0, 0, 0, 0] + le32(1 << 19)  // MCS
        h += [0x07, 0x04, 7]  // known: bw, mcs, gi; flags: short GI; MCS 7
        h[2] = UInt8(h.count)
        let (ht, _) = try #require(withBytes(h) { Radiotap.parse($0) })
        #expect(ht.modulation == .ht(mcs: 7, bandwidthMHz: 20, shortGI: true))

        var v: [UInt8] = [0, 0, 0, 0] + le32(1 << 21)  // VHT, 2-aligned at 8
        v += [0x44, 0x00, 0x00, 4, 0x92, 0, 0, 0, 0, 0, 0, 0]  // known GI+bw; 80 MHz; MCS 9, NSS 2
        v[2] = UInt8(v.count)
        let (vht, _) = try #require(withBytes(v) { Radiotap.parse($0) })
        #expect(vht.modulation == .vht(mcs: 9, nss: 2, bandwidthMHz: 80, shortGI: false))
    }
}

struct LayoutCacheTests {
    /// The same presence words with a header too short for its fields, then a complete one: the
    /// cut-short walk must not be reused.
    @Test func aCutShortHeaderDoesNotPoisonTheCache() throws {
        var cache = Radiotap.LayoutCache()
        let words = le32(0x0000_000A)  // Flags, Channel
        let short: [UInt8] = [0, 0, 9, 0] + words + [0x10]
        var full: [UInt8] = [0, 0, 0, 0] + words + [0x10, 0, 0x85, 0x09, 0x80, 0x00]
        full[2] = UInt8(full.count)
        let a = try #require(withBytes(short) { Radiotap.parse($0, cache: &cache) })
        #expect(a.info.walkIncomplete && a.info.frequencyMHz == 0 && a.info.fcsPresent)
        let b = try #require(withBytes(full) { Radiotap.parse($0, cache: &cache) })
        #expect(!b.info.walkIncomplete && b.info.frequencyMHz == 2437)
        let c = try #require(withBytes(full) { Radiotap.parse($0, cache: &cache) })
        #expect(c.info == b.info, "the cached layout reads the same fields")
    }

    /// Frames of a busy channel alternate kinds of header (data with MCS, acknowledgements with a
    /// legacy rate, the capturing radio's own with TX flags): each reads as it would uncached,
    /// also once more kinds have come than the cache holds.
    @Test func alternatingLayoutsReadAsUncached() throws {
        func header(_ present: UInt32, _ fields: [UInt8]) -> [UInt8] {
            var h: [UInt8] = [0, 0, 0, 0] + le32(present) + fields
            h[2] = UInt8(h.count)
            return h
        }
        let headers = [
            header(0x0000_000E, [0x10, 0x0C, 0x85, 0x09, 0x80, 0x00]),  // Flags, Rate 6 Mb/s, Channel 2437
            header(0x0008_000A, [0x00, 0x00, 0x3C, 0x14, 0x40, 0x01, 0x07, 0x04, 0x07]),  // Flags, Channel 5180, MCS 7 short GI
            header(0x0000_0022, [0x02, 0xC4]),  // Flags (short preamble), dBm signal
            header(0x0000_0004, [0x16]),  // Rate 11 Mb/s
            header(0x0000_0026, [0x00, 0x02, 0x00, 0x6C, 0x09, 0xA0, 0x00, 0xB0]),  // Flags, Rate, Channel 2412, dBm signal
        ]
        var cache = Radiotap.LayoutCache()
        for h in headers + headers.reversed() + headers {
            let cached = try #require(withBytes(h) { Radiotap.parse($0, cache: &cache) })
            let fresh = try #require(withBytes(h) { Radiotap.parse($0) })
            #expect(cached.info == fresh.info && cached.headerLength == fresh.headerLength)
        }
    }
}

struct OtherRadioHeaderTests {
    @Test func avs() throws {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        var h = be32(0x8021_1001) + be32(64) + [UInt8](repeating: 0, count: 16)  // mactime, hosttime
        h += be32(4) + be32(6) + be32(540)  // phytype, channel 6, 54 Mb/s in 100 kb/s
        h += be32(0) + be32(0) + be32(2)  // antenna, priority, ssi type dBm
        h += be32(UInt32(bitPattern: -55)) + be32(UInt32(bitPattern: -95)) + be32(1) + be32(0)  // signal, noise, short preamble, encoding
        #expect(h.count == 64)
        let frame: [UInt8] = [0x80, 0x08] + [UInt8](repeating: 0, count: 22)
        let d = try #require(withBytes(h + frame) { LinkLayer.decapsulate(.avs, $0, originalLength: 88) })
        #expect(d.headerLength == 64 && d.frame.count == 24)
        #expect(d.info.frequencyMHz == 2437 && d.info.modulation == .legacy(rate500k: 108))
        #expect(d.info.signalDBm == -55 && d.info.noiseDBm == -95 && d.info.shortPreamble)
        // The same header under the Prism link type is recognised by its magic.
        let p = try #require(withBytes(h + frame) { LinkLayer.decapsulate(.prism, $0, originalLength: 88) })
        #expect(p.headerLength == 64)
    }

    @Test func fcsIsStrippedOnlyWhenCaptured() throws {
        var h: [UInt8] = [0, 0, 9, 0] + le32(0x0000_0002) + [0x10]  // Flags: FCS at end
        h += [0xD4, 0x00, 0, 0, 1, 2, 3, 4, 5, 6] + [0xAA, 0xBB, 0xCC, 0xDD]
        let whole = try #require(withBytes(h) { LinkLayer.decapsulate(.radiotap, $0, originalLength: h.count) })
        #expect(whole.frame.count == 10 && whole.fcs == 0xDDCC_BBAA)
        // Cut by the snap length two bytes short: two FCS bytes captured, none to check.
        let cut = try #require(withBytes(h) { LinkLayer.decapsulate(.radiotap, $0, originalLength: h.count + 2) })
        #expect(cut.frame.count == 12 && cut.fcs == nil)
    }
}
