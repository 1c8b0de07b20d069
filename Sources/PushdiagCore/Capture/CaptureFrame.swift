/// One record with its radio header taken off (`LinkLayer.decapsulate`): the part of the
/// analysis that depends on the record's bytes alone (the radiotap layout cache only saves
/// walks), and the most costly one per frame. The pipelined reader prepares frames on its own
/// thread, so the analysing thread starts at the 802.11 header (`CaptureAnalyzer.ingest(_:)`).
/// Its byte views borrow the record: a frame is valid while the record's bytes are.
///
/// The airtime estimate stays with the analysing thread: on the reading thread it made that
/// thread the slower of the two on data frames (callgrind: 611 instructions a data frame against
/// 459), and the slower thread sets the pace.
public struct CaptureFrame {
    public var timestampNs: Int64
    public var originalLength: Int
    /// nil when the radio header is unusable (the record counts as undecodable).
    public var decapsulated: LinkLayer.Decapsulated?

    @inline(__always)
    public init(linkType: LinkType, timestampNs: Int64, packet: UnsafeRawBufferPointer, originalLength: Int, cache: inout Radiotap.LayoutCache) {
        self.timestampNs = timestampNs
        self.originalLength = originalLength
        decapsulated = LinkLayer.decapsulate(linkType, packet, originalLength: originalLength, cache: &cache)
    }
}
