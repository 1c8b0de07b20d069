import Foundation
import PushdiagCore
import Testing

/// Kinds whose text is their raw value: text and HTML print what the JSON writes, case by case.
struct RawValueDescribedTests {
    func spelledAsJSON<T: RawValueDescribed & Encodable>(_ kinds: [T]) throws {
        for k in kinds {
            let json = String(decoding: try JSONEncoder().encode([k]), as: UTF8.self)
            #expect(json == "[\"\(k)\"]")
            #expect("\(k)" == k.rawValue)
        }
    }

    @Test func everyKindReadsAsItsJSON() throws {
        try spelledAsJSON(CheckName.allCases)
        try spelledAsJSON(CaptureRoamKind.allCases)
        try spelledAsJSON([NeighbourState.reachable, .failed, .noEntry])
        try spelledAsJSON([MoveConnection.kept, .reconnected, .lost])
        try spelledAsJSON([WalkInterfaceChange.Kind.carrierDown, .addressAdded, .interfaceRemoved])
        try spelledAsJSON(JoinStep.allCases)
        try spelledAsJSON(JoinStepStatus.allCases)
        try spelledAsJSON(JoinGroup.allCases)
        try spelledAsJSON([IdleTimeout.Outcome.survived, .blackHole, .notOpened])
        try spelledAsJSON([APIdle.Outcome.kept, .dropped, .notSilent, .keptAlive])
        #expect(CheckName.stormGaveUp.description == "storm_gave_up")
        #expect(NeighbourState.noEntry.description == "none")
    }

    /// In words for text and HTML: the raw value with spaces for underscores, one rule for
    /// every kind (a kind with words of its own, such as StallCause, says them itself).
    @Test func kindsInWords() {
        #expect(IdleTimeout.Outcome.blackHole.words == "black hole" && IdleTimeout.Outcome.survived.words == "survived")
        #expect(WalkInterfaceChange.Kind.addressAdded.words == "address added" && JoinStepStatus.notVisible.words == "not visible")
    }

    @Test func everyProtocolReadsAsItsName() {
        for p in HeartbeatProtocol.allCases {
            #expect("\(p)" == p.rawValue)
            #expect(HeartbeatProtocol(rawValue: "\(p)") == p)
        }
        #expect(HeartbeatProtocol.allCases.map(\.description) == ["simplepush", "websocket", "mqtt", "line", "tcp"])
    }
}
