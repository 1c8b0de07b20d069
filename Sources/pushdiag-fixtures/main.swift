// pushdiag-fixtures DIR: writes the captures of fixtures/ (see FixtureKit/Fixtures.swift) and
// the nl80211 fixtures derived from the lab's recordings (FixtureKit/NetlinkFixtures.swift).
import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO

let dir = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "fixtures"
do {
    for f in Fixtures.all {
        let path = dir + "/" + f.name
        let w = try PcapWriter(path: path, linkType: LinkType.radiotap.rawValue)
        for r in f.records { w.write(timestampNs: r.timeNs, bytes: r.bytes) }
        try w.close()
        if f.name == Fixtures.truncated().name {
            let h = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            let size = try h.seekToEnd()
            try h.truncate(atOffset: size - UInt64(Fixtures.truncatedCut))
            try h.close()
        }
        print("wrote \(path) (\(f.records.count) records)")
    }
    for f in NetlinkFixtures.all {
        let source = try PcapFile(path: dir + "/" + f.source)
        var records: [NetlinkFixtures.Record] = []
        try source.forEachRecord { r in
            records.append(NetlinkFixtures.Record(time: r.timestampNs, bytes: Array(r.bytes)))
            return true
        }
        let out = f.transform(records)
        let path = dir + "/" + f.name
        if let slash = f.name.lastIndex(of: "/"), let from = f.source.lastIndex(of: "/") {
            // A derived recording in a directory (a walk's): the rest of its source's directory.
            let target = dir + "/" + f.name[..<slash]
            let origin = dir + "/" + f.source[..<from]
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            for other in try FileManager.default.contentsOfDirectory(atPath: origin) where other != f.source[f.source.index(after: from)...] {
                try? FileManager.default.removeItem(atPath: target + "/" + other)
                try FileManager.default.copyItem(atPath: origin + "/" + other, toPath: target + "/" + other)
            }
        }
        let w = try PcapWriter(path: path, linkType: source.linkType)
        for r in out { w.write(timestampNs: r.time, bytes: r.bytes) }
        try w.close()
        print("wrote \(path) (\(out.count) records, from \(f.source))")
    }
} catch {
    FileHandle.standardError.write(Data("pushdiag-fixtures: \(error)\n".utf8))
    exit(1)
}
