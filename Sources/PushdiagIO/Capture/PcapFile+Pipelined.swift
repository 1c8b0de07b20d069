private import CPcap
import Dispatch
import Foundation

/// Reading and analysing on two cores: a reader thread copies records from libpcap into one of
/// two batches while the caller analyses the other. On a large capture, reading (libpcap's
/// fread path) and analysis take about as long as each other, so overlapping them nearly halves
/// the time. Small files are read on one thread (`forEachRecord`).
extension PcapFile {
    /// A batch of records copied out of libpcap's buffer. Owned by one thread at a time: the
    /// reader between `empty.wait()` and `full.signal()`, the consumer between `full.wait()` and
    /// `empty.signal()`.
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
        init(batchBytes: Int) { batches = [Batch(capacity: batchBytes), Batch(capacity: batchBytes)] }
    }

    /// As `forEachRecord`, with libpcap read on a second thread. Records reach `body` in file
    /// order; an error reaches the caller after every record before it.
    @discardableResult
    public func forEachRecordPipelined(batchBytes: Int = 4 << 20, _ body: (CaptureRecord) -> Bool) throws(CaptureError) -> Int {
        let pipeline = Pipeline(batchBytes: max(batchBytes, 1 << 19))
        let reader = Thread { [self] in
            self.readBatches(pipeline)
            pipeline.done.signal()
        }
        reader.stackSize = 1 << 20
        reader.start()

        var n = 0
        var current = 0
        while true {
            let b = pipeline.batches[current]
            b.full.wait()
            for e in b.entries {
                n += 1
                let rec = CaptureRecord(
                    timestampNs: e.timestampNs, bytes: UnsafeRawBufferPointer(start: b.storage + e.offset, count: e.capturedLength),
                    originalLength: e.originalLength)
                if !body(rec) {
                    pipeline.cancelled = true
                    b.empty.signal()
                    pipeline.done.wait()
                    return n
                }
            }
            lastPipelinedPosition = b.position
            if b.finished {
                pipeline.done.wait()
                if let e = b.error { throw e }
                return n
            }
            b.empty.signal()
            current ^= 1
        }
    }

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
        while true {
            let b = pipeline.batches[current]
            b.empty.wait()
            if pipeline.cancelled {
                b.finished = true
                return
            }
            b.reset()
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
            fill: while true {
                let rc = pcap_next_ex(rawHandle, &header, &data)
                if rc == 1, let hdr = header?.pointee, let data {
                    read += 1
                    let ts = Int64(hdr.ts.tv_sec) &* 1_000_000_000 &+ Int64(hdr.ts.tv_usec)
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
            b.position = position
            let finished = b.finished
            b.full.signal()
            if finished { return }
            current ^= 1
        }
    }
}
