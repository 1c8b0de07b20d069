import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file a command is given and reads whole (a configuration, a web configuration, join
/// limits, a recording's log): a directory or a device is refused by name, and at most `most`
/// bytes are read (a larger file is refused, not read on: /dev/zero would fill memory). A pipe
/// (`--config <(...)`) is read as a file is. Every failure is one line, its errno named.
public enum SmallFile {
    public struct Failure: Error, CustomStringConvertible {
        /// Without the path: "cannot read: no such file or directory (ENOENT)".
        public let description: String
    }

    /// The whole of `path`; `what` names what it should be ("a configuration file").
    public static func read(_ path: String, most: Int, what: String) -> Result<[UInt8], Failure> {
        let fd: Int32
        switch Syscall.retrying({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let d): fd = d
        case .failure(let e): return .failure(Failure(description: "cannot read: \(e)"))
        }
        let file = Descriptor(fd)
        var st = stat()
        guard fstat(file.rawValue, &st) == 0 else { return .failure(Failure(description: "cannot read: \(Errno.current)")) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return .failure(Failure(description: "is a directory, not \(what)"))
        case S_IFCHR, S_IFBLK: return .failure(Failure(description: "is a device, not \(what)"))
        default: break
        }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= most {
            let got = buf.withUnsafeMutableBytes { b in Syscall.retrying { Glibc.read(file.rawValue, b.baseAddress, b.count) } }
            switch got {
            case .success(0): return .success(bytes)
            case .success(let n): bytes += buf[0..<n]
            case .failure(let e): return .failure(Failure(description: "cannot read: \(e)"))
            }
        }
        return .failure(Failure(description: "larger than \(sizeText(most)); not \(what)"))
    }

    /// "1 MiB", "64 MiB", "1 GiB".
    static func sizeText(_ n: Int) -> String {
        n >= 1 << 30 && n % (1 << 30) == 0 ? "\(n >> 30) GiB" : n >= 1 << 20 && n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes"
    }
}
