import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the TOML configuration into `PushdiagConfig`, naming the line and key of every problem.
public enum ConfigLoader {
    public static let defaultPath = "/etc/pushdiag/pushdiag.toml"

    public static func load(path: String) throws(ConfigError) -> PushdiagConfig {
        guard let f = fopen(path, "r") else {
            throw ConfigError(file: path, line: nil, key: nil, message: "cannot read: \(Errno.current)")
        }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            bytes += buf[0..<n]
            if bytes.count > 1 << 20 { break }
        }
        fclose(f)
        guard bytes.count <= 1 << 20 else { throw ConfigError(file: path, line: nil, key: nil, message: "larger than 1 MiB; not a configuration file") }
        return try ConfigParser.parse(bytes, file: path)
    }

    /// The configuration in `text` (named `file` in errors).
    public static func parse(_ text: String, file: String) throws(ConfigError) -> PushdiagConfig {
        try ConfigParser.parse(text, file: file)
    }
}
