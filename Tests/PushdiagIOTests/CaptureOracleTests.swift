import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// pushdiag's counts against tshark's on ~250 real captures (../shared/pcaps/oracle.tsv).
@Suite(.enabled(if: TestPaths.hasSharedPcaps, "../shared/pcaps is absent: the tshark oracle comparison is skipped"))
struct OracleTests {
    struct Row {
        var file: String
        var fields: [String: String]
        func int(_ k: String) -> Int { Int(fields[k] ?? "") ?? -1 }
    }

    static func table(_ name: String) throws -> [[String: String]] {
        let text = try String(contentsOf: TestPaths.sharedPcaps.appendingPathComponent(name), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let header = lines.removeFirst()
        return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0 + Array(repeating: "", count: max(0, header.count - $0.count)))) }
    }

    /// Every shared capture (oracle.tsv) and every fixture: path and name.
    static func capturesAndFixtures() throws -> [(path: String, name: String)] {
        var files: [(String, String)] = []
        if TestPaths.hasSharedPcaps {
            for row in try table("oracle.tsv") {
                files.append((TestPaths.sharedPcaps.appendingPathComponent(row["file"]!).path, row["file"]!))
            }
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.path).sorted() where name.hasSuffix(".pcap") {
            files.append((TestPaths.fixtures.appendingPathComponent(name).path, "fixtures/" + name))
        }
        return files
    }

    @Test func countsEqualTshark() throws {
        let rows = try Self.table("oracle.tsv")
        #expect(rows.count > 200, "oracle.tsv should list the ~250 shared captures")
        var perTransmitter: [String: [String: (Int, Int)]] = [:]
        for r in try Self.table("oracle_per_transmitter.tsv") {
            perTransmitter[r["file"]!, default: [:]][r["transmitter"]!] = (Int(r["frames"]!)!, Int(r["retry_frames"]!)!)
        }
        var options = CaptureAnalyzer.Options()
        options.checkFCS = true
        var compared = 0
        for r in rows {
            let file = r["file"]!
            let path = TestPaths.sharedPcaps.appendingPathComponent(file).path
            let outcome = CaptureFileAnalysis.analyze(path: path, options: options)
            let rep = outcome.report(file: file)
            func check(_ key: String, _ ours: Int) {
                #expect(ours == Int(r[key]!), "\(file): \(key) tshark \(r[key]!), pushdiag \(ours)")
            }
            check("frames", rep.frames)
            check("retry_frames", rep.retryFrames)
            check("beacons", rep.beacons)
            check("assoc_req", rep.management.associationRequest)
            check("assoc_resp", rep.management.associationResponse)
            check("reassoc_req", rep.management.reassociationRequest)
            check("reassoc_resp", rep.management.reassociationResponse)
            check("auth", rep.management.authentication)
            check("deauth", rep.management.deauthentication)
            check("disassoc", rep.management.disassociation)
            check("probe_req", rep.management.probeRequest)
            check("probe_resp", rep.management.probeResponse)
            check("action", rep.management.action)
            check("data_frames", rep.dataFrames)
            check("ctrl_frames", rep.controlFrames)
            check("fcs_frames", rep.fcsFrames)
            check("radiotap_badfcs_flag", rep.fcsBadFlagged)
            if Int(r["fcs_bad_validated"]!) != nil { check("fcs_bad_validated", rep.fcsBad ?? -1) }
            check("beacon_bssids", outcome.analyzer.beaconBSSIDs.count)
            check("transmitters", outcome.analyzer.transmitterCounts.count)

            // BSS Load: the same set of raw utilisation values.
            let theirs = Set(r["qbss_cu_values"]!.split(separator: ",").compactMap { Int($0) })
            #expect(
                Set(outcome.analyzer.utilizationValues) == theirs,
                "\(file): BSS Load utilisation values tshark \(theirs.sorted()), pushdiag \(outcome.analyzer.utilizationValues)")

            // Frames and retries per transmitter address.
            let ours = outcome.analyzer.transmitterCounts
            for (mac, (frames, retries)) in perTransmitter[file] ?? [:] {
                let o = ours[MACAddress(mac)!]
                #expect(
                    o?.frames == frames && o?.retries == retries, "\(file): transmitter \(mac) tshark \(frames)/\(retries), pushdiag \(String(describing: o))")
            }

            // A file tshark could read only in part is reported as cut short, with the frames before the cut.
            #expect(
                r["read_error"]!.isEmpty == (outcome.error == nil), "\(file): tshark error '\(r["read_error"]!)', pushdiag \(String(describing: outcome.error))"
            )
            compared += 1
        }
        #expect(compared == rows.count)
    }

    /// Wireshark's own airtime estimate (wlan_radio.duration) and pushdiag's model agree within
    /// 25% on the radiotap captures where both priced the same frames.
    /// The shared captures holding a frame whose protocol version is not 0 (found with tshark's
    /// `wlan.fc.version != 0` over all of them): both are crafted, and their radiotap header's own
    /// version is not 0 either (48), so ours refuses the header (undecodable) where tshark reads
    /// on past it; either way nothing of the frame is counted (no type, Retry bit, address), as
    /// oracle.tsv's zeros say. The project's mangled-frame fixture covers frames behind a valid
    /// header (FixtureTests).
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func mangledFramesInTheSharedCaptures() throws {
        for file in ["tcpdump/tests__ieee802.11_meshhdr-oobr.pcap", "tcpdump/tests__ieee802.11_rates_oobr.pcap"] {
            let path = TestPaths.sharedPcaps.appendingPathComponent(file).path
            let rep = CaptureFileAnalysis.analyze(path: path, options: .init()).report(file: file)
            let tshark = try run(TestPaths.which("tshark")!, ["-n", "-r", path, "-Y", "wlan.fc.version != 0", "-T", "fields", "-e", "frame.number"])
            #expect(tshark.stdout.split(separator: "\n").count == 1, "\(file): tshark sees the mangled frame")
            #expect(rep.frames == 1 && rep.undecodable + rep.invalidFrames == 1, "\(file)")
            #expect(rep.retryFrames == 0 && rep.dataFrames == 0 && rep.controlFrames == 0 && rep.transmitters.isEmpty && rep.bss.isEmpty, "\(file)")
        }
    }

    @Test func airtimeModelAgreesWithWireshark() throws {
        var compared = 0
        for r in try Self.table("oracle.tsv") where r["linktype"] == "127" {
            let theirs = Double(r["airtime_us"]!) ?? 0
            let frames = Int(r["airtime_frames"]!) ?? 0
            guard theirs > 0 else { continue }
            let outcome = CaptureFileAnalysis.analyze(path: TestPaths.sharedPcaps.appendingPathComponent(r["file"]!).path, options: .init())
            let rep = outcome.report(file: r["file"]!)
            let ourFrames = rep.channels.reduce(0) { $0 + $1.airtimeFrames }
            guard ourFrames == frames else { continue }
            let ours = rep.channels.reduce(0) { $0 + $1.airtimeMs } * 1000
            #expect(abs(ours - theirs) / theirs < 0.25, "\(r["file"]!): airtime tshark \(theirs) µs, pushdiag \(ours) µs")
            compared += 1
        }
        #expect(compared > 30)
    }
}
