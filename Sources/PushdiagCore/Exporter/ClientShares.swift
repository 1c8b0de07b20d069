/// What the exporter's limits per client count: each client address, and for an IPv6 client
/// also its /64, which may hold `subnetShares` times one address's share. A host that takes new
/// temporary addresses of its subnet (RFC 8981) gets no more than that; two hosts of one LAN
/// (two Prometheus replicas) each keep a share of their own. The connection share, /probe's
/// rate and the queued password checks all count so.
public enum ClientShares {
    public static let subnetShares = 2

    /// The keys a client counts under, with their shares: its address (1), and its /64
    /// (`subnetShares`) when it has one.
    public static func keys(client: String, subnet: String?) -> [(key: String, shares: Int)] {
        [(client, 1)] + (subnet.map { [($0, subnetShares)] } ?? [])
    }
}
