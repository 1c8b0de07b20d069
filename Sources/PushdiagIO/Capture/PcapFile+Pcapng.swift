import PushdiagCore

/// Where the pipelined reader is in a pcapng file: the walker's state (byte order, interfaces)
/// and the next block's offset.
struct PcapngCursor {
    var blocks = PcapngBlocks()
    var offset: Int64 = 0
    /// Bytes the next read must bring at least: the block that did not fit in the last one.
    var want = 0
}

/// The pipelined reader's pcapng path: whole blocks of the file are read into the batch and
/// walked with `PcapngBlocks`, whose records stay where they lie (the batch's entries point at
/// them). libpcap only opened the file and named its link type. A block needed whole that is
/// larger than the batch, a malformed block, or a file that ends inside a block ends the read
/// with one error naming the block and its offset, after every record before it.
extension PcapFile {
    func fillFromPcapng(_ b: Batch, _ c: inout PcapngCursor, _ read: inout Int) {
        let ask = min(b.capacity, max(1 << 20, c.want))
        let n = readBlock(into: b.storage, count: ask, at: c.offset)
        guard n >= 0 else {
            b.error = .readError(path: path, frame: read + 1, detail: "cannot read at byte \(c.offset): \(Errno.current)")
            b.finished = true
            return
        }
        var entries = b.entries
        b.entries = []
        let walk = c.blocks.walk(UnsafeRawBufferPointer(start: b.storage, count: n), at: c.offset) { ts, at, captured, original in
            entries.append(Batch.Entry(timestampNs: ts, offset: at, capturedLength: captured, originalLength: original))
        }
        b.entries = entries
        b.used = walk.length
        read += walk.packets
        c.offset += Int64(walk.length)
        c.want = 0
        defer { b.position = c.offset }
        let atEnd = n < ask  // readBlock stops short only at the end of the file
        switch walk.stop {
        case .end:
            if atEnd { b.finished = true }
        case .needs(let need):
            if atEnd {
                let e = PcapngError(kind: .truncated(needed: need, left: n - walk.length), blockType: blockType(b, c, at: walk.length, n), offset: c.offset)
                fail(b, e, frame: read + 1)
            } else if walk.length > 0 || need <= b.capacity {
                c.want = need  // the next batch reads it whole
            } else {
                skipOversized(b, &c, need: need, frame: read + 1)
            }
        case .failure(let e):
            fail(b, e, frame: read + 1)
        }
    }

    /// A block larger than the batch at the start of it: skipped when the records do not need
    /// it (its trailer read on its own), else an error.
    private func skipOversized(_ b: Batch, _ c: inout PcapngCursor, need: Int, frame: Int) {
        var trailer: UInt32 = 0
        let got = withUnsafeMutableBytes(of: &trailer) { readBlock(into: $0.baseAddress!, count: 4, at: c.offset + Int64(need) - 4) }
        let header = UnsafeRawBufferPointer(start: b.storage, count: 12)
        guard got == 4 else {
            let left = Int(max(size - c.offset, 0))
            fail(b, PcapngError(kind: .truncated(needed: need, left: left), blockType: blockType(b, c, at: 0, 12), offset: c.offset), frame: frame)
            return
        }
        if let e = c.blocks.oversizedBlock(header: header, trailer: trailer, at: c.offset, bufferBytes: b.capacity) {
            fail(b, e, frame: frame)
        } else {
            c.offset += Int64(need)
        }
    }

    /// The type of the block at `o` in the batch, in the section's byte order (0 when cut).
    private func blockType(_ b: Batch, _ c: PcapngCursor, at o: Int, _ n: Int) -> UInt32 {
        guard n - o >= 4 else { return 0 }
        let raw = b.storage.loadUnaligned(fromByteOffset: o, as: UInt32.self)
        return c.blocks.bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    private func fail(_ b: Batch, _ e: PcapngError, frame: Int) {
        if case .truncated = e.kind {
            b.error = .truncated(path: path, frame: frame, detail: e.description)
        } else {
            b.error = .readError(path: path, frame: frame, detail: e.description)
        }
        b.finished = true
    }
}
