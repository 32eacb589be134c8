/// A search token: a run of letters or a run of digits, folded (see `CharacterFolding`).
public struct SearchToken: Sendable, Hashable, Comparable {
    /// The folded scalars.
    public var scalars: [UInt32]
    /// Digits only: matched exactly (or as a typed prefix), never with typos.
    public var isNumber: Bool

    public init(scalars: [UInt32], isNumber: Bool) {
        self.scalars = scalars
        self.isNumber = isNumber
    }

    public init(_ text: String) {
        let tokens = SearchText.tokens(text)
        self = tokens.first ?? SearchToken(scalars: [], isNumber: false)
    }

    public var text: String {
        var s = String.UnicodeScalarView()
        for v in scalars { if let u = Unicode.Scalar(v) { s.append(u) } }
        return String(s)
    }

    /// The token as UTF-8 bytes: the key under which the index stores it. UTF-8 byte order
    /// is scalar order, so sorted keys are sorted tokens.
    public var utf8: [UInt8] { Array(text.utf8) }

    public static func < (a: SearchToken, b: SearchToken) -> Bool { a.scalars.lexicographicallyPrecedes(b.scalars) }

    /// The typo budget for a token of this length (DESIGN.md section 3.5): none under 4
    /// characters, 1 edit for 4 to 7, 2 for 8 and more; none for numbers.
    public var editBudget: Int {
        if isNumber { return 0 }
        switch scalars.count {
        case ..<4: return 0
        case 4...7: return 1
        default: return 2
        }
    }
}

/// Turns text into search tokens: what the index stores and what a query is matched with.
///
/// Case, diacritics, punctuation and spacing do not matter ("São Paulo" and "sao-paulo" give
/// the same tokens); letters and digits form separate tokens ("HYD-00123" and "hyd00123" both
/// give `hyd` and `00123`), so a number typed alone finds the ID it is part of.
public enum SearchText {
    /// Tokens longer than this are cut: nobody types them, and they would only cost time.
    public static let maximumTokenLength = 64

    public static func tokens(_ text: String) -> [SearchToken] {
        var tokens: [SearchToken] = []
        var current: [UInt32] = []
        var currentIsNumber = false
        func flush() {
            if !current.isEmpty {
                tokens.append(SearchToken(scalars: Array(current.prefix(maximumTokenLength)), isNumber: currentIsNumber))
                current.removeAll(keepingCapacity: true)
            }
        }
        for scalar in text.unicodeScalars {
            switch CharacterFolding.fold(scalar) {
            case .letters(let folded):
                if currentIsNumber { flush() }
                currentIsNumber = false
                current.append(contentsOf: folded)
            case .digit(let d):
                if !currentIsNumber { flush() }
                currentIsNumber = true
                current.append(d)
            case .ignored:
                continue
            case .separator:
                flush()
            }
        }
        flush()
        return tokens
    }

    /// The tokens joined by single spaces: text as search sees it ("sao paulo").
    public static func normalized(_ text: String) -> String {
        tokens(text).map(\.text).joined(separator: " ")
    }

    /// Whether the text ends inside a token (the user is still typing it) rather than after a
    /// space or punctuation.
    public static func endsInToken(_ text: String) -> Bool {
        guard let last = text.unicodeScalars.last else { return false }
        switch CharacterFolding.fold(last) {
        case .letters, .digit: return true
        case .ignored, .separator: return false
        }
    }
}
