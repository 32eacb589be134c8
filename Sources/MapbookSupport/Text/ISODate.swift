/// ISO 8601 dates in UTC, converted to and from Unix time without a calendar library.
///
/// Uses the proleptic Gregorian calendar (days-from-civil, H. Hinnant's algorithms).
public enum ISODate {
    /// `2026-11-22T10:15:00Z` for Unix milliseconds.
    public static func format(milliseconds: Int64) -> String {
        guard milliseconds.magnitude < 100_000_000_000_000_000 else { return "\(milliseconds) ms" }
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return format(seconds: seconds)
    }

    /// `2026-11-22 10:15` for Unix milliseconds: the date and the minute, for tables and lists.
    public static func formatMinutes(milliseconds: Int64) -> String {
        String(format(milliseconds: milliseconds).prefix(16).map { $0 == "T" ? " " : $0 })
    }

    /// `2026-11-22T10:15:00Z` for Unix seconds.
    public static func format(seconds: Int64) -> String {
        // Beyond the year ±3 million the calendar arithmetic below could overflow.
        guard seconds.magnitude < 100_000_000_000_000 else { return "\(seconds) s" }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = y < 0 ? "-" + String(-y) : (y < 1000 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y))
        return "\(year)-\(two(m))-\(two(d))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` with `Z` or `±HH:MM`, or a space for `T`.
    /// A date without a time means midnight UTC. Returns Unix seconds.
    public static func parse(_ text: String) -> Int64? {
        // Stored dates have nothing to trim: the Unicode-aware trim (slow, per Character) only
        // when an end is white space or not ASCII.
        var s = Array(text.utf8)
        if let first = s.first, let last = s.last, first <= 0x20 || last <= 0x20 || first >= 0x80 || last >= 0x80 {
            s = Array(text.trimmingWhitespace().utf8)
        }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= s.count, range.allSatisfy({ s[$0] >= 48 && s[$0] <= 57 }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int64(s[$1] - 48) }
        }
        guard s.count >= 10, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
            (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y)
        else { return nil }
        var seconds = days(fromCivil: y, m, d) * 86_400
        guard s.count > 10 else { return seconds }
        guard s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: " "), s.count >= 16, s[13] == UInt8(ascii: ":"),
            let hh = number(11..<13), let mm = number(14..<16), hh < 24, mm < 60
        else { return nil }
        seconds += hh * 3600 + mm * 60
        var i = 16
        if i < s.count, s[i] == UInt8(ascii: ":") {
            guard let ss = number((i + 1)..<(i + 3)), ss < 61 else { return nil }
            seconds += ss
            i += 3
            // Fractions of a second are accepted and dropped.
            if i < s.count, s[i] == UInt8(ascii: ".") {
                i += 1
                while i < s.count, s[i] >= 48, s[i] <= 57 { i += 1 }
            }
        }
        if i == s.count { return seconds }
        if s[i] == UInt8(ascii: "Z"), i + 1 == s.count { return seconds }
        if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-"), s.count == i + 6, s[i + 3] == UInt8(ascii: ":"),
            let oh = number((i + 1)..<(i + 3)), let om = number((i + 4)..<(i + 6))
        {
            let offset = oh * 3600 + om * 60
            return s[i] == UInt8(ascii: "+") ? seconds - offset : seconds + offset
        }
        return nil
    }

    /// The number of days in month `m` of year `y` (proleptic Gregorian).
    public static func daysIn(month m: Int64, year y: Int64) -> Int64 {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a civil date.
    public static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date (year, month, day) of a day count since 1970-01-01.
    public static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
