// libFuzzer target: one capture record of every link type through the analyser (radiotap, PPI,
// Prism, AVS, 802.11 headers, elements, roaming state, the per-station analysis and its
// parsers), then the report. The first byte picks the link type; the rest is the record.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

nonisolated(unsafe) var analyzer = CaptureAnalyzer()
nonisolated(unsafe) var runs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let types = LinkType.allCases
    let lt = types[Int(data[0]) % types.count]
    let record = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    // With the first byte's bit 6, a time anywhere an Int64 reaches (the record's first eight
    // bytes): a pcapng interface's offset can put one there, and the analyses subtract times.
    var time = Int64(runs) * 1_000_000
    if data[0] & 0x40 != 0, size >= 9 { time = (1...8).reduce(Int64(0)) { $0 << 8 | Int64(data[$1]) } }
    analyzer.ingest(linkType: lt, timestampNs: time, packet: record, originalLength: size - 1 + Int(data[0] & 3))
    // The per-station parsers on the raw bytes too (the analyser reaches them only behind a
    // valid header): TIM, BTM request and response, (re)association fields, EAPOL.
    if let t = TIMElement.parse(record) {
        _ = t.isSet(aid: Int(data[0]) * 8)
        t.forEachSetAID { _ in }
    }
    _ = TIMElement.find(in: record)
    _ = BTMRequest.parse(record)
    _ = BTMResponse.parse(record)
    _ = AssociationFields.response(record)
    _ = AssociationFields.requestElements(record, reassociation: data[0] & 1 == 0).map(ElementSummary.parse)
    _ = EAPOLFrame.parse(record)
    runs += 1
    if runs % 4096 == 0 {
        _ = analyzer.report(file: "fuzz")
        analyzer = CaptureAnalyzer()  // bounded memory
    }
    return 0
}
