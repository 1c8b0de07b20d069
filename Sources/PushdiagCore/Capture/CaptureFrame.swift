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
    /// The record's time, held within ±`mostNs`: a pcapng interface's offset and resolution can
    /// put a time anywhere an Int64 reaches (libpcap and the pipelined reader wrap alike), and
    /// the analyses subtract two frames' times.
    public var timestampNs: Int64
    /// About 146 years either side of 1970: the difference of two times always fits an Int64.
    public static let mostNs: Int64 = 1 << 62 - 1

    /// A record's time from its seconds and its fraction in nanoseconds, held at Int64's bounds
    /// where an interface's offset puts the seconds past them (every reader: libpcap's records,
    /// the pipelined pcapng walk, live capture).
    @inline(__always)
    public static func nanoseconds(seconds: Int64, fraction: Int64) -> Int64 {
        seconds.multipliedSaturated(by: 1_000_000_000).addingSaturated(fraction)
    }

    /// `ns` held within ±`mostNs`.
    @inline(__always)
    public static func held(_ ns: Int64) -> Int64 { min(max(ns, -mostNs), mostNs) }
    public var originalLength: Int
    /// nil when the radio header is unusable (the record counts as undecodable).
    public var decapsulated: LinkLayer.Decapsulated?

    @inline(__always)
    public init(linkType: LinkType, timestampNs: Int64, packet: UnsafeRawBufferPointer, originalLength: Int, cache: inout Radiotap.LayoutCache) {
        self.timestampNs = Self.held(timestampNs)
        self.originalLength = originalLength
        decapsulated = LinkLayer.decapsulate(linkType, packet, originalLength: originalLength, cache: &cache)
    }
}
