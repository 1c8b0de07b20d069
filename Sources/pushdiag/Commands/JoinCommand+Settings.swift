import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO

/// join's flags mapped to its settings, and what is refused before anything is kicked.
extension JoinCommand {
    func settings() throws -> JoinSettings {
        guard let target else { throw ValidationError("join needs the push server: pushdiag join --interface IF HOST[:PORT]") }
        guard let interface, !interface.isEmpty else { throw ValidationError("join needs --interface (the Wi-Fi interface to rejoin)") }
        guard (1...10_000).contains(count) else { throw ValidationError("--count: '\(count)' is not between 1 and 10000") }
        var s = JoinSettings(interface: interface, heartbeat: try connection.options(target: target, interval: "1s"))
        s.kick = passive ? .passive : kick
        s.count = count
        s.intervalSeconds = try parseDuration(interval, option: "--interval")
        s.cycleTimeoutSeconds = try parseDuration(cycleTimeout, option: "--cycle-timeout", atLeast: 1)
        s.controlDirectory = controlDirectory
        s.dhcpWaitSeconds = try parseDuration(dhcpWait, option: "--dhcp-wait")
        (s.apIdleRungs, s.pathIdleTimeoutS) = try idle.settings()
        return s
    }

    func validate() throws {
        if record != nil && replay != nil { throw ValidationError("--record and --replay cannot be combined") }
        if replay != nil {
            // What only a live run uses is still refused when it is no value at all.
            for (text, option) in [(interval, "--interval"), (cycleTimeout, "--cycle-timeout"), (dhcpWait, "--dhcp-wait")] {
                _ = try parseDuration(text, option: option)
            }
            _ = try limits.thresholds()
            _ = try idle.settings()
            return
        }
        let s = try settings()
        _ = try limits.thresholds()
        guard if_nametoindex(s.interface) != 0 else { throw ValidationError("--interface \(s.interface): no such interface") }
    }
}
