/// Connect only: every heartbeat is a new connection and its connect time the round trip.
/// Nothing is held, so nothing is sent on a connection: the session times its connects itself.
public struct TCPProtocol: PushProtocol {
    public init() {}
    public var name: String { "tcp" }
    public var summary: String { "tcp (connect only: every heartbeat is a new connection)" }
    public func defaultPort(tls: Bool) -> UInt16? { nil }
    public var modes: PushModes { [] }
    public var settings: Set<PushSetting> { [] }
    public func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient { Client() }

    struct Client: PushClient {
        mutating func heartbeat(_ n: Int) -> [UInt8] { [] }
        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent] { [] }
    }
}
