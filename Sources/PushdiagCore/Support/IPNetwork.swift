/// An IPv4 or IPv6 network in CIDR notation (`10.40.0.0/16`, `2001:db8::/32`): an address whose
/// bits past the prefix are zero, and the prefix's length. An address alone is a network of one
/// (`/32`, `/128`).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    /// Nil when the length is more than the family has, or a bit past it is set.
    public init?(address: IPAddress, prefixLength: Int) {
        guard (0...address.bytes.count * 8).contains(prefixLength), Self.masked(address.bytes, prefixLength) == address.bytes else { return nil }
        self.address = address
        self.prefixLength = prefixLength
    }

    public var description: String { "\(address)/\(prefixLength)" }

    /// `ADDR/LEN` or an address alone; the problem in words when `text` is neither.
    public static func parse(_ text: String) -> Result<IPNetwork, Problem> {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return .failure(.notAnAddress(String(parts[0]))) }
        let most = address.bytes.count * 8
        guard parts.count == 2 else { return .success(IPNetwork(address: address, prefixLength: most)!) }
        guard parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let length = Int(parts[1]), length <= most else {
            return .failure(.badLength(String(parts[1]), most: most))
        }
        guard let network = IPNetwork(address: address, prefixLength: length) else {
            let base = IPAddress(bytes: masked(address.bytes, length))!
            return .failure(.bitsPastPrefix(IPNetwork(address: base, prefixLength: length)!))
        }
        return .success(network)
    }

    /// Whether `a` lies in the network. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the
    /// IPv4 address it carries, in both.
    public func contains(_ a: IPAddress) -> Bool {
        let a = a.unmapped
        let mine = address.unmapped
        // A mapped network keeps its place in the IPv4 space: ::ffff:0:0/104 is 0.0.0.0/8.
        let length = mine.bytes.count == address.bytes.count ? prefixLength : max(0, prefixLength - 96)
        return a.bytes.count == mine.bytes.count && Self.masked(a.bytes, length) == mine.bytes
    }

    /// `bytes` with every bit past the first `length` cleared.
    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { i, b in
            let kept = min(8, max(0, length - i * 8))
            return kept == 8 ? b : b & ~(0xFF >> UInt8(kept))
        }
    }

    /// Why a text is not a network.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAnAddress(String)
        case badLength(String, most: Int)
        /// The network with those bits cleared, which was probably meant.
        case bitsPastPrefix(IPNetwork)

        public var description: String {
            switch self {
            case .notAnAddress(let s): return "'\(s)' is not an IPv4 or IPv6 address"
            case .badLength(let s, let most): return "prefix length '\(s)' is not a whole number from 0 to \(most)"
            case .bitsPastPrefix(let n): return "bits are set past the /\(n.prefixLength) prefix (\(n)?)"
            }
        }
    }
}
