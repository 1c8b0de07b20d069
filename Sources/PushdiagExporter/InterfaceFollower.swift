import Foundation
import PushdiagCore
import PushdiagIO
import Synchronization

/// One wireless interface followed for as long as the exporter runs: an nl80211 sample every
/// interval (the last two make utilisation, retransmissions and signal, each with its source;
/// a value the driver does not give is `pushdiag_wifi_value_unknown` with the reason, never a
/// 0), and its connects, disconnects and roams as nl80211 announces them, graded by the walk's
/// limits; each sample also through the iPhone lens, and the interface's carrier and address
/// changes over rtnetlink into the stalls. Three threads: the sampler, the event follower and the
/// change follower. From a recording (`replay`) the first two go through the same decoders, as
/// fast as the recording answers, and stop at its end (the values then cover the whole recording,
/// as `wifi --replay` gives them); an nl80211 recording holds no changes.
public final class InterfaceFollower: Sendable {
    public let name: String
    let intervalSeconds: Double
    let limits: WalkThresholds
    let replay: String?
    let metrics: MetricSet
    let log: ExporterLog
    let workers = Workers()
    let stalls: StallWatch

    init(
        name: String, intervalSeconds: Double, limits: WalkThresholds, replay: String?, metrics: MetricSet, log: ExporterLog, stalls: StallWatch = StallWatch()
    ) {
        self.stalls = stalls
        self.name = name
        self.intervalSeconds = intervalSeconds
        self.limits = limits
        self.replay = replay
        self.metrics = metrics
        self.log = log
    }

    var isStopped: Bool { workers.isStopped }

    public func start() {
        metrics.gauge(MetricFamily.wifiUp).set(0.0)
        _ = metrics.counter(MetricFamily.disconnects)
        for g in [Severity.ok, .warning, .critical] {
            for r in RoamResult.allCases { _ = metrics.counter(MetricFamily.roams, [("grade", g.rawValue), ("result", r.rawValue)]) }
        }
        _ = metrics.histogram(MetricFamily.roamGap)
        for s in FastTransitionFailure.Stage.allCases { _ = metrics.counter(MetricFamily.fastTransitionFailures, [("stage", s.rawValue)]) }
        workers.start("wifi \(name)", [("samples", sampleLoop), ("events", eventLoop), ("changes", changeLoop)])
    }

    public func stop(waitSeconds seconds: Double = 5, remove: Bool) {
        workers.stop(waitSeconds: seconds)
        if remove {
            metrics.removeAll()
            log.forget("wifi \(name)")
            log.forget("wifi \(name) events")
            log.forget("wifi \(name) changes")
        }
    }

    /// Waits `seconds` unless stopped; false when stopped.
    func pause(_ seconds: Double) -> Bool { workers.pause(ms: seconds * 1000) }

    // MARK: Samples

    func sampleLoop() {
        let subject = "wifi \(name)"
        var client: NL80211Client?
        var transport: NetlinkTransport?
        var iface: NL80211.Interface?
        var scan: [NL80211.ScanBSS] = []
        var scanAt: Int64 = 0
        var previous: WiFiSample?
        var driver: String?
        while !isStopped {
            do {
                if client == nil {
                    let t = try NetlinkSource.open(protocol: Netlink.protocolGeneric, record: nil, replay: replay).0
                    transport = t
                    client = try NL80211Client(transport: t)
                    previous = nil
                    // sysfs's driver, once per socket (a replay knows none).
                    driver = replay == nil ? DriverName.of(interface: name) : nil
                }
                let c = client!
                // Asked in the order `wifi` asks (so its recordings replay here): the interface
                // and the scan once, then samples; live, the scan again before each sample (a
                // roam changes the BSS).
                if iface == nil || replay == nil {
                    iface = try WiFiSampler.chooseInterface(c, name: name)
                    scan = try c.scan(ifindex: iface!.ifindex)
                    scanAt = transport?.lastReceived ?? 0
                }
                let sample = try WiFiSampler.sample(c, ifindex: iface!.ifindex, bssid: scan.first(where: \.associated)?.bssid)
                metrics.gauge(MetricFamily.wifiUp).set(1.0)
                if let previous {
                    let report = WiFiAnalysis.report(interface: iface!, samples: [previous, sample], scan: scan, thresholds: Thresholds(), driver: driver)
                    // A replay reads the cache once, at its start: the scans whose results came
                    // after it (the event follower's, as far as its thread has read) would make
                    // the moment depend on the threads' timing. It judges the entries alone.
                    let completed = replay == nil ? stalls.completedScans(ifindex: iface!.ifindex) : []
                    publish(report, scan: scan, readAt: scanAt, now: sample.time, driver: driver, completed: completed)
                    log.change(subject, "sampling")
                }
                // Live, each value covers the last interval; from a recording, the whole
                // recording (what `wifi --replay` reports of it).
                if replay == nil || previous == nil { previous = sample }
            } catch {
                // The end of a recording that gave samples is not a failure.
                if replay == nil || previous == nil { metrics.gauge(MetricFamily.wifiUp).set(0.0) }
                if replay != nil {
                    log.change(subject, previous == nil ? "failed: \(error)" : "the recording has no more samples; keeping the last values")
                    return
                }
                log.change(subject, "failed: \(error)")
                // A socket that failed may be the problem: a new one next time.
                client = nil
                iface = nil
                previous = nil
            }
            if replay == nil, !pause(intervalSeconds) { return }
        }
    }

