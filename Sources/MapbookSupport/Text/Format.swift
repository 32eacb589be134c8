/// Numbers, sizes and counts as people read them in reports (the command line, the viewer).
package enum Format {
    /// "1 feature", "2,500 features": the count with its noun, plural unless one.
    package static func count<T: BinaryInteger>(_ n: T, _ noun: String) -> String {
        "\(count(n)) \(noun)\(n == 1 ? "" : "s")"
    }

    /// 1234567 -> "1,234,567".
    package static func count<T: BinaryInteger>(_ n: T) -> String {
        // On bytes: `inspect` writes one for each of a package's ten thousand entries.
        let digits = Array(String(n.magnitude).utf8)
        var out: [UInt8] = n < 0 ? [UInt8(ascii: "-")] : []
        out.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(UInt8(ascii: ",")) }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 1536 -> "1.5 KiB".
    package static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(n) B" }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded) \(units[unit])"
    }

    /// "512M", "2G", "1.5GiB", "800000" -> bytes: K, M, G and T (with or without B or iB, any
    /// case) are powers of 1024, as tippecanoe and sort(1) read them; nil for anything else.
    package static func parseBytes(_ text: String) -> Int? {
        var number = Substring(text.lowercased().filter { $0 != " " })
        for suffix in ["ib", "b"] where number.hasSuffix(suffix) {
            number = number.dropLast(suffix.count)
            break
        }
        var scale = 1.0
        if let last = number.last, let power = ["k", "m", "g", "t"].firstIndex(of: String(last)) {
            scale = Double(1 << (10 * (power + 1)))
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale < 9e18 else { return nil }
        return Int((value * scale).rounded())
    }

    package static func number(_ d: Double) -> String {
        if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) }
        let scaled = (d * 1e6).rounded() / 1e6
        return "\(scaled)"
    }

    /// A map scale denominator: 5000 -> "5,000"; nonsense values as they are.
    package static func scale(_ d: Double) -> String {
        guard let whole = Int64(exactly: d.rounded()), whole > 0 else { return "\(d)" }
        return count(whole)
    }

    package static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    package static func padLeft(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }

    /// Rows as aligned columns two spaces apart, each as wide as its widest cell; the columns
    /// in `rightAligned` (numbers, sizes) aligned right; no trailing spaces.
    package static func table(_ rows: [[String]], indent: String = "", rightAligned: Set<Int> = []) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { i in rows.map { i < $0.count ? $0[i].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = indent + row.enumerated().map { i, cell in rightAligned.contains(i) ? padLeft(cell, widths[i]) : pad(cell, widths[i]) }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
