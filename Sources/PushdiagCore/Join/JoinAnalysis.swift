/// Events of one rejoin → its steps, each timed from the events that mark it; then the cycles →
/// statistics and grades. Pure: the same events always give the same report.
public enum JoinAnalysis {
    typealias Kind = JoinEvent.Kind

    /// One cycle's steps from its events, in any order (sources arrive on different threads;
    /// they are put in time order, ties kept as given). Duplicates count once: a step's end is
    /// the first event that ends it after its start.
    public static func cycle(_ number: Int, events raw: [JoinEvent], setup: JoinCycleSetup, thresholds: JoinThresholds = JoinThresholds()) -> JoinCycleReport {
        let events = raw.enumerated().sorted { ($0.element.timeNs, $0.offset) < ($1.element.timeNs, $1.offset) }.map(\.element)
        var b = CycleBuilder(events: events, setup: setup)
        b.linkSteps()
        b.keySteps()
        b.addressSteps()
        b.pushSteps()
        return b.report(number, thresholds: thresholds)
    }

    /// One cycle's events out of a run's (live or replayed, in any order): those of its window,
    /// after the addresses the cycle began with (the last one of each family added before it).
    public static func window(_ w: JoinLog.Window, of all: [JoinEvent]) -> [JoinEvent] {
        let before = [RTNetlink.afInet, RTNetlink.afInet6].compactMap { family in
            all.filter { e in e.timeNs < w.from && e.kind.address(family: family)?.added == true }.max { $0.timeNs < $1.timeNs }
        }.sorted { $0.timeNs < $1.timeNs }
        return before + all.filter { $0.timeNs >= w.from && $0.timeNs <= w.to }
    }

    /// The report over all cycles: per step statistics, the groups and push-ready graded at their
    /// slowest cycle, a finding for every cycle that did not reach push-ready.
    public static func report(
        interface: String, server: String, mode: String, cycles: [JoinCycleReport], thresholds: JoinThresholds, notes: [String] = [],
        apIdle: APIdleReport? = nil
    ) -> JoinReport {
        let summary = JoinStep.allCases.map { step in
            let reports = cycles.compactMap { $0.step(step) }
            var statuses: [String: Int] = [:]
            for s in JoinStepStatus.allCases { statuses[s.rawValue] = reports.filter { $0.status == s }.count }
            return JoinStepSummary(name: step, statuses: statuses, durations: JoinDurationStats(reports.compactMap(\.durationMs)))
        }
        var findings: [Finding] = []
        func grade(_ check: CheckName, _ row: ThresholdRow, _ values: [(Int, Double)], what: String) -> Severity? {
            guard let (cycle, worst) = values.max(by: { $0.1 < $1.1 }) else { return nil }
            guard let (severity, limit) = thresholds.grade(worst, row) else { return .ok }
            findings.append(
                Finding(
                    check: check, severity: severity, subject: "cycle \(cycle)", value: worst, threshold: limit, unit: row.unit,
                    source: "join",
                    message: "\(what) took \(NumberText.format(worst, beside: limit)) ms (limit \(NumberText.format(limit)) ms): \(row.hint)"
                ))
            return severity
        }
        let groups = JoinGroup.allCases.map { g in
            let values = cycles.compactMap { c in c.groups.first { $0.group == g }?.durationMs.map { (c.cycle, $0) } }
            return JoinGroupSummary(
                group: g, durations: JoinDurationStats(values.map(\.1)), warningMs: thresholds.warning(g.row), criticalMs: thresholds.critical(g.row),
                severity: grade(g.check, g.row, values, what: "the \(g) steps (\(g.steps.map(\.rawValue).joined(separator: ", ")))"))
        }
        let ready = cycles.compactMap { c in c.pushReadyMs.map { (c.cycle, $0) } }
        let readySeverity = grade(.pushReady, .pushReady, ready, what: "push-ready")
        for c in cycles where c.pushReadyMs == nil {
            let why = c.steps.first { $0.status == .failed }.map { "\($0.name) failed: \($0.detail)" } ?? "the cycle ended first"
            findings.append(
                Finding(
                    check: .pushReady, severity: .critical, subject: "cycle \(c.cycle)", value: nil, threshold: nil, unit: .ms, source: "join",
                    message: "never push-ready: \(why)"))
        }
        let stats = JoinDurationStats(ready.map(\.1))
        let slowest = summary.filter { $0.durations.p50Ms != nil }.max { $0.durations.p50Ms! < $1.durations.p50Ms! }
        findings += apIdle?.findings ?? []
        let status: Severity = cycles.isEmpty ? .unknown : findings.map(\.severity).max() ?? .ok
        return JoinReport(
            interface: interface, server: server, mode: mode, cycles: cycles, summary: summary, pushReady: stats,
            pushReadyWarningMs: thresholds.warning(.pushReady), pushReadyCriticalMs: thresholds.critical(.pushReady),
            pushReadySeverity: readySeverity, groups: groups,
            slowest: slowest?.name,
            slowestPercent: slowest.flatMap { s in stats.p50Ms.flatMap { $0 > 0 ? Kept.percent(s.durations.p50Ms! / $0 * 100) : nil } },
            apIdle: apIdle, findings: findings, notes: notes, status: status)
    }
}

