import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

enum WatchFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow nl80211 events: connects, disconnects and roams, with the time without connectivity.",
        discussion: """
            Runs until --duration has passed, a replay ends, or SIGINT/SIGTERM, then prints a \
            summary (roams per hour, longest gap). jsonl prints one JSON object per event and a \
            last object with "event": "summary". Memory stays flat however long it runs.
            """
    )

    @Option(help: ArgumentHelp("Only this interface (default: all).", valueName: "IF"))
    var interface: String?

    @Option(help: ArgumentHelp("Stop after this long (default: until interrupted).", valueName: "D"))
    var duration: String?

    @Option(help: ArgumentHelp("A disconnect followed by a connect to another BSS of the same SSID within this long is a roam.", valueName: "D"))
    var roamWindow: String = "10s"

    @Option(help: "Output format: text or jsonl.")
    var format: WatchFormat = .text

    @OptionGroup var netlink: NetlinkOptions

    func validate() throws {
        if let duration { _ = try parseDuration(duration, option: "--duration") }
        _ = try parseDuration(roamWindow, option: "--roam-window")
    }

    func run() throws {
        let limit = try duration.map { try parseDuration($0, option: "--duration") }
        let window = try parseDuration(roamWindow, option: "--roam-window")
        StopSignal.install()
        var tracker = RoamTracker(windowSeconds: window)
        var start: Int64 = 0
        var end: Int64 = 0
        do {
            let (transport, recorder) = try netlink.transport()
            defer { try? recorder?.close() }
            let client = try NL80211Client(transport: transport)
            var names: [UInt32: String] = [:]
            var only: UInt32?
            for i in try client.interfaces() {
                names[i.ifindex] = i.name
                if let want = interface, i.name == want { only = i.ifindex }
            }
            if let want = interface, only == nil {
                throw WiFiError.noSuchInterface(want + (transport.isReplay ? " (not in the recording)" : " (or not a wireless interface)"))
            }
            try client.subscribe()
            // What the interfaces are connected to now.
            for (ifindex, _) in names where only == nil || only == ifindex {
                let bss = try client.scan(ifindex: ifindex).first(where: \.associated)
                let ssid = try client.interfaces().first { $0.ifindex == ifindex }?.ssid
                tracker.seed(ifindex: ifindex, bssid: bss?.bssid, ssid: ssid.map(SSIDText.render) ?? bss?.ssid.map(SSIDText.render))
            }
            start = transport.lastReceived
            end = start
            let monotonicStart = WallClock.monotonicNanoseconds()
            while !StopSignal.isRequested {
                if let limit {
                    let elapsed = transport.isReplay ? Double(transport.now - start) / 1e9 : Double(WallClock.monotonicNanoseconds() - monotonicStart) / 1e9
                    if elapsed >= limit { break }
                }
                guard let (time, events) = try client.nextEvent(timeoutMs: 250) else {
                    if transport.isReplay { break }
                    continue
                }
                end = time
                for e in events {
                    let ifindex: UInt32?
                    switch e {
                    case .connect(let i, _, _, _), .roam(let i, _), .disconnect(let i, _, _): ifindex = i
                    default: ifindex = nil
                    }
                    guard let ifindex, only == nil || only == ifindex else { continue }
                    let name = { (i: UInt32) in names[i] ?? "ifindex \(i)" }
                    let out = tracker.handle(e, time: time, name: name) { idx, bssid in
                        // The SSID after a connect: the interface says it, or the scan cache's
                        // entry for the BSS (live or recorded).
                        if let s = try? client.interfaces().first(where: { $0.ifindex == idx })?.ssid { return SSIDText.render(s) }
                        if let bssid, let s = try? client.scan(ifindex: idx).first(where: { $0.bssid == bssid })?.ssid { return SSIDText.render(s) }
                        return nil
                    }
                    for w in out { emit(w) }
                }
            }
            // The state at the end (also what ends a replay at the same moment as the run).
            _ = try? client.interfaces()
            end = max(end, transport.lastReceived)
        } catch let e as WiFiError {
            diagnose(e.description)
            throw ExitCode(3)
        } catch let e as NetlinkError {
            diagnose(e.description)
            throw ExitCode(3)
        }
        let summary = tracker.summary(start: start, end: end)
        switch format {
        case .jsonl:
            print(try JSONRenderer.line(summary))
        case .text:
            print(
                "summary: \(summary.connects) connects, \(summary.disconnects) disconnects, \(summary.roams) roams over \(NumberText.format(summary.durationSeconds)) s"
                    + " (\(NumberText.format(summary.roamsPerHour)) roams/hour)"
                    + (summary.longestGapMs.map { ", longest gap \(NumberText.format($0)) ms" } ?? ""))
        }
    }

    func emit(_ w: WatchEvent) {
        switch format {
        case .jsonl:
            if let line = try? JSONRenderer.line(w) { print(line) }
        case .text:
            var line = "\(w.time)  \(w.interface)  \(w.event)"
            switch w.event {
            case "roam": line += "  \(w.fromBssid?.description ?? "?") → \(w.bssid?.description ?? "?")"
            default: if let b = w.bssid { line += "  \(b)" }
            }
            if let s = w.ssid { line += "  (\(s))" }
            if let p = w.previousSsid { line += "  previously \(p)" }
            if let r = w.reasonCode { line += "  reason \(r)" + (w.byAp == true ? " by AP" : " local") }
            if let s = w.statusCode, s != 0 { line += "  status \(s)" }
            if let g = w.gapMs, w.event == "roam" { line += "  gap \(NumberText.format(g)) ms" }
            print(line)
        }
        fflush(nil)  // one line per event, even on a pipe
    }
}
