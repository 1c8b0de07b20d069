import Foundation
import PushdiagCore
import Testing

struct ThresholdRangeTests {
    @Test func monitoringPluginsRanges() throws {
        let ten = try #require(ThresholdRange("10"))
        #expect(!ten.alerts(0) && !ten.alerts(10) && ten.alerts(10.5) && ten.alerts(-1))
        let from = try #require(ThresholdRange("10:"))
        #expect(from.alerts(9) && !from.alerts(1000))
        let upTo = try #require(ThresholdRange("~:10"))
        #expect(!upTo.alerts(-50) && upTo.alerts(11))
        let inside = try #require(ThresholdRange("@10:20"))
        #expect(inside.alerts(15) && !inside.alerts(25))
        #expect(ThresholdRange("20:10") == nil && ThresholdRange("x") == nil && ThresholdRange("") == nil)
        #expect(ThresholdRange("nan") == nil && ThresholdRange("inf") == nil && ThresholdRange("~:inf") == nil && ThresholdRange("1e400") == nil)
    }
}
