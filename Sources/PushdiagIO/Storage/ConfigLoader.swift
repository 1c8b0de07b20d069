import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the TOML configuration into `PushdiagConfig`, naming the line and key of every problem.
public enum ConfigLoader {
    public static let defaultPath = "/etc/pushdiag/pushdiag.toml"

    /// Reads, parses and checks the file: what a survey would refuse, `config check` refuses too
    /// (a directory, a CA file that cannot be read), each named by its line and key.
    public static func load(path: String) throws(ConfigError) -> PushdiagConfig {
        func failure(_ message: String, line: Int? = nil, key: String? = nil) -> ConfigError {
            ConfigError(file: path, line: line, key: key, message: message)
        }
        let bytes: [UInt8]
        switch SmallFile.read(path, most: 1 << 20, what: "a configuration file") {
        case .success(let b): bytes = b
        case .failure(let f): throw failure(f.description)
        }
        let config = try ConfigParser.parse(bytes, file: path)
        for server in config.servers {
            if let ca = server.caFile, access(ca, R_OK) != 0 {
                throw failure("server \(server.host): cannot read the CA file \(ca): \(Errno.current)", line: server.line, key: "server.ca_file")
            }
        }
        return config
    }

    /// The configuration a command uses: `explicit` (`--config`, which must exist), else the
    /// default file when it exists, else none; with the path it came from.
    public static func load(explicit: String?) throws(ConfigError) -> (PushdiagConfig, String?) {
        if let explicit { return (try load(path: explicit), explicit) }
        if access(defaultPath, R_OK) == 0 { return (try load(path: defaultPath), defaultPath) }
        return (PushdiagConfig(), nil)
    }

    /// The configuration in `text` (named `file` in errors).
    public static func parse(_ text: String, file: String) throws(ConfigError) -> PushdiagConfig {
        try ConfigParser.parse(text, file: file)
    }
}
