import PushdiagCore
import Testing

/// `pushdiag doctor`'s verdict and privilege lines, from values (the command only gathers them).
struct DoctorAnalysisTests {
    let machine = DoctorMachine(kernel: "6.1.0-28-amd64", libpcap: "libpcap version 1.10.3", executable: "/usr/local/bin/pushdiag", uid: 1000, nl80211: true)
    let wlan = DoctorInterface(name: "wlan0", ifindex: 3, type: "managed")

    @Test(arguments: [
        // (interfaces inspected, interrupted) → status
        (true, false, Severity.ok),
        (false, false, Severity.unknown),
        (true, true, Severity.unknown),
        (false, true, Severity.unknown),
    ])
    func statusIsUnknownWithoutAnInterfaceOrWhenInterrupted(inspected: Bool, interrupted: Bool, status: Severity) {
        let error: String? = inspected ? nil : "nl80211 lists no wireless interfaces"
        let report = DoctorAnalysis.report(
            machine: machine, interfaces: inspected ? [wlan] : [], netAdmin: false, netRaw: true, interrupted: interrupted, error: error)
        #expect(report.status == status)
        #expect(report.error == error)
        #expect(report.interfaces.map(\.name) == (inspected ? ["wlan0"] : []))
        #expect(report.machine == machine)
    }

    @Test func aMissingPrivilegeNamesTheLineThatGivesIt() {
        let without = DoctorAnalysis.report(machine: machine, interfaces: [wlan], netAdmin: false, netRaw: false, interrupted: false, error: nil)
        let raw = without.privileges.first { $0.capability == "CAP_NET_RAW" }
        #expect(raw?.has == false)
        #expect(raw?.fix?.contains("setcap cap_net_raw+ep /usr/local/bin/pushdiag") == true)
        let with = DoctorAnalysis.report(machine: machine, interfaces: [wlan], netAdmin: true, netRaw: true, interrupted: false, error: nil)
        #expect(with.privileges.allSatisfy { $0.has && $0.fix == nil })
        #expect(with.privileges.map(\.capability) == without.privileges.map(\.capability))
    }
}
