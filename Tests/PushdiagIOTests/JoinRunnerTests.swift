import PushdiagCore
import Testing

@testable import PushdiagIO

/// What the live join waits on between the link and the push: a DHCP client at work is its own
/// message or an IPv4 address removed; a link flap on a dual-stack interface removes the IPv6
/// addresses by itself, which is no DHCP client (the wait would end at SLAAC's address, before
/// the DHCP ACK, and the cycle's window would miss it).
struct JoinRunnerTests {
    @Test func aDHCPClientAtWorkIsIPv4s() {
        #expect(JoinRunner.beginsDHCP(.addressRemoved("10.0.0.2/24"), station: nil))
        #expect(!JoinRunner.beginsDHCP(.addressRemoved("2001:db8::7/64"), station: nil))
        #expect(!JoinRunner.beginsDHCP(.addressAdded("10.0.0.2/24"), station: nil))
        var discover = DHCPMessage(op: 1, xid: 7)
        discover.messageType = .discover
        #expect(JoinRunner.beginsDHCP(.dhcp(discover), station: nil))
        discover.messageType = .release
        #expect(!JoinRunner.beginsDHCP(.dhcp(discover), station: nil))
    }
}