    /// A sample's report and lens, which a scrape sees whole (`MetricSet.together`): a value and
    /// the word that it is unknown never both, nor neither.
    func publish(_ r: WiFiReport, scan: [NL80211.ScanBSS], readAt: Int64, now: Int64, driver: String?, completed: [CompletedScan] = []) {
        // Judged before the lock: a scrape waits only for the series to change.
        let m = lensMoment(r, scan: scan, readAt: readAt, now: now, driver: driver, completed: completed)
        metrics.together {
            publishValues(r)
            publishLens(m)
        }
    }

    /// The report's values, each with its source; a value it cannot give is said unknown.
    func publishValues(_ r: WiFiReport) {
        func value(_ what: String, _ unknown: String?, _ f: MetricFamily, _ labels: [(String, String)], _ v: Double?) {
            metrics.only(f, labels, v)
            metrics.only(MetricFamily.unknown, [("value", what), ("reason", unknown ?? "no value")], v == nil ? 1 : nil, scope: [("value", what)])
        }
        value(
            "utilization", r.utilizationUnknown, MetricFamily.utilization,
            [
                ("frequency_mhz", r.frequencyMhz.map(String.init) ?? ""), ("source", r.channelUtilizationSource?.rawValue ?? ""),
                ("trust", r.channelUtilizationTrust?.rawValue ?? ""),
            ], r.channelUtilizationPercent.map { $0 / 100 })
        value(
            "retransmission", r.retransmissionsUnknown, MetricFamily.retransmission,
            [("source", r.retransmissionSource?.rawValue ?? ""), ("trust", r.retransmissionTrust?.rawValue ?? "")], r.retransmissionPercent.map { $0 / 100 })
        metrics.only(MetricFamily.retransmissionFrames, [], r.retransmissionFrames.map { Double($0) })
        value("signal", r.signalUnknown, MetricFamily.signal, [("bssid", r.bssid?.description ?? "")], r.signalDbm.map(Double.init))
        metrics.only(MetricFamily.snr, [], r.snrDb.map(Double.init))
    }

    /// Through the iPhone's eyes (`IPhoneLens.moment`), at each sample: whether an iPhone on
    /// this BSS would roam now, its best candidate's margin, and the coverage counts, from scan
    /// cache entries within the lens's age limit and the scans whose results the event follower
    /// saw (`completed`; pushdiag asks for no scan here: the system's own scans fill the cache).
    /// Every entry of the read, of any SSID (the co-channel count's), with its age, its signal as
    /// far as the driver's profile believes it (walk's view).
    func lensMoment(_ r: WiFiReport, scan: [NL80211.ScanBSS], readAt: Int64, now: Int64, driver: String?, completed: [CompletedScan]) -> IPhoneLens.Moment {
        let believed = driver.flatMap(DriverProfiles.profile)?.signal != .unreliable
        return IPhoneLens().moment(
            timeNs: now, bssid: r.bssid, ssid: r.ssid, freqMhz: r.frequencyMhz, signalDbm: r.signalDbm, readAtNs: min(readAt, now),
            entries: scan.map { WalkBSS($0, signalBelieved: believed) }, completed: completed)
    }

