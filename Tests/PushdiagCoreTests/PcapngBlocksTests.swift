import FixtureKit
import Testing

@testable import PushdiagCore

/// The pcapng block walker on files built byte by byte (PcapngBuilder).
struct PcapngBlocksTests {
    struct Seen: Equatable {
        var ts: Int64
        var data: [UInt8]
        var original: Int
    }

    /// Walks `bytes` whole, as the reader does when they all fit.
    static func walk(_ bytes: [UInt8], _ blocks: inout PcapngBlocks) -> (PcapngBlocks.Walk, [Seen]) {
        var seen: [Seen] = []
        let w = bytes.withUnsafeBytes { b in
            blocks.walk(b, at: 0) { ts, at, captured, original in
                seen.append(Seen(ts: ts, data: Array(b[at..<(at + captured)]), original: original))
            }
        }
        return (w, seen)
    }

    static func walk(_ bytes: [UInt8]) -> (PcapngBlocks.Walk, [Seen]) {
        var blocks = PcapngBlocks()
        return walk(bytes, &blocks)
    }

    @Test(arguments: [false, true])
    func bothByteOrdersGiveTheSameRecords(bigEndian: Bool) {
        var f = PcapngBuilder()
        f.section(bigEndian: bigEndian)
        f.interface(linkType: 127, snapLength: 65535)
        f.enhancedPacket(units: 1_700_000_000_123_456, [1, 2, 3], original: 40)
        f.block(0x0000_0004, [9, 9, 9, 9, 9, 9, 9, 9])  // a name resolution block: skipped
        f.enhancedPacket(units: 1_700_000_001_000_000, [4, 5, 6, 7, 8])
        let (w, seen) = Self.walk(f.bytes)
        #expect(w == PcapngBlocks.Walk(length: f.bytes.count, packets: 2, stop: .end))
        #expect(
            seen == [
                Seen(ts: 1_700_000_000_123_456_000, data: [1, 2, 3], original: 40), Seen(ts: 1_700_000_001_000_000_000, data: [4, 5, 6, 7, 8], original: 5),
            ])
    }

    /// Each interface's resolution and offset: nanoseconds, 2^-20 s, 10^-12 s (scaled down), and
    /// microseconds with 100 s added; the simple packet block takes interface 0 and no time.
    @Test func timestampResolutionsAndOffsets() {
        var f = PcapngBuilder()
        f.section(bigEndian: false)
        f.interface(linkType: 105, tsresol: 9)
        f.interface(linkType: 105, tsresol: 0x80 | 20)
        f.interface(linkType: 105, tsresol: 12)
        f.interface(linkType: 105, tsoffset: 100)
        f.enhancedPacket(interface: 0, units: 5_000_000_007, [1])
        f.enhancedPacket(interface: 1, units: 3 << 20 | 1 << 19, [2])  // 3.5 s
        f.enhancedPacket(interface: 2, units: 2_000_000_123_999, [3])  // 2 s + 123,999 ps
        f.enhancedPacket(interface: 3, units: 1_500_000, [4])
        f.simplePacket([5, 6])
        f.packet(interface: 3, units: 7, [7])
        let (w, seen) = Self.walk(f.bytes)
        #expect(w.stop == .end && w.packets == 6)
        #expect(seen.map(\.ts) == [5_000_000_007, 3_500_000_000, 2_000_000_123, 101_500_000_000, 0, 100_000_007_000])
        #expect(seen.count == 6 && seen[4] == Seen(ts: 0, data: [5, 6], original: 2))
        // As libpcap: a simple packet's captured length is its original length (up to the
        // snapshot length), which the block must hold.
        var g = PcapngBuilder()
        g.section(bigEndian: false)
        g.interface(linkType: 105)
        g.simplePacket([5, 6], original: 60)
        #expect(Self.walk(g.bytes).0.stop == .failure(PcapngError(kind: .bodyTooShort, blockType: 3, offset: 48)))
    }

    /// An offset that puts a time past Int64's nanoseconds (if_tsoffset ±2e10 s) is held at the
    /// bound it passed, not wrapped to another year: the readers then hold it within ±2^62 ns.
    @Test func anOffsetPastInt64IsHeldAtItsBound() {
        var f = PcapngBuilder()
        f.section(bigEndian: false)
        f.interface(linkType: 105, tsresol: 9, tsoffset: 20_000_000_000)
        f.interface(linkType: 105, tsresol: 9, tsoffset: -20_000_000_000)
        f.enhancedPacket(interface: 0, units: 5, [1])
        f.enhancedPacket(interface: 1, units: 5, [2])
        #expect(Self.walk(f.bytes).1.map(\.ts) == [.max, .min + 5])  // the seconds held, the fraction added
        #expect(CaptureFrame.held(.max) == CaptureFrame.mostNs && CaptureFrame.held(.min) == -CaptureFrame.mostNs)
        #expect(Int64.max.addingSaturated(1) == .max && Int64.min.addingSaturated(-1) == .min && Int64(5).addingSaturated(-7) == -2)
        #expect(Int64(20_000_000_000).multipliedSaturated(by: 1_000_000_000) == .max)
        #expect(Int64(-20_000_000_000).multipliedSaturated(by: 1_000_000_000) == .min)
        #expect(Int64(-3).multipliedSaturated(by: -4) == 12)
    }

    /// A new section forgets the interfaces of the one before and may change the byte order.
    @Test func severalSectionsEachWithTheirInterfaces() {
        var f = PcapngBuilder()
        f.section(bigEndian: false)
        f.interface(linkType: 127)
        f.enhancedPacket(units: 1, [1])
        f.section(bigEndian: true)
        f.interface(linkType: 127, tsresol: 3)
        f.enhancedPacket(units: 2, [2])
        var blocks = PcapngBlocks()
        let (w, seen) = Self.walk(f.bytes, &blocks)
        #expect(w.stop == .end && seen.map(\.ts) == [1_000, 2_000_000])
        #expect(blocks.sections == 2 && blocks.bigEndian && blocks.interfaces.count == 1)

        // A packet on an interface that only the earlier section described.
        var g = PcapngBuilder()
        g.section(bigEndian: false)
        g.interface(linkType: 127)
        g.interface(linkType: 127)
        g.section(bigEndian: false)
        g.interface(linkType: 127)
        let packetAt = g.bytes.count
        g.enhancedPacket(interface: 1, units: 1, [1])
        let (gw, _) = Self.walk(g.bytes)
        #expect(gw.stop == .failure(PcapngError(kind: .unknownInterface(1, interfaces: 1), blockType: 6, offset: Int64(packetAt))))
    }

    /// A block that the bytes do not hold whole is asked for, with its length; the walk resumes
    /// at it with more bytes.
    @Test func aBlockCutByTheBufferIsAskedForWhole() {
        var f = PcapngBuilder()
        f.section(bigEndian: false)
        f.interface(linkType: 127)
        let second = f.bytes.count
        f.enhancedPacket(units: 1, [UInt8](repeating: 7, count: 100))
        var blocks = PcapngBlocks()
        let (w, _) = Self.walk(Array(f.bytes.prefix(second + 50)), &blocks)
        #expect(w == PcapngBlocks.Walk(length: second, packets: 0, stop: .needs(f.bytes.count - second)))
        let (w2, _) = Self.walk(Array(f.bytes.prefix(second + 5)), &blocks)
        #expect(w2.stop == .needs(12) && w2.length == second)
        let (rest, seen) = Self.walk(Array(f.bytes[second...]), &blocks)
        #expect(rest.stop == .end && seen.count == 1 && seen[0].data.count == 100)
    }

    /// Hostile blocks: each stops the walk with its reason, naming the block and its offset.
    @Test func malformedBlocksAreNamedWithTheirOffset() {
        func failure(_ build: (inout PcapngBuilder) -> Void) -> PcapngError? {
            var f = PcapngBuilder()
            f.section(bigEndian: false)
            f.interface(linkType: 127, snapLength: 100)
            build(&f)
            if case .failure(let e) = Self.walk(f.bytes).0.stop { return e }
            return nil
        }
        let at: Int64 = 28 + 20  // after the section header and the interface
        #expect(failure { $0.block(6, [UInt8](repeating: 0, count: 20), trailer: 99) }?.kind == .trailerMismatch(header: 32, trailer: 99))
        #expect(
            failure { $0.enhancedPacket(units: 0, [UInt8](repeating: 0, count: 101)) }
                == PcapngError(kind: .capturedAboveSnapshot(101, snapshot: 100), blockType: 6, offset: at))
        #expect(failure { $0.enhancedPacket(interface: 4, units: 0, [1]) }?.kind == .unknownInterface(4, interfaces: 1))
        #expect(failure { $0.interface(linkType: 105, snapLength: 100) }?.kind == .otherLinkType(105, first: 127))
        #expect(failure { $0.interface(linkType: 127, snapLength: 0) }?.kind == .otherSnapshotLength(0, first: 100))
        #expect(failure { $0.interface(linkType: 127, snapLength: 100, tsresol: 20) }?.kind == .resolutionTooFine(20))
        #expect(failure { $0.interface(linkType: 127, snapLength: 100, extra: $0.option(9, [6, 6])) }?.kind == .badOption(code: 9, length: 2))
        #expect(failure { $0.block(6, [0, 0, 0, 0, 0, 0, 0, 0]) }?.kind == .bodyTooShort)
        // A captured length past the block's end.
        #expect(failure { $0.block(6, [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0] + [50, 0, 0, 0] + [50, 0, 0, 0] + [1, 2, 3, 4]) }?.kind == .bodyTooShort)
        #expect(failure { $0.section(bigEndian: false, major: 2) }?.kind == .unsupportedVersion(major: 2, minor: 0))
        #expect(
            failure { f in
                f.block(6, [])
                f.bytes[Int(at) + 4] = 13
            }?.kind == .lengthNotMultipleOf4(13))
        #expect(
            failure { f in
                f.block(6, [])
                f.bytes[Int(at) + 4] = 8
            }?.kind == .lengthTooShort(8))
        #expect(
            failure { f in
                f.block(6, [])
                f.bytes[Int(at) + 7] = 0x10
            }?.kind == .lengthTooLong(0x1000_000C, limit: PcapngBlocks.maxBlockLength))
        #expect(failure { f in f.block(0x0A0D_0D0A, [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }?.kind == .badByteOrderMagic(0x0403_0201))
        // Not a pcapng file at all.
        let (w, _) = Self.walk([1, 0, 0, 0, 12, 0, 0, 0, 12, 0, 0, 0])
        #expect(w.stop == .failure(PcapngError(kind: .noSectionHeader, blockType: 1, offset: 0)))
        #expect(
            PcapngError(kind: .truncated(needed: 64, left: 20), blockType: 6, offset: 4096).description
                == "enhanced packet block at byte 4096: runs past the end of the file (needed 64 bytes, 20 left)")
    }

    /// A block too large for the reader's buffer is skipped when no record needs it.
    @Test func oversizedBlocksAreSkippedOnlyWhenNotNeeded() {
        var blocks = PcapngBlocks()
        var f = PcapngBuilder()
        f.section(bigEndian: true)
        f.interface(linkType: 127)
        _ = Self.walk(f.bytes, &blocks)
        let header: [UInt8] = [0, 0, 0, 5, 0, 0x80, 0, 0, 0, 0, 0, 0]  // an interface statistics block of 8 MiB
        let trailer = UInt32(0x0080_0000).bigEndian
        #expect(header.withUnsafeBytes { blocks.oversizedBlock(header: $0, trailer: trailer, at: 64, bufferBytes: 1 << 20) } == nil)
        #expect(
            header.withUnsafeBytes { blocks.oversizedBlock(header: $0, trailer: 7, at: 64, bufferBytes: 1 << 20) }?.kind
                == .trailerMismatch(header: 0x80_0000, trailer: UInt32(7).byteSwapped))
        let packet: [UInt8] = [0, 0, 0, 6, 0, 0x80, 0, 0, 0, 0, 0, 0]
        #expect(
            packet.withUnsafeBytes { blocks.oversizedBlock(header: $0, trailer: trailer, at: 64, bufferBytes: 1 << 20) }?.kind
                == .largerThanBuffer(0x80_0000, buffer: 1 << 20))
    }
}
