extension String {
    /// The text with every occurrence of `target` replaced, left to right without overlaps
    /// (Foundation's `replacingOccurrences(of:with:)`, which the rooms below Foundation lack).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
