/// Integers and decimal numbers read straight from ASCII bytes, for the text importers.
///
/// Works on bytes so a CSV cell or a WKT coordinate never becomes a `String` first. Decimal
/// numbers take Clinger's exact fast path (a mantissa below 2^53 scaled by an exact power of
/// ten) and fall back to the standard library's correctly rounded parser otherwise.
enum DecimalText {
    /// How strict a caller is about the spelling of a number.
    struct Rules {
        /// Whether a leading `+` is accepted.
        var plusSign: Bool
        /// Whether an integer part may start with a zero followed by more digits ("007").
        var leadingZeros: Bool

        /// What type inference accepts: no `+` and no leading zeros, so phone numbers ("+44...")
        /// and identifiers ("02134") stay text.
        static let inference = Rules(plusSign: false, leadingZeros: false)
        /// What a value of a column declared numeric, a coordinate, or WKT may look like.
        static let lenient = Rules(plusSign: true, leadingZeros: true)
    }

    /// The integer the whole of `s` spells, or nil when it is not one or does not fit an `Int64`.
    static func int64(_ s: UnsafeBufferPointer<UInt8>, _ rules: Rules) -> Int64? {
        var i = 0
        let n = s.count
        var negative = false
        if i < n, s[i] == UInt8(ascii: "-") || (rules.plusSign && s[i] == UInt8(ascii: "+")) {
            negative = s[i] == UInt8(ascii: "-")
            i += 1
        }
        let first = i
        guard i < n else { return nil }
        if !rules.leadingZeros, s[i] == UInt8(ascii: "0"), n - i > 1 { return nil }
        // Accumulate negatively so Int64.min parses.
        var value: Int64 = 0
        while i < n {
            let d = s[i] &- 48
            guard d < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            value = next
            i += 1
        }
        guard i > first else { return nil }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// The finite number the whole of `s` spells ("12", "-.5", "1e5", "3.25E-2"), or nil.
    static func double(_ s: UnsafeBufferPointer<UInt8>, _ rules: Rules) -> Double? {
        var i = 0
        guard let value = scan(s, &i, rules), i == s.count else { return nil }
        return value
    }

    /// Reads the finite number at `s[i...]`, leaving `i` just past it; nil (and `i` unchanged)
    /// when there is no number there.
    static func scan(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ rules: Rules) -> Double? {
        let n = s.count
        let start = i
        var j = i
        var negative = false
        if j < n, s[j] == UInt8(ascii: "-") || (rules.plusSign && s[j] == UInt8(ascii: "+")) {
            negative = s[j] == UInt8(ascii: "-")
            j += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var truncated = false

        let integerStart = j
        while j < n, s[j] &- 48 < 10 {
            let d = UInt64(s[j] &- 48)
            if mantissa == 0 && d == 0 {
                // Leading zeros carry no digits.
            } else if significant < 19 {
                mantissa = mantissa * 10 + d
                significant += 1
            } else {
                exponent += 1
                truncated = truncated || d != 0
            }
            j += 1
        }
        let integerDigits = j - integerStart
        if !rules.leadingZeros, integerDigits > 1, s[integerStart] == UInt8(ascii: "0") { return nil }
        var fractionDigits = 0
        if j < n, s[j] == UInt8(ascii: ".") {
            j += 1
            let fractionStart = j
            while j < n, s[j] &- 48 < 10 {
                let d = UInt64(s[j] &- 48)
                if mantissa == 0 && d == 0 {
                    exponent -= 1
                } else if significant < 19 {
                    mantissa = mantissa * 10 + d
                    significant += 1
                    exponent -= 1
                } else {
                    truncated = truncated || d != 0
                }
                j += 1
            }
            fractionDigits = j - fractionStart
        }
        guard integerDigits + fractionDigits > 0 else { return nil }
        if j < n, s[j] | 0x20 == UInt8(ascii: "e") {
            var k = j + 1
            var exponentNegative = false
            if k < n, s[k] == UInt8(ascii: "-") || s[k] == UInt8(ascii: "+") {
                exponentNegative = s[k] == UInt8(ascii: "-")
                k += 1
            }
            let digitsStart = k
            var e = 0
            while k < n, s[k] &- 48 < 10 {
                // Clamp: anything past this is zero or infinite anyway.
                if e < 100_000 { e = e * 10 + Int(s[k] &- 48) }
                k += 1
            }
            // "1e" or "1e+" is not a number with an exponent: leave the "e" for the caller.
            if k > digitsStart {
                exponent += exponentNegative ? -e : e
                j = k
            }
        }

        let value: Double
        if mantissa == 0 {
            value = 0
        } else if !truncated, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            let m = Double(mantissa)
            value = exponent >= 0 ? m * powersOfTen[exponent] : m / powersOfTen[-exponent]
        } else {
            // Rare: many digits or a large exponent. The syntax is already checked, and it is
            // one the standard library's parser accepts.
            let text = String(decoding: UnsafeBufferPointer(rebasing: s[start..<j]), as: UTF8.self)
            guard let parsed = Double(text) else { return nil }
            value = parsed.magnitude
        }
        guard value.isFinite else { return nil }
        i = j
        return negative ? -value : value
    }

    /// 10^0 through 10^22, every one exactly representable as a Double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// `s` without leading and trailing spaces and tabs.
    static func trimmed(_ s: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0
        var upper = s.count
        while lower < upper, s[lower] == 0x20 || s[lower] == 0x09 { lower += 1 }
        while upper > lower, s[upper - 1] == 0x20 || s[upper - 1] == 0x09 { upper -= 1 }
        return UnsafeBufferPointer(rebasing: s[lower..<upper])
    }
}
