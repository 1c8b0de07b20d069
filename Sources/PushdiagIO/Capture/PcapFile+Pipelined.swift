private import CPcap
import Dispatch
import Foundation
import PushdiagCore

/// Reading and analysing on two cores: a reader thread fills one of two batches while the caller
/// analyses the other. In a classic pcap file the reader reads whole blocks of the file into the
/// batch and walks the record headers itself (`PcapRecords`): no copy and no per-record call
/// into libpcap, whose fread path costs as much as a third of the analysis. A pcapng file is
/// read the same way and its blocks walked with `PcapngBlocks` (`PcapFile+Pcapng`). Other files, and a
/// classic file from its first record libpcap must read itself (an unusual record, a record cut
/// short, a read error), go through libpcap, whose records the reader copies into the batch.
/// For the analyser (`forEachFramePipelined`) the reader also takes the radio header off each
/// record (`CaptureFrame`), so the two threads share the analysis. Small files are read on one
/// thread (`forEachRecord`).
extension PcapFile {
    /// A batch of records: a block of the file, or records copied out of libpcap's buffer. Owned
    /// by one thread at a time: the reader between `empty.wait()` and `full.signal()`, the
    /// consumer between `full.wait()` and `empty.signal()`.
    final class Batch: @unchecked Sendable {
        struct Entry {
            var timestampNs: Int64
            var offset: Int
            var capturedLength: Int
            var originalLength: Int
        }

        let capacity: Int
        let storage: UnsafeMutableRawPointer
        var used = 0
        var entries: [Entry] = []
        /// The batch holds `used` bytes of whole classic pcap records read straight from the
        /// file, walked with `PcapRecords`, instead of `entries`.
        var blockRecords: PcapRecords?
        /// The batch's records taken apart by the reader, when it was asked to (`prepare`).
        var frames: [CaptureFrame] = []
        var finished = false
        var error: CaptureError?
        var position: Int64 = 0
        // Both start at 0 and `empty` is signalled once: libdispatch traps when a semaphore is
        // released holding less than its initial value.
        let empty = DispatchSemaphore(value: 0)
        let full = DispatchSemaphore(value: 0)

        init(capacity: Int) {
            self.capacity = capacity
            empty.signal()
            storage = .allocate(byteCount: capacity, alignment: 16)
            entries.reserveCapacity(capacity / 64)
        }

        deinit { storage.deallocate() }

        func reset() {
            used = 0
            entries.removeAll(keepingCapacity: true)
            frames.removeAll(keepingCapacity: true)
            blockRecords = nil
        }

        /// Calls `body` with each record of the batch, in order; false when `body` stopped it.
        @inline(__always)
        func forEachRecord(_ body: (CaptureRecord) -> Bool) -> Bool {
            if let records = blockRecords {
                return records.forEach(in: UnsafeRawBufferPointer(start: storage, count: used)) { ts, bytes, original in
                    body(CaptureRecord(timestampNs: ts, bytes: bytes, originalLength: original))
                }
            }
            for e in entries {
                let rec = CaptureRecord(
                    timestampNs: e.timestampNs, bytes: UnsafeRawBufferPointer(start: storage + e.offset, count: e.capturedLength),
                    originalLength: e.originalLength)
                if !body(rec) { return false }
            }
            return true
        }

        /// Copies a record in; false when it does not fit (a record never exceeds the capacity,
        /// which is above libpcap's largest snap length).
        func append(_ ts: Int64, _ data: UnsafePointer<UInt8>, _ caplen: Int, _ len: Int) -> Bool {
            guard used + caplen <= capacity else { return false }
            (storage + used).copyMemory(from: data, byteCount: caplen)
            entries.append(Entry(timestampNs: ts, offset: used, capturedLength: caplen, originalLength: len))
            used += caplen
            return true
        }
    }

    /// Shared between the two threads; written before a semaphore signal, read after its wait.
    final class Pipeline: @unchecked Sendable {
        let batches: [Batch]
        var cancelled = false
        let done = DispatchSemaphore(value: 0)
        /// The reader takes each record apart for this link type (`CaptureFrame`) when set.
        let prepare: LinkType?
        init(batchBytes: Int, prepare: LinkType?) {
            batches = [Batch(capacity: batchBytes), Batch(capacity: batchBytes)]
            self.prepare = prepare
        }
    }

