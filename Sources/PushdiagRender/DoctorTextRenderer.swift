import PushdiagCore

/// `pushdiag doctor` for a person: the machine, the privileges with the line that gives them, and
/// per wireless interface what it can do and what pushdiag will take each check from.
public struct DoctorTextRenderer {
    public init() {}

    public func render(_ r: DoctorReport) -> String {
        let m = r.machine
        var out = "pushdiag doctor: kernel \(m.kernel), libpcap \(m.libpcap.replacingOccurrences(of: "libpcap version ", with: "")), uid \(m.uid)\n"
        out += "  \(m.executable)\n"
        for p in r.privileges {
            out += "  \(p.capability): \(p.has ? "yes" : "no") — \(p.neededFor)\n"
            if let f = p.fix { out += "    to give it: \(f)\n" }
        }
        if let e = r.error { out += "\n  " + (r.machine.nl80211 ? "the Wi-Fi could not be inspected: " : "no Wi-Fi to measure: ") + e + "\n" }
        for i in r.interfaces {
            out += "\n\(i.name) (\(i.type)\(i.phy.map { ", \($0)" } ?? "")\(i.mac.map { ", \($0)" } ?? ""))\n"
            var driver = "  driver " + (i.driver ?? "unknown")
            if let f = i.driverFamily, f != i.driver {
                driver += " (\(f))"
            } else if i.driver != nil && i.driverFamily == nil {
                driver += " (not in pushdiag's driver table)"
            }
            if let v = i.driverVersion { driver += ", version \(v)" }
            if let f = i.firmware { driver += ", firmware \(f)" }
            if let b = i.bus, !b.isEmpty { driver += ", bus \(b)" }
            out += driver + "\n"
            if !i.interfaceTypes.isEmpty {
                out += "  can be: \(i.interfaceTypes.joined(separator: ", "))\n"
                out +=
                    "  monitor mode: \(i.monitor ? "yes" : "no")"
                    + (i.monitor
                        ? "; beside a managed interface: \(i.monitorBesideManaged ? "yes" : "no (a second adapter for captures)")"
                        : "; a second adapter for captures") + "\n"
            }
            if !i.counters.isEmpty {
                var t = TextTable([("COUNTER", .left), ("GIVEN", .left), ("PUSHDIAG'S TABLE", .left)])
                for c in i.counters {
                    t.add([c.counter, c.reported ? "yes" : "no", (c.table ?? "-") + (c.why.map { ": \($0)" } ?? "")])
                }
                out += "\n" + t.render()
            }
            if !i.checks.isEmpty {
                var t = TextTable([("CHECK", .left), ("PUSHDIAG WILL USE", .left)])
                for c in i.checks {
                    t.add([c.check.rawValue, c.said ?? c.source ?? "nothing: UNKNOWN (\(c.unknownBecause ?? "no source"))"])
                }
                out += "\n" + t.render()
            }
            for n in i.notes { out += "  note: \(n)\n" }
        }
        out += "\nstatus: \(r.status.rawValue.uppercased())\n"
        return out
    }
}
