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

    @Option(help: ArgumentHelp("Only this interface (default: all).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this long (default: until interrupted).", valueName: "D"))
    var duration: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("A disconnect followed by a connect to another BSS of the same SSID within this long is a roam.", valueName: "D"))
    var roamWindow: String = DurationText.format(RoamTracker.defaultWindowSeconds)

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
        // Read once: each read of an option goes through argument-parser's property wrapper.
        let format = format
        let live = netlink.replay == nil
        let summary = try unknownOnFailure(json: format == .jsonl ? .line : nil) {
            try netlink.with { transport in
                let watcher = try RoamWatcher(
                    client: try NL80211Client(transport: transport), transport: transport, interface: interface, roamWindowSeconds: window)
                return try watcher.run(limitSeconds: limit, stop: { StopSignal.isRequested }) { Self.emit($0, format: format, live: live) }
            }
        }
        switch format {
        case .jsonl: print(try JSONRenderer.line(summary))
        case .text: print(WatchTextRenderer.summary(summary))
        }
    }

    static func emit(_ w: WatchEvent, format: WatchFormat, live: Bool) {
        switch format {
        case .jsonl: if let line = try? JSONRenderer.line(w) { print(line) }
        case .text: print(WatchTextRenderer.line(w))
        }
        // Live, one line per event as it happens, even on a pipe; a replay writes as fast as it
        // reads, through stdout's buffer (it made a write(2) per event).
        if live { fflush(nil) }
    }
}
