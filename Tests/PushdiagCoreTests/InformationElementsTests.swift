import FixtureKit
import PushdiagCore
import Testing

struct ElementTests {
    /// The one element walk, on a list cut at every length: whole elements in order, the walk
    /// ending at an element that runs past the cut (or a lone trailing byte), and `complete`
    /// only where the cut falls between elements.
    @Test func theElementWalkStopsWhereTheListBreaks() {
        let elements: [(UInt8, [UInt8])] = [(0, Array("ward-3".utf8)), (5, [0, 3, 0, 0]), (221, []), (52, Array(repeating: 7, count: 13))]
        let list = elements.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 }
        var ends = [0]
        for e in elements { ends.append(ends.last! + 2 + e.1.count) }
        for cut in 0...list.count {
            let (seen, complete) = withBytes(Array(list.prefix(cut))) { b -> ([(UInt8, [UInt8])], Bool) in
                var walk = ElementWalk(b)
                var seen: [(UInt8, [UInt8])] = []
                while let (id, contents) = walk.next() { seen.append((id, Array(contents))) }
                return (seen, walk.complete)
            }
            let whole = ends.lastIndex { $0 <= cut }!
            #expect(seen.map(\.0) == elements.prefix(whole).map(\.0) && seen.map(\.1) == elements.prefix(whole).map(\.1), "cut at \(cut)")
            #expect(complete == ends.contains(cut), "cut at \(cut)")
        }
    }

    @Test func roamingCapabilitiesAndBSSLoad() {
        var o = FrameBuilder.BeaconOptions(ssid: "ward-3", channel: 6)
        o.bssLoad = (7, 102)
        o.akms = [4]  // FT-PSK, no Mobility Domain element
        o.radioMeasurement = true
        o.bssTransition = true
        let e = withBytes(FrameBuilder.elements(o)) { b -> (ElementSummary, [UInt8]?) in
            let s = ElementSummary.parse(b)
            return (s, s.ssid.map(Array.init))
        }
        #expect(e.1 == Array("ward-3".utf8))
        #expect(e.0.channel == 6)
        #expect(e.0.bssLoad?.stationCount == 7 && e.0.bssLoad?.utilization == 102)
        #expect(e.0.fastTransition && e.0.mobilityDomain == nil && e.0.rsnFastTransition)
        #expect(e.0.radioMeasurement && e.0.bssTransition && !e.0.malformed)
    }

    @Test func plainPSKIsNotFastTransition() {
        let e = withBytes(FrameBuilder.elements(.init(ssid: "a", channel: 1))) { ElementSummary.parse($0) }
        #expect(!e.fastTransition && !e.radioMeasurement && !e.bssTransition && e.bssLoad == nil)
    }

    @Test func malformedElementsAreNotedAndEarlierOnesKept() {
        // SSID, then a BSS Load of the wrong length, then an element running past the end.
        let bytes: [UInt8] = [0, 2, 0x61, 0x62] + [11, 2, 1, 2] + [3, 1, 11] + [48, 40, 1, 0]
        let e = withBytes(bytes) { ElementSummary.parse($0) }
        #expect(e.malformed)
        #expect(e.bssLoad == nil)
        #expect(e.dsChannel == 11)
        #expect(e.elementCount == 3)
        // An RSN element whose AKM count runs past it.
        let rsn: [UInt8] = [48, 12, 1, 0, 0, 0x0F, 0xAC, 4, 0, 0, 9, 0, 0, 0x0F]
        #expect(withBytes(rsn) { ElementSummary.parse($0) }.malformed)
    }
}
