// libFuzzer target: bytes as a pcapng file through the pipelined reader's block walker
// (PcapngBlocks). Every record must lie inside the bytes, and walking the bytes in two reads
// (split in the middle, resumed where the first stopped, as the reader does across batches)
// must give the same records and the same stop as walking them in one.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

struct Seen: Equatable {
    var ts: Int64
    var offset: Int
    var captured: Int
    var original: Int
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var whole = PcapngBlocks()
    var all: [Seen] = []
    let w = whole.walk(bytes, at: 0) { all.append(Seen(ts: $0, offset: $1, captured: $2, original: $3)) }
    precondition(w.length <= size && w.packets == all.count)
    for r in all { precondition(r.offset >= 0 && r.captured >= 0 && r.offset + r.captured <= w.length) }

    var parts = PcapngBlocks()
    var again: [Seen] = []
    let first = parts.walk(UnsafeRawBufferPointer(rebasing: bytes[0..<(size / 2)]), at: 0) {
        again.append(Seen(ts: $0, offset: $1, captured: $2, original: $3))
    }
    var stop = first.stop
    var length = first.length
    if case .failure = first.stop {
    } else {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[first.length...])
        let second = parts.walk(rest, at: Int64(first.length)) {
            again.append(Seen(ts: $0, offset: $1 + first.length, captured: $2, original: $3))
        }
        stop = second.stop
        length += second.length
    }
    precondition(again == all && stop == w.stop && length == w.length, "two reads differ from one")

    if size >= 16 {
        let trailer = UnsafeRawBufferPointer(rebasing: bytes[(size - 4)...]).loadUnaligned(as: UInt32.self)
        _ = whole.oversizedBlock(header: UnsafeRawBufferPointer(rebasing: bytes[0..<12]), trailer: trailer, at: 0, bufferBytes: 1 << 20)
    }
    if case .failure(let e) = w.stop { _ = e.description }
    return 0
}
