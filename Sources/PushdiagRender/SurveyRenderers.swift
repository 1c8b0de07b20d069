import Foundation
import PushdiagCore

/// The survey's verdict table, for a field engineer on site.
public struct SurveyTextRenderer {
    public init() {}

    public func render(_ r: SurveyReport) -> String {
        var t = TextTable([("CHECK", .left), ("SUBJECT", .left), ("VALUE", .right), ("WARN / CRIT", .left), ("STATUS", .left), ("WHAT TO DO", .left)])
        for c in r.checks {
            let value = c.value.map { NumberText.format($0) + (c.unit?.suffix ?? "") } ?? "-"
            t.add([c.check.rawValue, c.subject, value, c.threshold?.description ?? "-", c.status.rawValue.uppercased(), c.hint])
        }
        let counts = [CheckStatus.critical, .warning, .unknown, .ok, .skipped].compactMap { s -> String? in
            let n = r.checks.filter { $0.status == s }.count
            return n > 0 ? "\(n) \(s.rawValue)" : nil
        }
        return
            "pushdiag survey \(r.started), \(NumberText.format(r.durationSeconds)) s\(r.interrupted == true ? " (interrupted)" : ""): \(r.status.rawValue.uppercased()) (\(counts.joined(separator: ", ")))\n\n"
            + t.render()
    }
}

/// Monitoring Plugins output: one status line, then performance data
/// `'label'=value[UOM];warn;crit;min;max` in the C locale.
public struct SurveyNagiosRenderer {
    public init() {}

    static func label(_ c: SurveyCheck) -> String {
        let raw = "\(c.check) \(c.subject)"
        var out = ""
        for ch in raw {
            if ch.isLetter || ch.isNumber || ch == "." || ch == "-" { out.append(ch) } else if out.last != "_" { out.append("_") }
        }
        while out.last == "_" { out.removeLast() }
        return out
    }

    /// `failures`: outputs `report` could not write (its history, its textfile): the status is
    /// UNKNOWN at least, as the exit code is, and the line says why first.
    public func render(_ r: SurveyReport, failures: [String] = []) -> String {
        let bad = r.checks.filter { $0.status == .critical || $0.status == .warning || $0.status == .unknown }
        let checks =
            bad.isEmpty
            ? "\(r.checks.filter { $0.status == .ok }.count) checks OK"
            : bad.map { "\($0.check) \($0.subject) \($0.status.rawValue.uppercased())" + ($0.value.map { " \(NumberText.format($0))" } ?? "") }.joined(
                separator: ", ")
        let summary = (failures + [checks]).joined(separator: "; ")
        let status = failures.isEmpty ? r.status : max(r.status, .unknown)
        var perf: [String] = []
        var labels: Set<String> = []
        for c in r.checks {
            guard let v = c.value else { continue }
            // Subjects are distinct, but two may differ only in characters a label cannot hold.
            let base = Self.label(c)
            var label = base
            var n = 1
            while !labels.insert(label).inserted {
                n += 1
                label = "\(base)_\(n)"
            }
            let uom = c.unit == .percent ? "%" : ""
            let (w, cr) = c.threshold.map { ($0.warning.description, $0.critical.description) } ?? ("", "")
            perf.append("'\(label)'=\(NumberText.format(v))\(uom);\(w);\(cr);\(uom == "%" ? "0;100" : ";")")
        }
        return "PUSHDIAG \(status.rawValue.uppercased()) - \(summary)" + (perf.isEmpty ? "" : " | " + perf.joined(separator: " ")) + "\n"
    }
}

/// The Prometheus text exposition format (version 0.0.4), metric names prefixed pushdiag_ and in
/// base units (ratios, seconds).
public struct SurveyPrometheusRenderer {
    public init() {}

