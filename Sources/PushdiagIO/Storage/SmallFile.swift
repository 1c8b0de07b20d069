import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file a command is given and reads whole (a configuration, a web configuration, join
/// limits, a recording's log), opened once: a directory is refused by name, a regular file
/// larger than `most` bytes is refused unread (its size from fstat), and a pipe or a device
/// (`--config <(...)`, /dev/stdin, /dev/null) is read up to `most`, and at most 64 MiB, then
/// refused (/dev/zero would fill memory). Every failure is one line, its errno named.
public enum SmallFile {
    public struct Failure: Error, CustomStringConvertible {
        /// Without the path: "cannot read: no such file or directory (ENOENT)".
        public let description: String
    }

    /// The most read from a pipe or a device, whose size is not known before.
    public static let mostUnsized = 64 << 20
    /// The largest recording's log a replay reads (join.jsonl, push.jsonl: 24 days of a walk's
    /// heartbeats every 250 ms fit in it).
    public static let mostRecordingLog = 1 << 30

    /// The whole of `path`; `what` names what it should be ("a configuration file"). With
    /// `stopAt`, reading stops once the bytes read start with it (a history: SQLite opens it
    /// by its path), and those are returned.
    public static func read(_ path: String, most: Int, what: String, stopAt prefix: [UInt8] = []) -> Result<[UInt8], Failure> {
        let fd: Int32
        switch Syscall.retrying({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let d): fd = d
        case .failure(let e): return .failure(Failure(description: "cannot read: \(e)"))
        }
        let file = Descriptor(fd)
        var st = stat()
        guard fstat(file.rawValue, &st) == 0 else { return .failure(Failure(description: "cannot read: \(Errno.current)")) }
        var bound = most
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return .failure(Failure(description: "is a directory, not \(what)"))
        case S_IFREG:
            let starts = !prefix.isEmpty && peek(file, prefix.count) == prefix
            if !starts, Int(st.st_size) > most { return .failure(Failure(description: "larger than \(sizeText(most)); not \(what)")) }
        default: bound = min(most, mostUnsized)
        }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= bound {
            if !prefix.isEmpty, bytes.count >= prefix.count, bytes.starts(with: prefix) { return .success(bytes) }
            let got = buf.withUnsafeMutableBytes { b in Syscall.retrying { Glibc.read(file.rawValue, b.baseAddress, b.count) } }
            switch got {
            case .success(0): return .success(bytes)
            case .success(let n): bytes += buf[0..<n]
            case .failure(let e): return .failure(Failure(description: "cannot read: \(e)"))
            }
        }
        if !prefix.isEmpty, bytes.starts(with: prefix) { return .success(bytes) }
        return .failure(Failure(description: "larger than \(sizeText(bound)); not \(what)"))
    }

    /// The first `n` bytes of a regular file, read without moving its offset.
    static func peek(_ file: Descriptor, _ n: Int) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: n)
        let got = head.withUnsafeMutableBytes { pread(file.rawValue, $0.baseAddress, n, 0) }
        return got == n ? head : []
    }

    /// "1 MiB", "64 MiB", "1 GiB".
    static func sizeText(_ n: Int) -> String {
        n >= 1 << 30 && n % (1 << 30) == 0 ? "\(n >> 30) GiB" : n >= 1 << 20 && n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes"
    }
}