    /// The moment's values, or the word that they are unknown and why.
    func publishLens(_ m: IPhoneLens.Moment) {
        let unknown = m.unknown?.reason
        metrics.only(MetricFamily.unknown, [("value", "iphone_lens"), ("reason", unknown ?? "")], unknown == nil ? nil : 1, scope: [("value", "iphone_lens")])
        for (traffic, v) in [("true", m.roamWithTraffic), ("false", m.roamIdle)] {
            metrics.only(MetricFamily.lensRoam, [("traffic", traffic)], v.map { $0 ? 1 : 0 }, scope: [("traffic", traffic)])
        }
        metrics.only(MetricFamily.lensMargin, [], m.bestCandidateMarginDb)
        metrics.only(MetricFamily.coverageBSS, [], m.bssAbove67.map(Double.init))
        metrics.only(MetricFamily.cochannelBSS, [], m.cochannelAbove82.map(Double.init))
    }

    // MARK: Events

    func eventLoop() {
        let subject = "wifi \(name) events"
        while !isStopped {
            do {
                let transport = try NetlinkSource.open(protocol: Netlink.protocolGeneric, record: nil, replay: replay).0
                let client = try NL80211Client(transport: transport)
                let watcher = try RoamWatcher(client: client, transport: transport, interface: name, roamWindowSeconds: RoamTracker.defaultWindowSeconds)
                if let ifindex = watcher.only { watcher.onEvent = { [stalls] t, e in stalls.add(e, at: t, ifindex: ifindex) } }
                log.change(subject, "following")
                _ = try watcher.run(limitSeconds: nil, stop: { self.isStopped }, emit: { [self] e in event(e) })
                if replay != nil {
                    log.change(subject, "the recording has no more events")
                    return
                }
            } catch {
                log.change(subject, "failed: \(error)")
                if replay != nil { return }
            }
            if !pause(intervalSeconds) { return }
        }
    }

    /// The interface's carrier and address changes over rtnetlink, into the stalls (live only: a
    /// recording of nl80211 holds none).
    func changeLoop() {
        guard replay == nil else { return }
        let subject = "wifi \(name) changes"
        while !isStopped {
            let ifindex = if_nametoindex(name)
            if ifindex != 0 {
                do {
                    let watch = try WalkInterfaceWatch(transport: try LiveNetlink(protocol: Netlink.protocolRoute), ifindex: ifindex)
                    watch.onChange = { [stalls] c in stalls.add(c, ifindex: ifindex) }
                    log.change(subject, "following")
                    watch.start()
                    // Until stopped, failed, or the interface is gone or another (a driver reloaded).
                    while !isStopped && watch.failure == nil && if_nametoindex(name) == ifindex && pause(0.5) {}
                    watch.end()
                    watch.done.wait()
                    if let f = watch.failure { log.change(subject, "failed: \(f)") }
                } catch {
                    log.change(subject, "failed: \(error)")
                }
            } else {
                log.change(subject, "failed: no interface \(name)")
            }
            if !pause(intervalSeconds) { return }
        }
    }

    func event(_ e: WatchEvent) {
        // A failed fast transition comes on a roam (rejoined within the window) or on the connect
        // that ends the outage it began (rejoined later): counted on either.
        if let f = e.fastTransitionFailure {
            metrics.counter(MetricFamily.fastTransitionFailures, [("stage", f.stage.rawValue)]).increment()
        }
        switch e.event {
        case .disconnect:
            metrics.counter(MetricFamily.disconnects).increment()
        case .roam:
            let change = WalkLinkChange(e, fromBssid: e.fromBssid, fromSsid: e.previousSsid, toSsid: e.ssid)
            // The held sessions may not cross this interface: graded on the link alone.
            let (grade, why) = WalkAnalysis.grade(change, connection: .kept, t: limits)
            metrics.counter(MetricFamily.roams, [("grade", grade.rawValue), ("result", RoamResult(change).rawValue)]).increment()
            // A gap the kernel did not report is not observed: the roam is counted above, never a 0.
            if let gap = e.gapMs { metrics.histogram(MetricFamily.roamGap).record(gap / 1000) }
            log.line(
                "wifi \(name): roam \(e.fromBssid?.description ?? "?") → \(e.bssid?.description ?? "?")"
                    + "\(WalkAnalysis.gapText(change, t: limits).map { ", gap \($0) ms" } ?? ""), \(grade.rawValue): \(WalkAnalysis.reason(why))"
            )
        case .connect:
            guard let f = e.fastTransitionFailure else { break }
            log.line(
                "wifi \(name): connect \(e.bssid?.description ?? "?")"
                    + "\(e.gapMs.map { " after \(NumberText.format($0)) ms down" } ?? ""): 802.11r failed: \(WalkAnalysis.describe(f))"
            )
        }
    }
}