    public func render(_ r: SurveyReport, timestampMs: Int64? = nil) -> String {
        var families = PrometheusFamilies()
        func add(_ name: String, _ help: String, type: String = "gauge", _ labels: [(String, String)], _ value: Double) {
            families.add(name, help, type: type, labels, value)
        }
        let statusValue: (CheckStatus) -> Double = { s in
            switch s {
            case .ok, .skipped: return 0
            case .warning: return 1
            case .critical: return 2
            case .unknown: return 3
            }
        }
        add("pushdiag_status", "Worst check status of the survey (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).", [], Double(r.status.exitCode))
        for c in r.checks where c.status != .skipped {
            add(
                "pushdiag_check_status", "Status of each check (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).",
                [("check", c.check.rawValue), ("subject", c.subject)],
                statusValue(c.status))
        }
        let successHelp = "1 when every instance of the check is OK; for heartbeats, one series per push server (target)."
        for check in Set(r.checks.filter { $0.status != .skipped }.map(\.check)).sorted(by: { $0.rawValue < $1.rawValue }) where check != .heartbeat {
            let ok = r.checks.filter { $0.check == check && $0.status != .skipped }.allSatisfy { $0.status == .ok }
            add("pushdiag_probe_success", successHelp, [("check", check.rawValue)], ok ? 1 : 0)
        }
        // A push server that is down must be visible by name: its own success series.
        for c in r.checks where c.check == .heartbeat && c.status != .skipped {
            add("pushdiag_probe_success", successHelp, [("check", CheckName.heartbeat.rawValue), ("target", c.subject)], c.status == .ok ? 1 : 0)
        }
        if let w = r.wifi {
            if let u = w.channelUtilizationPercent {
                families.add(
                    MetricFamily.utilization,
                    [
                        ("interface", w.interface), ("frequency_mhz", w.frequencyMhz.map(String.init) ?? ""),
                        ("source", w.channelUtilizationSource?.rawValue ?? ""),
                        ("trust", w.channelUtilizationTrust?.rawValue ?? ""),
                    ],
                    u / 100)
            }
            if let x = w.retransmissionPercent {
                families.add(
                    MetricFamily.retransmission,
                    [("interface", w.interface), ("source", w.retransmissionSource?.rawValue ?? ""), ("trust", w.retransmissionTrust?.rawValue ?? "")], x / 100)
            }
            if let n = w.retransmissionFrames {
                families.add(MetricFamily.retransmissionFrames, [("interface", w.interface)], Double(n))
            }
            if let sig = w.signalDbm {
                families.add(MetricFamily.signal, [("interface", w.interface), ("bssid", w.bssid?.description ?? "")], Double(sig))
            }
            if let snr = w.snrDb {
                families.add(MetricFamily.snr, [("interface", w.interface)], Double(snr))
            }
            for b in w.bss {
                if let l = b.bssLoad {
                    add(
                        "pushdiag_bss_load_utilization_ratio", "Channel utilisation a BSS advertises in its BSS Load element.",
                        [("bssid", b.bssid.description), ("ssid", b.ssid ?? "")],
                        l.channelUtilizationPercent / 100)
                }
            }
        }
        if let c = r.capture {
            if let x = c.retryPercent {
                add("pushdiag_frame_retry_ratio", "Share of captured 802.11 frames with the Retry bit.", [("capture", c.file ?? "")], x / 100)
            }
            add("pushdiag_capture_roam_events", "Roams seen in this survey's capture (a count per run, not a counter).", [], Double(c.roamingEvents.count))
        }
        for h in r.heartbeats {
            // A histogram, as the exporter's: from the round trips measured in this run (a report
            // read back from JSON has only their summary, and writes none).
            if h.rttMs != nil, !h.rttsMsMeasured.isEmpty {
                for (le, n) in RTTHistogram.cumulative(h.rttsMsMeasured) {
                    let bound = le.map { "\($0)" } ?? "+Inf"  // as MetricRegistry writes the exporter's
                    families.add(MetricFamily.rtt, suffix: "_bucket", [("target", h.target), ("le", bound)], Double(n))
                }
                let sum = h.rttsMsMeasured.reduce(0, +)
                families.add(MetricFamily.rtt, suffix: "_sum", [("target", h.target)], (sum * 1000).rounded() / 1e6)
                families.add(MetricFamily.rtt, suffix: "_count", [("target", h.target)], Double(h.rttsMsMeasured.count))
            }
            // Nothing sent is not 0% lost: without a heartbeat sent there is no ratio (the
            // success series above says the server is down).
            if h.sent > 0 {
                add("pushdiag_heartbeat_loss_ratio", "Share of heartbeats not answered within the timeout.", [("target", h.target)], h.lossPercent / 100)
            }
            if let tls = h.tls {
                families.add(MetricFamily.certExpiry, [("target", h.target)], Double(tls.notAfterSeconds))
            }
        }
        return families.render(timestampMs: timestampMs)
    }
}
