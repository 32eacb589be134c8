extension StringProtocol {
    /// The text without the characters of `set` at either end.
    package func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }

    /// The text without the one new line at its end, if it has one (what a JSON writer adds).
    package func trimmingTrailingNewline() -> String { hasSuffix("\n") ? String(dropLast()) : String(self) }

    /// The text right-aligned in `width` characters (spaces before it).
    package func leftPadded(_ width: Int) -> String { count >= width ? String(self) : String(repeating: " ", count: width - count) + self }

    /// The text without white space (Unicode's, new lines included) at either end.
    package func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