    /// As `forEachRecord`, with the file read on a second thread. Records reach `body` in file
    /// order; an error reaches the caller after every record before it.
    @inline(__always)
    @discardableResult
    public func forEachRecordPipelined(batchBytes: Int = 4 << 20, _ body: (CaptureRecord) -> Bool) throws(CaptureError) -> Int {
        var n = 0
        try pipelined(batchBytes: batchBytes, prepare: nil) { batch in
            batch.forEachRecord {
                n += 1
                return body($0)
            }
        }
        return n
    }

    /// As `forEachRecordPipelined`, with each record's radio header taken off on the reading
    /// thread as well (`CaptureFrame`), which halves the caller's work on a control frame.
    @inline(__always)
    @discardableResult
    public func forEachFramePipelined(linkType: LinkType, batchBytes: Int = 4 << 20, _ body: (CaptureFrame) -> Bool) throws(CaptureError) -> Int {
        var n = 0
        try pipelined(batchBytes: batchBytes, prepare: linkType) { batch in
            batch.frames.withUnsafeBufferPointer { frames in
                for i in frames.indices {
                    n += 1
                    if !body(frames[i]) { return false }
                }
                return true
            }
        }
        return n
    }

    /// Runs the reader thread and hands each filled batch to `body` (false: stop). Inlined into
    /// its callers, so `body` is too: a call through a closure for every record cost about a
    /// seventh of the analysis of a control frame.
    @inline(__always)
    func pipelined(batchBytes: Int, prepare: LinkType?, _ body: (Batch) -> Bool) throws(CaptureError) {
        let pipeline = Pipeline(batchBytes: max(batchBytes, 1 << 19), prepare: prepare)
        let reader = Thread { [self] in
            self.readBatches(pipeline)
            pipeline.done.signal()
        }
        reader.stackSize = 1 << 20
        reader.start()

        var current = 0
        while true {
            let b = pipeline.batches[current]
            b.full.wait()
            if !body(b) {
                pipeline.cancelled = true
                b.empty.signal()
                pipeline.done.wait()
                return
            }
            lastPipelinedPosition = b.position
            if b.finished {
                pipeline.done.wait()
                if let e = b.error { throw e }
                return
            }
            b.empty.signal()
            current ^= 1
        }
    }

    /// Records libpcap reads after taking over from the block reader before blocks are tried
    /// again: enough that a file libpcap must read throughout (times past 2038, a snapshot
    /// length below its records) costs a wasted block read only every few thousand records.
    public static let libpcapStint = 4096

