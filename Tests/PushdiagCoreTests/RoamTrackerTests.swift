import Foundation
import Testing

@testable import PushdiagCore

struct RoamTrackerTests {
    let a = MACAddress("02:00:00:00:00:00")!, b = MACAddress("02:00:00:00:01:00")!

    func feed(_ t: inout RoamTracker, _ e: NL80211.Event, at ms: Int64, ssid: String?) -> [WatchEvent] {
        t.handle(e, time: ms * 1_000_000, name: { _ in "wlan0" }, ssid: { _, _ in ssid })
    }

    @Test func disconnectThenConnectToAnotherBSSIsARoam() {
        var t = RoamTracker(windowSeconds: 10)
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        let d = feed(&t, .disconnect(ifindex: 3, reason: 1, byAP: false), at: 1000, ssid: nil)
        #expect(d.map(\.event) == ["disconnect"] && d[0].reasonCode == 1 && d[0].byAp == false && d[0].bssid == a)
        let r = feed(&t, .connect(ifindex: 3, bssid: b, status: 0, timedOut: false, fastTransition: nil), at: 1045, ssid: "ward-3")
        #expect(r.map(\.event) == ["roam"] && r[0].fromBssid == a && r[0].bssid == b && r[0].gapMs == 45)
        #expect(t.summary(start: 0, end: 3_600_000_000_000).roamsPerHour == 1)
    }

    @Test func anotherSSIDIsAConnectAndTooLateIsAConnect() {
        var t = RoamTracker(windowSeconds: 10)
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        _ = feed(&t, .disconnect(ifindex: 3, reason: 3, byAP: true), at: 0, ssid: nil)
        let other = feed(&t, .connect(ifindex: 3, bssid: b, status: 0, timedOut: false, fastTransition: nil), at: 100, ssid: "guest")
        #expect(other.map(\.event) == ["connect"] && other[0].previousSsid == "ward-3")
        _ = feed(&t, .disconnect(ifindex: 3, reason: 3, byAP: true), at: 200, ssid: nil)
        let late = feed(&t, .connect(ifindex: 3, bssid: a, status: 0, timedOut: false, fastTransition: nil), at: 20_200, ssid: "guest")
        #expect(late.map(\.event) == ["connect"])
        #expect(t.roams == 0 && t.disconnects == 2)
    }

    @Test func commandRoam() {
        var t = RoamTracker()
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        let r = feed(&t, .roam(ifindex: 3, bssid: b, fastTransition: true), at: 5, ssid: "ward-3")
        #expect(r.first?.event == "roam" && r.first?.fromBssid == a && r.first?.gapMs == 0)
    }

    /// 802.11r from the authentication with the new AP (algorithm 2); without one, from the
    /// request's Fast BSS Transition element; unknown when neither was seen.
    @Test func fastTransitionFromTheAuthenticationOrTheRequest() {
        func roam(auth: (MACAddress?, UInt16)?, element: Bool?) -> Bool?? {
            var t = RoamTracker(windowSeconds: 10)
            t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
            _ = feed(&t, .disconnect(ifindex: 3, reason: 3, byAP: false), at: 0, ssid: nil)
            if let auth { _ = feed(&t, .authenticate(ifindex: 3, bssid: auth.0, algorithm: auth.1), at: 10, ssid: nil) }
            let r = feed(&t, .connect(ifindex: 3, bssid: b, status: 0, timedOut: false, fastTransition: element), at: 40, ssid: "ward-3")
            return r.first?.event == "roam" ? .some(r[0].fastTransition) : .none
        }
        #expect(roam(auth: (b, 2), element: nil) == .some(true))
        #expect(roam(auth: (b, 0), element: true) == .some(false))
        #expect(roam(auth: nil, element: true) == .some(true))
        #expect(roam(auth: nil, element: false) == .some(false))
        #expect(roam(auth: nil, element: nil) == .some(nil))
        // An authentication with another AP (an attempt that went elsewhere) does not count.
        #expect(roam(auth: (a, 2), element: false) == .some(false))
    }
}
