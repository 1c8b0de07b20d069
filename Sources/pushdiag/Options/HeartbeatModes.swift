import ArgumentParser
import PushdiagCore

/// heartbeat's modes: the heartbeats of a single connection (the default), many devices
/// (`--clients`), a reconnect storm (`--clients --storm`) and the idle-timeout finder.
enum HeartbeatMode: CaseIterable, Sendable {
    case single, load, storm, findIdleTimeout

    /// The mode as a person asks for it.
    var words: String {
        switch self {
        case .single: "a single connection"
        case .load: "--clients"
        case .storm: "--clients --storm"
        case .findIdleTimeout: "--find-idle-timeout"
        }
    }

    /// Modes for a sentence: "a single connection, --clients or --find-idle-timeout"; the load and the storm together
    /// are "--clients (with or without --storm)".
    static func words(_ modes: Set<HeartbeatMode>) -> String {
        var list = allCases.filter(modes.contains).map(\.words)
        if modes.isSuperset(of: [.load, .storm]) {
            list.removeAll { $0 == HeartbeatMode.storm.words }
            list = list.map { $0 == HeartbeatMode.load.words ? "--clients (with or without --storm)" : $0 }
        }
        guard let last = list.popLast() else { return "" }
        return list.isEmpty ? last : list.joined(separator: ", ") + " or " + last
    }
}

/// Which of heartbeat's options each mode reads, one row an option: an option the mode would
/// ignore is refused in the row's words, and the command's help lists each mode's own from here.
/// The options that choose the mode (--clients, --storm, --find-idle-timeout) are not rows: they
/// are the modes.
struct HeartbeatModeRow: Sendable {
    /// The flags of the row, as help lists them.
    let flags: [String]
    let modes: Set<HeartbeatMode>
    /// The flags of the row a command was given.
    let given: @Sendable (HeartbeatCommand) -> [String]

    init(_ flag: String, _ modes: Set<HeartbeatMode>, given: @escaping @Sendable (HeartbeatCommand) -> Bool) {
        self.flags = [flag]
        self.modes = modes
        self.given = { given($0) ? [flag] : [] }
    }

    /// A threshold row's two flags (`RowFlags`).
    init(_ row: ThresholdRow, _ modes: Set<HeartbeatMode>, typed: @escaping @Sendable (HeartbeatCommand) -> [(ThresholdRow, ThresholdRow.Level, String?)]) {
        self.flags = ThresholdRow.Level.allCases.map(row.flag)
        self.modes = modes
        self.given = { c in typed(c).filter { $0.2 != nil }.map { $0.0.flag($0.1) } }
    }

    static let all: [HeartbeatModeRow] = [
        HeartbeatModeRow("--count", [.single, .load]) { $0.count != nil },
        HeartbeatModeRow("--interval", [.single, .load]) { $0.interval != nil },
        // The storm waits for each attempt's first answer within --connect-timeout.
        HeartbeatModeRow("--timeout", [.single, .load, .findIdleTimeout]) { $0.connection.connection.timeout != nil },
        HeartbeatModeRow("--misses", [.single]) { $0.connection.misses != nil },
        HeartbeatModeRow("--reconnect-schedule", [.single, .storm]) { $0.connection.reconnectSchedule != nil },
        HeartbeatModeRow(.loss, [.single, .load]) { $0.loss.typed },
        HeartbeatModeRow(.rtt, [.single, .load]) { $0.rtt.typed },
        HeartbeatModeRow(.certificate, [.single]) { $0.certificate.typed },
        HeartbeatModeRow("--register", [.single]) { $0.register != nil },
        HeartbeatModeRow("--interface", [.single]) { $0.interface != nil },
        HeartbeatModeRow("--ramp", [.load, .storm]) { $0.ramp != nil },
        HeartbeatModeRow("--jitter", [.storm]) { $0.storm.jitter != nil },
        HeartbeatModeRow("--settle", [.storm]) { $0.storm.settle != nil },
    ]

    /// The flags `mode` takes of the rows, for help.
    static func flags(of mode: HeartbeatMode) -> [String] { all.filter { $0.modes.contains(mode) }.flatMap(\.flags) }
}

extension HeartbeatCommand {
    /// The mode the flags ask for. --storm without --clients is the core's refusal
    /// (`HeartbeatOptions.validate`), --clients with --find-idle-timeout `idleRungs`'.
    var mode: HeartbeatMode {
        if idleLadder.enabled { return .findIdleTimeout }
        guard clients != nil else { return .single }
        return storm.storm ? .storm : .load
    }

    /// Refuses an option the mode would ignore (it was accepted and did nothing).
    func validateMode() throws {
        let mode = mode
        for row in HeartbeatModeRow.all where !row.modes.contains(mode) {
            guard let flag = row.given(self).first else { continue }
            let with = HeartbeatMode.words(row.modes)
            throw ValidationError(mode == .single ? "\(flag) goes with \(with)" : "\(flag) goes with \(with), not with \(mode.words)")
        }
    }

    /// Which mode takes which of the table's options, for the command's help.
    static var modeHelp: String {
        let others = HeartbeatMode.allCases.dropFirst().map { "\($0.words): \(HeartbeatModeRow.flags(of: $0).joined(separator: ", "))" }
        let notSingle = HeartbeatModeRow.all.filter { !$0.modes.contains(.single) }.flatMap(\.flags)
        return others.joined(separator: "; ") + "; a single connection: all of them but \(notSingle.joined(separator: ", "))"
    }
}
