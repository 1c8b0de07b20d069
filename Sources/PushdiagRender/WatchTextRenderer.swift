import PushdiagCore

/// `watch` for people: one line per event as it happens, and the summary at the end.
public enum WatchTextRenderer {
    public static func line(_ w: WatchEvent) -> String {
        var line = "\(w.time)  \(w.interface)  \(w.event)"
        switch w.event {
        case .roam: line += "  \(w.fromBssid?.description ?? "?") → \(w.bssid?.description ?? "?")"
        default: if let b = w.bssid { line += "  \(b)" }
        }
        if let s = w.ssid { line += "  (\(s))" }
        if let p = w.previousSsid { line += "  previously \(p)" }
        if let r = w.reasonCode { line += "  reason \(Dot11Codes.reason(String(r)))" + (w.byAp == true ? " by AP" : " local") }
        if let s = w.statusCode, s != 0 { line += "  status \(s)" }
        if let g = w.gapMs {  // a roam's link gap; a connect's time since the disconnect before it
            line += w.event == .roam ? "  gap \(NumberText.format(g)) ms" : "  link down \(NumberText.format(g)) ms"
        }
        if let f = w.fastTransitionFailure {  // a roam, or the connect after an outage past the window
            line += "  802.11r FAILED: \(WalkAnalysis.describe(f)); then \(f.fallback.map(WalkAnalysis.describe) ?? "an association not reported")"
        } else if w.event == .roam, let ft = w.fastTransition {
            line += ft ? "  802.11r" : "  no 802.11r"
        }
        return line
    }

    public static func summary(_ s: WatchSummary) -> String {
        "summary: \(NumberText.count(s.connects, "connect")), \(NumberText.count(s.disconnects, "disconnect")), \(NumberText.count(s.roams, "roam")), \(s.fastTransitionFailures) failed 802.11r"
            + " over \(NumberText.format(s.durationSeconds)) s"
            + " (\(NumberText.format(s.roamsPerHour)) roams/hour)"
            + (s.longestGapMs.map { ", longest gap \(NumberText.format($0)) ms" } ?? "")
    }
}