/// Builds one cycle's steps in order; each step reads the events after the milestone before it.
struct CycleBuilder {
    typealias Kind = JoinEvent.Kind
    let events: [JoinEvent]
    let setup: JoinCycleSetup
    let origin: Int64
    let trigger: String
    var steps: [JoinStep: (status: JoinStepStatus, start: Int64?, end: Int64?, detail: String)] = [:]
    /// The last milestone reached: where the next step without a start event of its own starts.
    var last: Int64
    /// The step that failed: every later one is not reached.
    var failedAt: JoinStep?
    var notVisible: [JoinStep: String] = [:]
    var stepFailures: [JoinStep: String] = [:]
    var bssid: MACAddress?
    var maxIdle: BSSMaxIdle?
    var addressBefore: String?
    var address: String?
    /// The family the address and gateway steps follow: the push server's (the address the
    /// cycle resolved or connected to), IPv4 (DHCP's) when the cycle shows neither.
    let family: UInt8
    /// The push server's address as the cycle resolved or connected to it (nil when neither).
    let server: IPAddress?
    /// The association's end (nil when the link never came).
    var linkDone: Int64?
    var ended: Bool
    /// Where the push steps' events begin: the cycle's start, or the last time the push was made
    /// again (`pushAgain`), with why.
    let pushFrom: Int64
    let pushAgain: String?

    init(events: [JoinEvent], setup: JoinCycleSetup) {
        self.setup = setup
        let start = events.first { if case .cycleStart = $0.kind { true } else { false } }
        origin = start?.timeNs ?? events.first?.timeNs ?? 0
        if case .cycleStart(let how)? = start?.kind { trigger = how } else { trigger = "the first event" }
        self.events = events
        server =
            events.lazy.compactMap { e -> IPAddress? in
                switch e.kind {
                case .push(.resolved(let a)), .push(.tcpStarted(let a)): a.unmapped
                default: nil
                }
            }.first
        // Without one (the name did not resolve): IPv4 where the cycle has IPv4 addresses, IPv6
        // where it has only IPv6 ones (an IPv6-only network), so that the step that failed is
        // the one shown.
        let addressFamilies = Set(events.compactMap { e in [RTNetlink.afInet, RTNetlink.afInet6].first { e.kind.address(family: $0) != nil } })
        family = server?.family ?? (addressFamilies == [RTNetlink.afInet6] ? RTNetlink.afInet6 : RTNetlink.afInet)
        last = origin
        ended = events.contains { $0.kind == .cycleEnd }
        let again = events.last { e in if case .pushAgain = e.kind { e.timeNs >= start?.timeNs ?? .min } else { false } }
        pushFrom = again?.timeNs ?? origin
        if case .pushAgain(let why)? = again?.kind { pushAgain = why } else { pushAgain = nil }
        for e in events {
            if case .notVisible(let s, let why) = e.kind { notVisible[s] = notVisible[s] ?? why }
            // A failure of a push made again from its start is not this push's.
            if case .stepFailed(let s, let why) = e.kind, e.timeNs >= (s.isPushSession ? pushFrom : origin) {
                stepFailures[s] = stepFailures[s] ?? why
            }
        }
    }

