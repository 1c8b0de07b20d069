import PushdiagCore

/// The stalls for people, in `walk`'s and `heartbeat`'s text and on the walk's page: what each
/// bad heartbeat overlapped, how many each cause explains, which repeat, and the share this
/// machine caused itself.
public enum StallTextRenderer {
    /// One line of the summary ("9 bad heartbeats of 98 (6 lost, 3 slower than 38.9 ms): …").
    public static func headline(_ s: StallSummary) -> String {
        let slower =
            s.slowerThanMs.map { "slower than \(NumberText.format($0)) ms (p95 + \(NumberText.format(s.marginMs)) ms)" } ?? "slow: UNKNOWN (none answered)"
        var line = "\(s.bad) bad heartbeats of \(s.heartbeats) (\(s.lost) lost, \(s.bad - s.lost) \(slower))"
        if let own = s.ownShare { line += "; this machine's own scans: \(NumberText.format(NumberText.rounded(own * 100, places: 10)))%" }
        if s.scansRequested > 0 { line += "; --scan-every asked for \(s.scansRequested) scans, which cost \(s.fromRequestedScans)" }
        return line + "; \(s.scansSeen) scans seen on the interface"
    }

    public static func periodic(_ p: PeriodicStall) -> String {
        "\(p.cause.words) every \(NumberText.format(p.periodSeconds)) s (\(NumberText.count(p.occurrences, "time")), \(Timestamp.clock(p.first)) to \(Timestamp.clock(p.last)))"
    }

    public static func render(_ stalls: [Stall], _ s: StallSummary, indent: String = "  ") -> String {
        var out = "\n\(indent)stalls: " + headline(s) + "\n"
        guard !stalls.isEmpty else { return out }
        let causes = s.byCause.filter { $0.count > 0 }.map { "\($0.cause.rawValue) \($0.count)" }.joined(separator: ", ")
        out += "\(indent)  by cause: \(causes)\n"
        for p in s.periodic { out += "\(indent)  repeating: \(periodic(p))\n" }
        var t = TextTable([("sent", .left), ("round trip", .right), ("cause", .left), ("what overlapped it", .left)])
        for x in stalls {
            t.add([Timestamp.clock(x.time), x.rttMs.map { "\(NumberText.format($0)) ms" } ?? "lost", x.cause.rawValue, x.detail ?? x.cause.words])
        }
        return out + t.render(indent: indent + "  ")
    }
}
