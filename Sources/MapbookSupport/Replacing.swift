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

extension String {
    /// The text with each `{name}` replaced by `value(name)`, as pop-up titles and legacy
    /// style tokens write fields; a `{` without its `}` is kept as it is.
    package func fillingPlaceholders(_ value: (String) -> String) -> String {
        guard contains("{") else { return self }
        var out = ""
        var rest = Substring(self)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            out += value(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The names between braces, in order.
    package var placeholderNames: [String] {
        var names: [String] = []
        _ = fillingPlaceholders { names.append($0); return "" }
        return names
    }
}