    /// The first event at or after `t` that `match` takes, with its time.
    func first<T>(after t: Int64, before end: Int64 = .max, _ match: (Kind) -> T?) -> (time: Int64, value: T)? {
        for e in events where e.timeNs >= t && e.timeNs <= end {
            if let v = match(e.kind) { return (e.timeNs, v) }
        }
        return nil
    }

    func all<T>(after t: Int64, before end: Int64 = .max, _ match: (Kind) -> T?) -> [(time: Int64, value: T)] {
        events.compactMap { e in e.timeNs >= t && e.timeNs <= end ? match(e.kind).map { (e.timeNs, $0) } : nil }
    }

    mutating func set(_ s: JoinStep, _ status: JoinStepStatus, _ start: Int64? = nil, _ end: Int64? = nil, detail: String) {
        if let f = failedAt, status != .notUsed {
            steps[s] = (.notReached, nil, nil, "\(f) failed first")
            return
        }
        steps[s] = (status, start, end, detail)
        if status == .failed { failedAt = s }
        if status == .ok, let end { last = max(last, end) }
    }

    /// A step whose end never came: not visible when a source said so, else failed (or not
    /// reached when an earlier step failed: `set` decides).
    mutating func missing(_ s: JoinStep, _ why: String) {
        if let f = stepFailures[s] {
            set(s, .failed, detail: f)
        } else if let nv = notVisible[s] {
            set(s, .notVisible, detail: nv)
        } else {
            set(s, .failed, detail: why + (ended ? " before the cycle ended" : ""))
        }
    }

    // MARK: Link: scan, authentication, association

    mutating func linkSteps() {
        let assoc = first(after: origin) { k -> (MACAddress?, BSSMaxIdle?)? in
            if case .associated(let b, let s, let idle) = k, s ?? 0 == 0 { return (b, idle) }
            return nil
        }
        let connect = first(after: origin) { k -> MACAddress?? in
            if case .connected(let b, let s, let t) = k, s ?? 0 == 0, !t { return .some(b) }
            return nil
        }
        linkDone = assoc?.time ?? connect?.time
        let limit = linkDone ?? .max
        // The authentication the association followed, done at its exchange's last frame (SAE:
        // the confirm, after commits that may have been asked for a token): the last before the
        // association (an AP that refused the association after an earlier one, as one without
        // PMKSA caching refuses a cached PMKID, is followed by another).
        let auth = all(after: origin, before: limit) { k -> (MACAddress?, UInt16?)? in
            if case .authenticated(let b, let s, let alg, let seq) = k, Authentication.done(algorithm: alg, transaction: seq, status: s) { return (b, alg) }
            return nil
        }.last
        // Scan: the first TRIGGER_SCAN to the last scan's end before authentication.
        let scans = all(after: origin, before: limit) { $0 == .scanStarted ? () : nil }
        if let s0 = scans.first {
            let finishes = all(after: s0.time, before: auth?.time ?? limit) { k -> Bool? in
                if case .scanFinished(let aborted) = k { return aborted }
                return nil
            }
            if let f = finishes.last {
                let aborted = finishes.filter(\.value).count
                set(
                    .scan, .ok, s0.time, f.time,
                    detail: "TRIGGER_SCAN to NEW_SCAN_RESULTS" + (scans.count > 1 ? ", \(scans.count) scans" : "") + (aborted > 0 ? ", \(aborted) aborted" : "")
                )
            } else {
                missing(.scan, "no scan results after TRIGGER_SCAN")
            }
        } else if let nv = notVisible[.scan] {
            set(.scan, .notVisible, detail: nv)
        } else if linkDone != nil {
            set(.scan, .skipped, detail: "no scan: the manager went to a BSS it knew")
        } else {
            missing(.scan, "no scan and no association")
        }
        // Refusals on the way (a BSS that said no before one said yes).
        let refusals = all(after: origin, before: limit) { k -> String? in
            switch k {
            case .authenticated(_, let s?, let alg, _) where Authentication.refused(algorithm: alg, status: s): return "authentication refused (status \(s))"
            case .associated(_, let s?, _) where s != 0: return "association refused (status \(s))"
            case .connected(_, let s, let t) where t || s ?? 0 != 0: return t ? "connect timed out" : "connect refused (status \(s ?? 0))"
            default: return nil
            }
        }
        let refused = refusals.isEmpty ? "" : "; first \(refusals.map(\.value).joined(separator: ", "))"
        if let auth {
            bssid = auth.value.0
            let sae = AuthenticationAlgorithm.sae.matches(auth.value.1) ? " (SAE: commit and confirm)" : ""
            set(.authentication, .ok, last, auth.time, detail: "to AUTHENTICATE" + (auth.value.0.map { " from \($0)" } ?? "") + sae)
        } else if connect != nil && assoc == nil {
            set(.authentication, .notVisible, detail: "the driver authenticates and associates itself (full-MAC): one CONNECT event covers both")
        } else if assoc != nil {
            set(.authentication, .notVisible, detail: "no AUTHENTICATE event before ASSOCIATE")
        } else if let r = refusals.first {
            set(.authentication, .failed, detail: r.value)
        } else {
            // An exchange that stopped on the way (an SAE commit answered 76 and no commit after):
            // the AP's last answer says where.
            let answer = all(after: origin, before: limit) { k -> UInt16? in
                if case .authenticated(_, let s?, _, _) = k { return s }
                return nil
            }.last
            missing(.authentication, "no authentication" + (answer.map { " completed (the AP's last answer: status \($0.value))" } ?? ""))
        }
        if let assoc {
            bssid = assoc.value.0 ?? bssid
            // A period of 0 gives no limit to keep within: as if not advertised, not a safe
            // interval of 0 s.
            maxIdle = assoc.value.1.flatMap { $0.periodUnits > 0 ? $0 : nil }
            set(.association, .ok, last, assoc.time, detail: "to ASSOCIATE" + (assoc.value.0.map { " from \($0)" } ?? "") + refused)
        } else if let connect {
            bssid = connect.value ?? bssid
            set(.association, .ok, last, connect.time, detail: "to CONNECT" + (connect.value.map { " to \($0)" } ?? "") + refused)
        } else if let r = refusals.last {
            set(.association, .failed, detail: r.value)
        } else {
            missing(.association, "no association")
        }
    }

