/// RFC 3339 timestamps in UTC without Foundation: the core stays free of I/O and locale.
public enum Timestamp {
    /// The time of day of an RFC 3339 stamp this type wrote, as the tables print it:
    /// `14:03:07.125` (to the millisecond), or `14:03:07` with `milliseconds: false`.
    public static func clock(_ rfc3339: String, milliseconds: Bool = true) -> String {
        String(rfc3339.dropFirst(11).prefix(milliseconds ? 12 : 8))
    }

    /// `nanoseconds` since the Unix epoch → "2024-05-01T12:00:00.123456Z" (microseconds shown).
    public static func rfc3339(nanoseconds: Int64) -> String {
        // Floor division, without the overflow `nanoseconds - 999_999_999` had at Int64.min.
        let (q, r) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return rfc3339(seconds: r < 0 ? q - 1 : q, microseconds: Int(r < 0 ? r + 1_000_000_000 : r) / 1000)
    }

    /// Whole seconds since the epoch, for times beyond what nanoseconds hold (a certificate
    /// valid until 9999).
    public static func rfc3339(seconds secs: Int64, microseconds frac: Int = 0) -> String {
        let (y, m, d, rem) = civil(seconds: secs).date
        if (0...9999).contains(y), (0...999_999).contains(frac) {
            // Written into the string's own 27 bytes: a line of `watch` spent a fifth of its
            // time here when it built seven strings and joined them.
            return String(unsafeUninitializedCapacity: 27) { b in
                func put(_ v: Int, _ width: Int, at i: Int) {
                    var v = v
                    for k in stride(from: i + width - 1, through: i, by: -1) {
                        b[k] = UInt8(truncatingIfNeeded: 48 + v % 10)
                        v /= 10
                    }
                }
                put(y, 4, at: 0)
                b[4] = UInt8(ascii: "-")
                put(m, 2, at: 5)
                b[7] = UInt8(ascii: "-")
                put(d, 2, at: 8)
                b[10] = UInt8(ascii: "T")
                put(rem / 3600, 2, at: 11)
                b[13] = UInt8(ascii: ":")
                put(rem / 60 % 60, 2, at: 14)
                b[16] = UInt8(ascii: ":")
                put(rem % 60, 2, at: 17)
                b[19] = UInt8(ascii: ".")
                put(frac, 6, at: 20)
                b[26] = UInt8(ascii: "Z")
                return 27
            }
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2)).\(pad(frac, 6))Z"
    }

    /// `v` in at least `width` digits, zeros in front.
    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Seconds since the epoch → the UTC date (proleptic Gregorian), the seconds into that day,
    /// and the day of the week (0 Sunday; 1970-01-01 was a Thursday).
    static func civil(seconds secs: Int64) -> (date: (year: Int, month: Int, day: Int, second: Int), weekday: Int) {
        var days = Int(secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400)
        let rem = Int(secs - Int64(days) * 86_400)
        let weekday = (days % 7 + 11) % 7
        // civil_from_days (H. Hinnant)
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        var y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        if m <= 2 { y += 1 }
        return ((y, m, d, rem), weekday)
    }

    /// RFC 9110 §5.6.7's IMF-fixdate, an HTTP `Date` field's value: "Sun, 06 Nov 1994 08:49:37 GMT"
    /// (years 0 to 9999; the RFC's year is four digits).
    public static func httpDate(seconds: Int64) -> String {
        let ((y, m, d, rem), w) = civil(seconds: seconds)
        let day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][w]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][m - 1]
        return "\(day), \(pad(d, 2)) \(month) \(pad(y, 4)) \(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2)) GMT"
    }

    /// The inverse of `rfc3339(nanoseconds:)`: "2024-05-01T12:00:00[.fraction]Z" → nanoseconds
    /// since the epoch; nil for anything else (another zone, a field out of range).
    public static func nanoseconds(rfc3339 text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == UInt8(ascii: "Z"), b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), let hh = number(11..<13), let mm = number(14..<16),
            let ss = number(17..<19), (1...12).contains(m), (1...31).contains(d), hh < 24, mm < 60, ss < 61
        else { return nil }
        var frac: Int64 = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count - 21 <= 9, b.count - 21 >= 1, let f = number(20..<(b.count - 1)) else { return nil }
            frac = Int64(f)
            for _ in 0..<(9 - (b.count - 21)) { frac *= 10 }
        }
        // days_from_civil (H. Hinnant)
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = Int64(era * 146_097 + doe - 719_468)
        // Nanoseconds reach from 1677 to 2262: a stamp outside is not one (nil), not a trap.
        let (ns, over) = (days * 86_400 + Int64(hh * 3600 + mm * 60 + ss)).multipliedReportingOverflow(by: 1_000_000_000)
        guard !over else { return nil }
        let (total, over2) = ns.addingReportingOverflow(frac)
        return over2 ? nil : total
    }
}
