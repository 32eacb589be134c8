import MapbookSupport
import Synchronization

/// Folds one Unicode scalar to what search compares: lower case, no diacritics, ligatures and
/// full-width forms spelled out, digits of any script as ASCII digits.
///
/// Swift's standard library exposes no canonical decomposition without Foundation, but it does
/// expose every scalar's Unicode name, and Latin, Greek and Cyrillic letters with marks are
/// named after their base letter ("LATIN SMALL LETTER A WITH TILDE"). Folding from the name
/// covers the precomposed letters of every Latin-script language, including the ones that
/// Unicode does not decompose (ø, ł, đ, ħ), which NFD-based folding (SQLite's unicode61
/// `remove_diacritics 1`) leaves alone. Combining marks, for text that arrives decomposed, are
/// dropped by the tokenizer. Results for non-ASCII scalars are cached.
enum CharacterFolding {
    /// What a scalar becomes.
    enum Fold: Equatable {
        /// Part of a word: the folded scalars (one or more, "ß" -> "ss").
        case letters([UInt32])
        /// A decimal digit, as its ASCII value.
        case digit(UInt32)
        /// A combining mark or a joiner inside a word ("O'Brien"): dropped without splitting.
        case ignored
        /// Anything else: a token boundary.
        case separator
    }

    private static let cache = Mutex<[UInt32: Fold]>([:])

    static func fold(_ scalar: Unicode.Scalar) -> Fold {
        let v = scalar.value
        if v < 0x80 {
            switch v {
            case 0x30...0x39: return .digit(v)
            case 0x41...0x5A: return .letters([v + 32])
            case 0x61...0x7A: return .letters([v])
            case 0x27: return .ignored
            default: return .separator
            }
        }
        if let known = cache.withLock({ $0[v] }) { return known }
        let folded = computeFold(scalar)
        cache.withLock { $0[v] = folded }
        return folded
    }

    private static func computeFold(_ scalar: Unicode.Scalar) -> Fold {
        let p = scalar.properties
        switch p.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return .ignored
        case .decimalNumber:
            if let n = p.numericValue, n >= 0, n <= 9 { return .digit(0x30 + UInt32(n)) }
            return .separator
        default: break
        }
        // Apostrophes and the modifier letter apostrophe join a word ("Côte d’Ivoire" keeps
        // "divoire", as typed without the mark).
        if [0x2019, 0x02BC, 0x2018, 0x00B4, 0x0060, 0x02BB].contains(scalar.value) { return .ignored }
        guard p.isAlphabetic || p.generalCategory == .otherNumber || p.generalCategory == .letterNumber else { return .separator }
        if let fromName = foldByName(p.name ?? "") { return .letters(fromName) }
        let lower = p.lowercaseMapping.unicodeScalars.map(\.value)
        return .letters(lower.isEmpty ? [scalar.value] : lower)
    }

    /// Letters spelled by a Latin letter's name, or nil when the name says nothing useful.
    static func foldByName(_ name: String) -> [UInt32]? {
        var words = name.split(separator: " ").map(String.init)
        if words.first == "FULLWIDTH" || words.first == "HALFWIDTH" { words.removeFirst() }
        if words.starts(with: ["DIGIT"]), words.count == 2 {
            let digits = ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"]
            return digits.firstIndex(of: words[1]).map { [0x30 + UInt32($0)] }
        }
        guard words.first == "LATIN", words.count >= 4 else {
            return foldGreekOrCyrillic(words)
        }
        // LATIN SMALL LIGATURE FI, LATIN CAPITAL LETTER A WITH GRAVE, LATIN LETTER SMALL CAPITAL R
        var rest = Array(words.dropFirst())
        rest.removeAll { $0 == "SMALL" || $0 == "CAPITAL" }
        guard let kind = rest.first, kind == "LETTER" || kind == "LIGATURE" else { return nil }
        rest.removeFirst()
        if let with = rest.firstIndex(where: { $0 == "WITH" || $0 == "BELOW" || $0 == "ABOVE" }) { rest = Array(rest[..<with]) }
        if rest.first == "TURNED" || rest.first == "REVERSED" || rest.first == "SCRIPT" || rest.first == "CLOSED" { rest.removeFirst() }
        guard let letter = rest.first, rest.count == 1 else {
            let named: [String: String] = ["SHARP S": "ss", "DOTLESS I": "i", "DOTLESS J": "j", "LONG S": "s", "OPEN O": "o", "OPEN E": "e"]
            return named[rest.joined(separator: " ")].map { $0.unicodeScalars.map(\.value) }
        }
        let named: [String: String] = ["ETH": "d", "THORN": "th", "ENG": "ng", "SCHWA": "e", "EZH": "z", "ALPHA": "a", "GAMMA": "g", "IOTA": "i", "UPSILON": "u"]
        if let n = named[letter] { return n.unicodeScalars.map(\.value) }
        guard letter.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }), letter.count <= 2 else { return nil }
        return letter.lowercased().unicodeScalars.map(\.value)
    }

    /// Greek and Cyrillic letters with marks, folded to the base letter of the same name.
    private static func foldGreekOrCyrillic(_ words: [String]) -> [UInt32]? {
        guard let script = words.first, script == "GREEK" || script == "CYRILLIC",
            let with = words.firstIndex(of: "WITH"), with > 1
        else { return nil }
        let base = words[..<with].joined(separator: " ").replacingAll("CAPITAL", with: "SMALL")
        return baseLetters[base].map { [$0] }
    }

    /// Names of the unmarked Greek and Cyrillic small letters.
    private static let baseLetters: [String: UInt32] = {
        var out: [String: UInt32] = [:]
        for v in UInt32(0x03B1)...0x03C9 { if let s = Unicode.Scalar(v), let n = s.properties.name { out[n] = v } }
        for v in UInt32(0x0430)...0x045F { if let s = Unicode.Scalar(v), let n = s.properties.name { out[n] = v } }
        return out
    }()
}
