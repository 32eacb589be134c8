/// One word of a query term, as it is compared with the words of an item's text: exactly, as a
/// prefix (`wat*`) or as a wildcard pattern (`w?ter`, `wa*r`).
enum TokenPattern: Equatable {
    case word(String)
    case prefix(String)
    case wildcard([Unicode.Scalar])

    /// The word patterns of a term's value, in order; empty when it has no letters or digits.
    ///
    /// A phrase's `*` and `?` are punctuation; otherwise they are wildcards within their word.
    static func patterns(value: String, phrase: Bool, prefix: Bool) -> [TokenPattern] {
        let folded = value.lowercased()
        let wildcards = !phrase && !prefix && folded.unicodeScalars.contains { $0 == "*" || $0 == "?" }
        guard wildcards else {
            var patterns = QueryText.words(folded).map(TokenPattern.word)
            if prefix, case .word(let last)? = patterns.last { patterns[patterns.count - 1] = .prefix(last) }
            return patterns
        }
        var patterns: [TokenPattern] = []
        var current: [Unicode.Scalar] = []
        func flush() {
            guard !current.isEmpty else { return }
            patterns.append(current.contains { $0 == "*" || $0 == "?" } ? .wildcard(current) : .word(String(String.UnicodeScalarView(current))))
            current = []
        }
        for scalar in folded.unicodeScalars {
            if QueryText.isWordScalar(scalar) || scalar == "*" || scalar == "?" { current.append(scalar) } else { flush() }
        }
        flush()
        return patterns
    }

    /// Whether a lower-case word of an item matches.
    func matches(_ token: String) -> Bool {
        switch self {
        case .word(let word): token == word
        case .prefix(let prefix): token.hasPrefix(prefix)
        case .wildcard(let pattern): Self.wildcardMatches(pattern, Array(token.unicodeScalars))
        }
    }

    /// Whether `pattern` (`?` one scalar, `*` any run) matches all of `text`.
    ///
    /// The usual greedy match that returns to the last `*` on a mismatch: time is bounded by
    /// pattern length times text length, never exponential, whatever the pattern.
    static func wildcardMatches(_ pattern: [Unicode.Scalar], _ text: [Unicode.Scalar]) -> Bool {
        var p = 0, t = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