    // MARK: Keys: EAP, the 4-way handshake

    mutating func keySteps() {
        let from = linkDone ?? last
        // EAPOL on the interface (a packet socket), or only what the station sent over nl80211's
        // control port (its TX status events): then the AP's frames are not seen.
        let eaps = all(after: from) { k -> EAPPacket? in
            if case .eapol(.eap(let p)) = k { return p }
            if case .eapolSent(.eap(let p), _) = k { return p }
            return nil
        }
        let sentOnly = !events.contains { if case .eapol = $0.kind { true } else { false } }
        if let e0 = eaps.first {
            // The methods the AP asked for (or, seeing only the station's side, answered with).
            let methods = eaps.compactMap { $0.value.code == (sentOnly ? .response : .request) ? $0.value.type.map(EAPPacket.typeName) : nil }
            let named = methods.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: ", ")
            if sentOnly, let lastResponse = eaps.last {
                // EAP-Success and EAP-Failure are the AP's: what shows success is the station's
                // 4-way message 2 after its last response (the AP sent message 1, so the keys came).
                let keysFollowed = first(after: lastResponse.time) { k -> Bool? in
                    if case .eapolSent(.key(let key), _) = k, key.message == .pairwise(2) { return true }
                    return nil
                }
                let seenThere = "nl80211's control-port TX status; the AP's requests, EAP-Success and EAP-Failure are not seen there"
                if keysFollowed != nil {
                    set(
                        .eap, .ok, e0.time, lastResponse.time,
                        detail: "\(named.isEmpty ? "EAP" : named): the station's first to last response acknowledged (\(seenThere))")
                } else {
                    set(.eap, .failed, detail: "\(named.isEmpty ? "EAP" : named): no 4-way handshake after the station's last response (\(seenThere))")
                }
            } else if let ok = eaps.first(where: { $0.value.code == .success }) {
                set(.eap, .ok, e0.time, ok.time, detail: "\(named.isEmpty ? "EAP" : named) to EAP-Success")
            } else if eaps.contains(where: { $0.value.code == .failure }) {
                set(.eap, .failed, detail: "EAP-Failure after \(named.isEmpty ? "EAP" : named)")
            } else {
                missing(.eap, "no EAP-Success after \(named.isEmpty ? "EAP" : named)")
            }
        } else if let nv = notVisible[.eap] {
            set(.eap, .notVisible, detail: nv)
        } else {
            set(.eap, .notUsed, detail: "no EAP packets: a pre-shared key, an open network, or 802.1X skipped with a cached PMK (PMKSA caching)")
        }
        let start = last
        let messages = all(after: from) { k -> EAPOLKey.Message? in
            if case .eapol(.key(let key)) = k { return key.message }
            if case .eapolSent(.key(let key), _) = k { return key.message }
            return nil
        }
        let m4 = messages.first { $0.value == .pairwise(4) && $0.time >= start }
        let m4Acked = first(after: start) { k -> Bool? in
            if case .eapolSent(.key(let key), let acked) = k, key.message == .pairwise(4) { return acked }
            return nil
        }
        let port = first(after: start) { $0 == .portAuthorized ? () : nil }
        let up = first(after: start) { $0 == .operstate(6) ? () : nil }
        var seen = ""
        let pairwise = messages.compactMap { if case .pairwise(let n) = $0.value { n } else { nil } }
        if !pairwise.isEmpty {
            let again = Set(pairwise.filter { n in pairwise.filter { $0 == n }.count > 1 })
            seen = "; messages " + Array(Set(pairwise)).sorted().map(String.init).joined(separator: ", ") + " seen"
            if !again.isEmpty { seen += " (\(again.sorted().map { "message \($0)" }.joined(separator: ", ")) sent more than once)" }
        }
        if let m4, let acked = m4Acked, acked.time == m4.time {
            let how = acked.value ? "acknowledged by the AP" : "sent, not acknowledged"
            set(.keyHandshake, .ok, start, m4.time, detail: "to 4-way message 4 \(how) (nl80211's control-port TX status)" + seen)
        } else if let m4 {
            set(.keyHandshake, .ok, start, m4.time, detail: "to 4-way message 4" + seen)
        } else if let port {
            set(.keyHandshake, .ok, start, port.time, detail: "to PORT_AUTHORIZED (the driver's own handshake)" + seen)
        } else if let up {
            set(.keyHandshake, .ok, start, up.time, detail: "to operstate up (the supplicant authorized the port)" + seen)
        } else {
            missing(.keyHandshake, "no message 4, port authorization or operstate up" + seen)
        }
    }

    // MARK: Address: DHCP, the address, the gateway

    mutating func addressSteps() {
        let from = linkDone ?? last
        // The address before: the last one added before the cycle; gone when a removal followed
        // it (udhcpc deconfigures on the disconnect, before or after the cycle's start).
        let family = family
        func added(_ k: Kind) -> String? { k.address(family: family).flatMap { $0.added ? $0.text : nil } }
        func removal(_ k: Kind) -> String? { k.address(family: family).flatMap { $0.added ? nil : $0.text } }
        let baseline = events.last { e in e.timeNs < origin && added(e.kind) != nil }
        addressBefore = baseline.flatMap { added($0.kind) }
        let removed = first(after: baseline.map { $0.timeNs + 1 } ?? .min, removal)
        if let removed { addressBefore = addressBefore ?? removed.value }
        // The address on the interface when the link became usable (the keys' end; the last change
        // before it an addition: a previous cycle's DHCP client may have added it back after this
        // one began), and not removed since: kept.
        let usable = last
        func kept(_ family: UInt8) -> Bool {
            let lastChange = events.last { e in e.timeNs < usable && e.kind.address(family: family) != nil }
            let removedSinceLink = first(after: usable) { $0.address(family: family).flatMap { $0.added ? nil : () } }
            return removedSinceLink == nil && linkDone != nil && lastChange.flatMap { $0.kind.address(family: family)?.added } == true
        }
        let removedSinceLink = first(after: usable, removal)
        let addressKept = kept(family)
        // DHCP is IPv4's: its lease kept is the IPv4 address kept, whatever the push's family.
        let leaseKept = kept(RTNetlink.afInet)
        // The station's own exchange: another device's DISCOVER, broadcast through the AP, is not.
        let dhcp = all(after: from) { k -> DHCPMessage? in
            if case .dhcp(let m) = k, m.isOf(setup.station) { return m }
            return nil
        }
        let client = dhcp.first { $0.value.messageType?.fromClient == true && $0.value.messageType != .release }
        var dhcpEnd: Int64?
        // The ACK's router (option 3): the gateway whose neighbour entry the gateway step waits for.
        var router: IPAddress?
        if let client {
            // The station's messages from its first on, whatever their xid when the station is
            // known (a NAK'd REQUEST, then a DISCOVER of a new xid, as RFC 2131 has a client
            // start again), up to the first ACK; else the first message's xid alone.
            var exchange = dhcp.filter { $0.time >= client.time && (setup.station != nil || $0.value.xid == client.value.xid) }
            if let end = exchange.firstIndex(where: { $0.value.messageType == .ack }) { exchange = Array(exchange[...end]) }
            let names = exchange.compactMap { $0.value.messageType?.description }
            var sequence: [String] = []
            for n in names where sequence.last != n { sequence.append(n) }
            let discovers = names.filter { $0 == "DISCOVER" }.count
            let note = discovers > 1 ? " (\(discovers) DISCOVERs)" : ""
            if let ack = exchange.first(where: { $0.value.messageType == .ack }) {
                dhcpEnd = ack.time
                // RFC 3442: with classless static routes (option 121) the client ignores option 3.
                router = ack.value.classlessRoutes ? nil : ack.value.router
                let lease = ack.value.leaseSeconds.map { ", lease \($0) s" } ?? ""
                let kind = client.value.messageType == .request ? " (the client asked for its lease again)" : ""
                set(
                    .dhcp, .ok, client.time, ack.time,
                    detail: sequence.joined(separator: ", ") + note + (ack.value.yourAddress.map { ": \($0)" } ?? "") + lease + kind)
            } else if exchange.contains(where: { $0.value.messageType == .nak }) {
                set(.dhcp, .failed, detail: "the server refused: " + sequence.joined(separator: ", "))
            } else {
                missing(.dhcp, "no ACK after " + sequence.joined(separator: ", ") + note)
            }
        } else if let nv = notVisible[.dhcp] {
            set(.dhcp, .notVisible, detail: nv)
        } else if leaseKept {
            set(.dhcp, .skipped, detail: "no DHCP exchange: the address and its lease were kept")
        } else if family == RTNetlink.afInet6 {
            set(.dhcp, .notUsed, detail: "no DHCP exchange: the push goes over IPv6, and DHCP gives IPv4 addresses")
        } else {
            missing(.dhcp, "no DHCP exchange")
        }
        // Not before the last milestone (DHCP's ACK, or the keys): an address added earlier came
        // from an exchange before this cycle's.
        let addressFrom = max(last, dhcpEnd ?? from, removedSinceLink?.time ?? from)
        if let new = first(after: addressFrom, added) {
            address = new.value
            let change = addressBefore.map { $0 == new.value ? "" : " (was \($0))" } ?? ""
            set(.address, .ok, last, new.time, detail: "RTM_NEWADDR \(new.value)" + change)
        } else if addressKept {
            address = addressBefore
            set(.address, .skipped, detail: "the address stayed" + (addressBefore.map { " (\($0))" } ?? ""))
        } else {
            missing(.address, "no address" + (removed.map { " after \($0.value) went" } ?? ""))
        }
        // The router the DHCP ACK named, when this cycle's had one; else a neighbour of the
        // same family (an IPv6 router's fe80:: entry is no IPv4 push's gateway; an on-link DNS
        // server turning REACHABLE first is then taken, which only the ACK tells apart).
        // (The push server itself stands for it too: one on the station's subnet is reached
        // without the router.)
        let gatewayAddress = family == RTNetlink.afInet ? router : nil
        let gateway = first(after: last) { k -> IPAddress? in
            if case .gateway(let a, .reachable) = k, a.family == family, gatewayAddress.map({ $0 == a || a == server }) ?? true { return a }
            return nil
        }
        if let gateway {
            set(.gateway, .ok, last, gateway.time, detail: "\(gateway.value) reachable")
        } else if let nv = notVisible[.gateway] {
            set(.gateway, .notVisible, detail: nv)
        } else if failedAt != nil {
            set(.gateway, .notReached, detail: "")
        } else {
            let named = gatewayAddress.map { " \($0) (the DHCP ACK's router)" } ?? ""
            set(.gateway, .notVisible, detail: "no REACHABLE neighbour event for the gateway\(named) (an entry still valid from before shows none)")
        }
    }

    // MARK: Push: DNS, TCP, TLS, hello, first heartbeat

    mutating func pushSteps() {
        func milestone(_ m: JoinEvent.PushMilestone) -> Int64? { first(after: pushFrom) { $0 == .push(m) ? () : nil }?.time }
        let resolveStart = first(after: pushFrom) { k -> String? in
            if case .push(.resolveStarted(let n)) = k { return n }
            return nil
        }
        let resolved = first(after: resolveStart?.time ?? pushFrom) { k -> IPAddress? in
            if case .push(.resolved(let a)) = k { return a }
            return nil
        }
        if !setup.resolvesName {
            set(.dns, .notUsed, detail: "the server is an address")
        } else if let s = resolveStart, let r = resolved {
            set(.dns, .ok, s.time, r.time, detail: "\(s.value) → \(r.value)" + servers(from: s.time, to: r.time))
        } else {
            missing(.dns, "no answer for the server's name")
        }
        let tcpStart = first(after: pushFrom) { k -> IPAddress? in
            if case .push(.tcpStarted(let a)) = k { return a }
            return nil
        }
        let connected = milestone(.tcpConnected)
        let again = pushAgain.map { "; the push made again: \($0)" } ?? ""
        // The station's port of the connection, when its SYN was seen.
        var port: UInt16?
        if let s = tcpStart, let c = connected, c >= s.time {
            let server = s.value
            if let syn = segment(from: max(s.time &- Self.wireSlackNs, pushFrom), to: c, { $0.syn && !$0.ack && $0.destination == server }),
                let synAck = segment(from: syn.time, to: c, { $0.syn && $0.ack && $0.source == server && $0.destinationPort == syn.value.sourcePort })
            {
                port = syn.value.sourcePort
                set(.tcpConnect, .ok, syn.time, synAck.time, detail: "to \(server), SYN to SYN-ACK on the wire" + again)
            } else {
                set(.tcpConnect, .ok, s.time, c, detail: "to \(server)" + again)
            }
        } else {
            missing(.tcpConnect, "no connection")
        }
        var before = connected
        if !setup.tls {
            set(.tls, .notUsed, detail: "the server speaks plain TCP")
        } else if let c = connected, let t = milestone(.tlsDone), stepFailures[.tls] == nil {
            // A handshake whose result the options refused (a certificate not trusted, a pin
            // not matched) is a failed step, not a done one.
            set(.tls, .ok, c, t, detail: "handshake")
            before = t
        } else {
            missing(.tls, "no TLS handshake")
        }
        if !setup.hello {
            set(.hello, .notUsed, detail: "the protocol has no hello")
        } else if let b = before, let h = milestone(.helloDone) {
            set(.hello, .ok, b, h, detail: "the protocol's hello answered")
            // The heartbeat's segments come after the hello's (on a LAN within the slack).
            before = h
        } else {
            missing(.hello, "no answer to the protocol's hello")
        }
        if let s = milestone(.heartbeatSent), let a = first(after: s, { $0 == .push(.heartbeatAnswered) ? () : nil })?.time {
            // On a plain connection the heartbeat and its answer are the first data each way
            // after it was sent (through TLS a record may be a session ticket: pushdiag's own
            // times stand there).
            if !setup.tls, let port, let server = tcpStart?.value,
                let out = segment(
                    from: max(s &- Self.wireSlackNs, before ?? s), to: a, { $0.payloadLength > 0 && $0.destination == server && $0.sourcePort == port }),
                let back = segment(from: out.time, to: a, { $0.payloadLength > 0 && $0.source == server && $0.destinationPort == port })
            {
                set(.firstHeartbeat, .ok, out.time, back.time, detail: "answered: push-ready (its segments on the wire)")
            } else {
                set(.firstHeartbeat, .ok, s, a, detail: "answered: push-ready")
            }
        } else {
            missing(.firstHeartbeat, "no answer to the first heartbeat")
        }
    }

    /// How far the kernel's time of a packet may lie before pushdiag's stamp taken before the
    /// system call that sent it, and after the stamp taken once the call returned: one clock,
    /// the slack covers the anchoring of pushdiag's to the kernel's wall clock.
    static let wireSlackNs: Int64 = 5_000_000

    /// The first TCP segment between `from` and `to` (plus the slack) that `match` takes.
    func segment(from a: Int64, to b: Int64, _ match: (TCPSegment) -> Bool) -> (time: Int64, value: TCPSegment)? {
        first(after: a, before: b.addingSaturated(Self.wireSlackNs)) { k -> TCPSegment? in
            if case .tcp(let s) = k, match(s) { return s }
            return nil
        }
    }

    /// The DNS servers asked between `start` and `end`: each query paired with its answer by
    /// identifier and name.
    func servers(from start: Int64, to end: Int64) -> String {
        let seen = all(after: start, before: end) { k -> (DNSMessage, IPAddress)? in
            if case .dns(let m, let server) = k { return (m, server) }
            return nil
        }
        var parts: [String] = []
        for q in seen where !q.value.0.isResponse {
            let answer = seen.first { $0.time >= q.time && $0.value.0.isResponse && $0.value.0.id == q.value.0.id && $0.value.0.name == q.value.0.name }
            let ms = answer.map { NumberText.format(Kept.ms(ns: $0.time - q.time)) + " ms" } ?? "no answer"
            let rcode = answer.map { " " + DNSMessage.rcodeName($0.value.0.rcode) } ?? ""
            parts.append("\(q.value.1)\(rcode) \(ms)")
        }
        return parts.isEmpty ? "" : "; asked " + parts.joined(separator: ", ")
    }

    // MARK: The report

    func report(_ number: Int, thresholds: JoinThresholds) -> JoinCycleReport {
        let reports = JoinStep.allCases.map { s in
            let v = steps[s] ?? (.notReached, nil, nil, "")
            return JoinStepReport(
                name: s, start: v.start.map { Timestamp.rfc3339(nanoseconds: $0) }, offsetMs: v.start.map { Kept.ms(ns: $0 - origin) },
                durationMs: v.status == .ok ? v.start.flatMap { st in v.end.map { Kept.ms(ns: $0 - st) } } : nil, status: v.status, detail: v.detail)
        }
        let readyEnd = steps[.firstHeartbeat].flatMap { $0.status == .ok ? $0.end : nil }
        let pushReady = readyEnd.map { Kept.ms(ns: $0 - origin) }
        let slowest = reports.filter { $0.durationMs != nil }.max { $0.durationMs! < $1.durationMs! }
        var severity: Severity = pushReady == nil ? .critical : .ok
        let groups = JoinGroup.allCases.map { g -> JoinGroupValue in
            let mine = reports.filter { $0.name.group == g }
            let visible = mine.allSatisfy { [.ok, .skipped, .notUsed].contains($0.status) } && mine.contains { $0.status == .ok }
            let value = visible ? Kept.ms(mine.compactMap(\.durationMs).reduce(0, +)) : nil
            let grade = value.map { thresholds.grade($0, g.row)?.0 ?? .ok }
            if let grade { severity = max(severity, grade) }
            return JoinGroupValue(group: g, durationMs: value, severity: grade)
        }
        if let pushReady { severity = max(severity, thresholds.grade(pushReady, .pushReady)?.0 ?? .ok) }
        return JoinCycleReport(
            cycle: number, start: Timestamp.rfc3339(nanoseconds: origin), trigger: trigger, pushReadyMs: pushReady, steps: reports, slowest: slowest?.name,
            slowestPercent: slowest.flatMap { s in pushReady.flatMap { $0 > 0 ? Kept.percent(s.durationMs! / $0 * 100) : nil } },
            bssid: bssid,
            bssMaxIdleS: maxIdle.map { Kept.seconds($0.seconds) }, addressBefore: addressBefore, address: address,
            addressChanged: addressBefore != nil && address != nil && addressBefore != address, groups: groups, severity: severity)
    }
}
