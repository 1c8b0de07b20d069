import Testing

@testable import PushdiagCore

struct PcapRecordsTests {
    static func fileHeader(magic: UInt32, major: UInt16 = 2, minor: UInt16 = 4) -> [UInt8] {
        le32(magic) + [UInt8(major & 0xFF), UInt8(major >> 8), UInt8(minor & 0xFF), UInt8(minor >> 8)] + [UInt8](repeating: 0, count: 8) + le32(65535)
            + le32(127)
    }

    static func record(seconds: UInt32, fraction: UInt32, bytes: [UInt8], original: Int? = nil, captured: Int? = nil) -> [UInt8] {
        le32(seconds) + le32(fraction) + le32(UInt32(captured ?? bytes.count)) + le32(UInt32(original ?? bytes.count)) + bytes
    }

    @Test func layoutOnlyForLittleEndianVersion24() {
        let micro = withBytes(Self.fileHeader(magic: 0xA1B2_C3D4)) { PcapRecords.layout(fileHeader: $0, snapshotLength: 65535) }
        #expect(micro == PcapRecords(snapshotLength: 65535, fractionScale: 1000))
        let nano = withBytes(Self.fileHeader(magic: 0xA1B2_3C4D)) { PcapRecords.layout(fileHeader: $0, snapshotLength: 100) }
        #expect(nano == PcapRecords(snapshotLength: 100, fractionScale: 1))
        // Big-endian files, other versions, pcapng and short headers are left to libpcap.
        #expect(withBytes(Self.fileHeader(magic: 0xD4C3_B2A1)) { PcapRecords.layout(fileHeader: $0, snapshotLength: 65535) } == nil)
        #expect(withBytes(Self.fileHeader(magic: 0xA1B2_C3D4, minor: 3)) { PcapRecords.layout(fileHeader: $0, snapshotLength: 65535) } == nil)
        #expect(withBytes(Self.fileHeader(magic: 0x0A0D_0D0A)) { PcapRecords.layout(fileHeader: $0, snapshotLength: 65535) } == nil)
        #expect(withBytes([0xD4, 0xC3, 0xB2]) { PcapRecords.layout(fileHeader: $0, snapshotLength: 65535) } == nil)
    }

    @Test func walksWholeRecordsWithTimeInNanoseconds() {
        let micro = PcapRecords(snapshotLength: 65535, fractionScale: 1000)
        let bytes = Self.record(seconds: 2, fraction: 500_000, bytes: [1, 2, 3], original: 40) + Self.record(seconds: 3, fraction: 1, bytes: [])
        let run = withBytes(bytes) { micro.run(in: $0) }
        #expect(run == PcapRecords.Run(length: bytes.count, records: 2, stoppedAtUnusual: false))
        var seen: [(Int64, [UInt8], Int)] = []
        let whole = withBytes(bytes) { b in
            micro.forEach(in: b) {
                seen.append(($0, Array($1), $2))
                return true
            }
        }
        #expect(whole)
        #expect(seen.map(\.0) == [2_500_000_000, 3_000_001_000])
        #expect(seen.map(\.1) == [[1, 2, 3], []])
        #expect(seen.map(\.2) == [40, 0])
        let nano = PcapRecords(snapshotLength: 65535, fractionScale: 1)
        _ = withBytes(bytes) { b in
            nano.forEach(in: b) { ts, _, _ in
                seen.append((ts, [], 0))
                return true
            }
        }
        #expect(seen.suffix(2).map(\.0) == [2_000_500_000, 3_000_000_001])
    }

    @Test func stopsBeforeWhatLibpcapMustRead() {
        let layout = PcapRecords(snapshotLength: 8, fractionScale: 1000)
        let first = Self.record(seconds: 1, fraction: 0, bytes: [1, 2])
        // A captured length above the snapshot length: libpcap cuts or refuses it.
        let oversized = first + Self.record(seconds: 1, fraction: 0, bytes: [UInt8](repeating: 0, count: 9))
        #expect(withBytes(oversized) { layout.run(in: $0) } == PcapRecords.Run(length: first.count, records: 1, stoppedAtUnusual: true))
        // Time fields with the top bit set, which libpcap versions read differently.
        let late = first + Self.record(seconds: 0x8000_0000, fraction: 0, bytes: [])
        #expect(withBytes(late) { layout.run(in: $0) } == PcapRecords.Run(length: first.count, records: 1, stoppedAtUnusual: true))
        let odd = first + Self.record(seconds: 1, fraction: 0xFFFF_FFFF, bytes: [])
        #expect(withBytes(odd) { layout.run(in: $0) }.stoppedAtUnusual)
        // A record or a header cut short ends the run; only the caller knows whether more bytes follow.
        let cut = first + Array(Self.record(seconds: 1, fraction: 0, bytes: [1, 2, 3]).dropLast())
        #expect(withBytes(cut) { layout.run(in: $0) } == PcapRecords.Run(length: first.count, records: 1, stoppedAtUnusual: false))
        let header = first + [1, 2, 3]
        #expect(withBytes(header) { layout.run(in: $0) } == PcapRecords.Run(length: first.count, records: 1, stoppedAtUnusual: false))
        // forEach over bytes that are not a whole run stops at the cut instead of reading past it.
        var n = 0
        _ = withBytes(cut) { b in
            layout.forEach(in: b) { _, _, _ in
                n += 1
                return true
            }
        }
        #expect(n == 1)
    }
}
