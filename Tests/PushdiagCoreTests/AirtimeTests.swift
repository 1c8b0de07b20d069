import FixtureKit
import PushdiagCore
import Testing

struct AirtimeTests {
    func info(_ m: RadioInfo.Modulation, freq: UInt16 = 5180, short: Bool = false) -> RadioInfo {
        var i = RadioInfo()
        i.modulation = m
        i.frequencyMHz = freq
        i.shortPreamble = short
        return i
    }

    @Test func legacyRates() {
        // OFDM 54 Mb/s, 1500 bytes: 20 µs + ⌈(16 + 12000 + 6) / 216⌉ = 56 symbols × 4 µs.
        #expect(Airtime.microseconds(length: 1500, info: info(.legacy(rate500k: 108))) == 244)
        #expect(Airtime.microseconds(length: 1500, info: info(.legacy(rate500k: 108), freq: 2437)) == 250)
        // DSSS 1 Mb/s, 100 bytes, long preamble: 192 + 800 µs. CCK 11 Mb/s short: 96 + 800/11.
        #expect(Airtime.microseconds(length: 100, info: info(.legacy(rate500k: 2), freq: 2412)) == 992)
        let cck = Airtime.microseconds(length: 100, info: info(.legacy(rate500k: 22), freq: 2412, short: true))!
        #expect(abs(cck - (96 + 800.0 / 11)) < 1e-9)
        #expect(Airtime.microseconds(length: 100, info: RadioInfo()) == nil)
    }

    @Test func htVhtHe() {
        // HT MCS 7, 20 MHz, long GI, 1500 bytes: 36 µs preamble + ⌈12022 / 260⌉ = 47 × 4 µs.
        #expect(Airtime.microseconds(length: 1500, info: info(.ht(mcs: 7, bandwidthMHz: 20, shortGI: false))) == 224)
        // VHT MCS 9, 2 streams, 80 MHz: N_DBPS = 234 × 20/3 × 2 = 3120; ⌈12022 / 3120⌉ = 4 symbols.
        let vht = Airtime.microseconds(length: 1500, info: info(.vht(mcs: 9, nss: 2, bandwidthMHz: 80, shortGI: false)))!
        #expect(abs(vht - (20 + 8 + 4 + 8 + 4 + 16)) < 1e-9)
        // HE MCS 11, 1 stream, 20 MHz, 0.8 µs GI: N_DBPS = 234 × 25/3 = 1950; 7 symbols of 13.6 µs.
        let he = Airtime.microseconds(length: 1500, info: info(.he(mcs: 11, nss: 1, bandwidthMHz: 20, guardIntervalNs: 800)))!
        #expect(abs(he - (44 + 7 * 13.6)) < 1e-9)
        #expect(Airtime.microseconds(length: 1500, info: info(.ht(mcs: 40, bandwidthMHz: 20, shortGI: false))) == nil)
    }
}
