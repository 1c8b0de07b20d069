import CPcap
import PushdiagCore
import Testing

/// The core's link-type numbers against the system's <pcap/dlt.h>.
struct LinkTypeTests {
    @Test func linkTypesMatchTheSystemHeaders() {
        #expect(LinkType.ieee80211.rawValue == CPcap_DLT_IEEE802_11())
        #expect(LinkType.radiotap.rawValue == CPcap_DLT_IEEE802_11_RADIO())
        #expect(LinkType.ppi.rawValue == CPcap_DLT_PPI())
        #expect(LinkType.prism.rawValue == CPcap_DLT_PRISM_HEADER())
        #expect(LinkType.avs.rawValue == CPcap_DLT_IEEE802_11_RADIO_AVS())
    }
}
