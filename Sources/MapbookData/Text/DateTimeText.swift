import MapbookSupport

/// ISO 8601 dates and date-times read from ASCII bytes, for type inference and for the text
/// GeoPackage stores (GeoPackage 1.4, clause 1.1.1.1.1: `YYYY-MM-DD` and
/// `YYYY-MM-DDTHH:MM:SS.SSSZ`).
///
/// Accepts `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM`, `:SS`, a fraction, and `Z`
/// or an offset (`+HH`, `+HHMM`, `+HH:MM`). Uses the proleptic Gregorian calendar
/// (H. Hinnant's days-from-civil algorithms).
enum DateTimeText {
    struct Parsed {
        var year: Int, month: Int, day: Int
        /// Hour, minute and second, or nil for a date alone.
        var time: (hour: Int, minute: Int, second: Int)?
        /// The fraction's digits after the point, as written ("250" for ".250").
        var fraction: [UInt8]
        /// Minutes east of UTC; nil when no zone is given (local time).
        var offsetMinutes: Int?
    }

    /// Whether the whole of `s` is a valid `YYYY-MM-DD` date.
    static func isDate(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        s.count == 10 && parseDate(s) != nil
    }

    /// The date or date-time the whole of `s` spells, or nil.
    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Parsed? {
        guard s.count >= 10, let (y, m, d) = parseDate(s) else { return nil }
        var result = Parsed(year: y, month: m, day: d, time: nil, fraction: [], offsetMinutes: nil)
        if s.count == 10 { return result }
        guard s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t") || s[10] == UInt8(ascii: " "),
            s.count >= 16, s[13] == UInt8(ascii: ":"),
            let hour = number(s, 11, 2), let minute = number(s, 14, 2), hour < 24, minute < 60
        else { return nil }
        var second = 0
        var i = 16
        if i < s.count, s[i] == UInt8(ascii: ":") {
            guard let ss = number(s, i + 1, 2), ss < 60 else { return nil }
            second = ss
            i += 3
            if i < s.count, s[i] == UInt8(ascii: ".") {
                i += 1
                let start = i
                while i < s.count, s[i] &- 48 < 10 { i += 1 }
                guard i > start else { return nil }
                result.fraction = Array(s[start..<i])
            }
        }
        result.time = (hour, minute, second)
        if i == s.count { return result }
        if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
            guard i + 1 == s.count else { return nil }
            result.offsetMinutes = 0
            return result
        }
        guard s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-"), let oh = number(s, i + 1, 2), oh <= 18 else { return nil }
        var om = 0
        switch s.count - i {
        case 3: break
        case 5:
            guard let m = number(s, i + 3, 2) else { return nil }
            om = m
        case 6:
            guard s[i + 3] == UInt8(ascii: ":"), let m = number(s, i + 4, 2) else { return nil }
            om = m
        default: return nil
        }
        guard om < 60 else { return nil }
        result.offsetMinutes = (s[i] == UInt8(ascii: "-") ? -1 : 1) * (oh * 60 + om)
        return result
    }

    /// The ISO 8601 text GeoPackage stores for a date-time: `YYYY-MM-DDTHH:MM:SS[.fff]`, in
    /// UTC with a `Z` when the source gave a zone, without one (local time) when it did not.
    /// A date alone becomes its midnight.
    static func normalized(_ p: Parsed) -> String {
        var (y, m, d) = (p.year, p.month, p.day)
        var (hh, mm, ss) = p.time ?? (0, 0, 0)
        if let offset = p.offsetMinutes, offset != 0 {
            var minutes = Int(ISODate.days(fromCivil: Int64(y), Int64(m), Int64(d))) * 1440 + hh * 60 + mm - offset
            let dayCount = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440
            minutes -= dayCount * 1440
            let civil = ISODate.civil(fromDays: Int64(dayCount))
            (y, m, d) = (Int(civil.0), Int(civil.1), Int(civil.2))
            hh = minutes / 60
            mm = minutes % 60
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        func digits(_ v: Int, _ width: Int) {
            var divisor = 1
            var places = 1
            while divisor <= v / 10 {
                divisor *= 10
                places += 1
            }
            for _ in places..<max(width, places) { out.append(48) }
            while divisor > 0 {
                out.append(UInt8(48 + v / divisor % 10))
                divisor /= 10
            }
        }
        // Year 0000 with a positive offset falls into year -1.
        if y < 0 { out.append(UInt8(ascii: "-")) }
        digits(abs(y), 4)
        out.append(UInt8(ascii: "-"))
        digits(m, 2)
        out.append(UInt8(ascii: "-"))
        digits(d, 2)
        out.append(UInt8(ascii: "T"))
        digits(hh, 2)
        out.append(UInt8(ascii: ":"))
        digits(mm, 2)
        out.append(UInt8(ascii: ":"))
        digits(ss, 2)
        if !p.fraction.isEmpty {
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: p.fraction)
        }
        if p.offsetMinutes != nil { out.append(UInt8(ascii: "Z")) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func parseDate(_ s: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int)? {
        guard s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
            let y = number(s, 0, 4), let m = number(s, 5, 2), let d = number(s, 8, 2),
            m >= 1, m <= 12, d >= 1, Int64(d) <= ISODate.daysIn(month: Int64(m), year: Int64(y))
        else { return nil }
        return (y, m, d)
    }

    private static func number(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= s.count else { return nil }
        var v = 0
        for i in start..<(start + count) {
            let d = s[i] &- 48
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }
}