    /// The reader thread: fills the batches in turn until the end of the file, an error, or the
    /// consumer cancels.
    private func readBatches(_ pipeline: Pipeline) {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var current = 0
        var read = 0
        // A record read but not yet stored (its batch was full); libpcap's buffer stays valid
        // until the next pcap_next_ex call.
        var pending: (Int64, UnsafePointer<UInt8>, Int, Int)?
        // Blocks of whole records straight from the file while `records` is set; from `offset`.
        var records = self.records
        var offset = Int64(PcapRecords.fileHeaderLength)
        var radiotapLayout = Radiotap.LayoutCache()
        var stint = 0  // records libpcap has read since it took over
        // A pcapng file is walked block by block from its first byte (`PcapngBlocks`).
        var pcapng = isPcapng ? PcapngCursor() : nil
        while true {
            let b = pipeline.batches[current]
            b.empty.wait()
            if pipeline.cancelled {
                b.finished = true
                return
            }
            b.reset()
            // Takes the radio headers off and hands the batch over; true when it was the last.
            func handOver() -> Bool {
                prepareFrames(b, pipeline.prepare, &radiotapLayout)
                let finished = b.finished
                b.full.signal()
                current ^= 1
                return finished
            }
            if var cursor = pcapng {
                fillFromPcapng(b, &cursor, &read)
                pcapng = cursor
                if handOver() { return }
                continue
            }
            if let layout = records {
                // Blocks of 1 MiB (a record is at most 256 KiB): enough to make a read cheap,
                // few enough records that their frames stay small.
                let blockBytes = min(b.capacity, 1 << 20)
                let n = readBlock(into: b.storage, count: blockBytes, at: offset)
                let run = layout.run(in: UnsafeRawBufferPointer(start: b.storage, count: max(n, 0)))
                b.blockRecords = layout
                b.used = run.length
                read += run.records
                offset += Int64(run.length)
                b.position = offset
                if n == 0 {
                    b.finished = true  // the end of the file, after a whole record
                } else if n < 0 || run.stoppedAtUnusual || (run.length < n && (n < blockBytes || run.length == 0)) {
                    // libpcap reads on from this record: it reports the error, the cut or the
                    // unusual record as it would have from the start.
                    records = nil
                    stint = 0
                    if fseeko(pcap_file(rawHandle), off_t(offset), SEEK_SET) != 0 {
                        b.error = .readError(path: path, frame: read + 1, detail: "cannot seek to byte \(offset): \(Errno.current)")
                        b.finished = true
                    }
                }
                if handOver() { return }
                continue
            }
            if let p = pending {
                pending = nil
                guard b.append(p.0, p.1, p.2, p.3) else {
                    // Larger than a whole batch: cannot happen below libpcap's snap-length limit.
                    b.error = .readError(path: path, frame: read, detail: "record of \(p.2) bytes exceeds the read buffer")
                    b.finished = true
                    b.full.signal()
                    return
                }
            }
            var resumeAt: Int64?
            fill: while true {
                // In a classic file, libpcap reads a stint past the record it was handed, then
                // blocks take over again: one odd record does not slow the rest of the file.
                if self.records != nil, stint >= Self.libpcapStint, pending == nil {
                    let p = ftello(pcap_file(rawHandle))
                    if p > 0 {
                        resumeAt = Int64(p)
                        break fill
                    }
                }
                let rc = pcap_next_ex(rawHandle, &header, &data)
                if rc == 1, let hdr = header?.pointee, let data {
                    read += 1
                    stint += 1
                    let ts = CaptureFrame.nanoseconds(seconds: Int64(hdr.ts.tv_sec), fraction: Int64(hdr.ts.tv_usec))  // opened for nanoseconds
                    if !b.append(ts, data, Int(hdr.caplen), Int(hdr.len)) {
                        pending = (ts, data, Int(hdr.caplen), Int(hdr.len))
                        break fill
                    }
                } else if rc == CPcap_ERROR_BREAK() {
                    b.finished = true
                    break fill
                } else if rc == 0 {
                    continue
                } else {
                    b.error = readError(frame: read + 1)
                    b.finished = true
                    break fill
                }
            }
            b.position = resumeAt ?? position
            if let resumeAt {
                records = self.records
                offset = resumeAt
            }
            if handOver() { return }
        }
    }

    /// Takes the radio headers off the batch's records for `linkType` (nothing when nil), on
    /// the reading thread. The frames are built in a local array: appending to the batch's own
    /// property cost a dynamic exclusivity check per frame.
    private func prepareFrames(_ b: Batch, _ linkType: LinkType?, _ cache: inout Radiotap.LayoutCache) {
        guard let linkType else { return }
        var frames = b.frames
        b.frames = []
        _ = b.forEachRecord { r in
            frames.append(CaptureFrame(linkType: linkType, timestampNs: r.timestampNs, packet: r.bytes, originalLength: r.originalLength, cache: &cache))
            return true
        }
        b.frames = frames
    }

    /// Reads up to `count` bytes at `offset` with `pread` (the stream libpcap reads through is not
    /// moved): as many as the file holds, 0 at its end, -1 on an error.
    func readBlock(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        guard let f = pcap_file(rawHandle) else { return -1 }
        let fd = fileno(f)
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n > 0 {
                done += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                return done > 0 ? done : -1
            }
        }
        return done
    }
}
