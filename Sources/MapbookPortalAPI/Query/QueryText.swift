/// How text is cut into words for search: runs of letters, digits and combining marks, in
/// lower case. Everything else (spaces, punctuation, `_`, symbols) separates words.
enum QueryText {
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            if isWordScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isAlphabetic || properties.numericType != nil { return true }
        // Marks keep a decomposed "é" in one word.
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// An item description's text without its HTML markup: tags and character references become
    /// spaces, so that `<p>` is not searchable as the word "p".
    static func withoutMarkup(_ html: String) -> String {
        var text = String.UnicodeScalarView()
        var inTag = false
        // Scalars after an `&`, kept until a `;` shows they were a reference like `&amp;`.
        var reference: String.UnicodeScalarView?
        for scalar in html.unicodeScalars {
            if inTag {
                if scalar == ">" {
                    inTag = false
                    text.append(" ")
                }
                continue
            }
            if var pending = reference {
                if scalar == ";" {
                    reference = nil
                    text.append(" ")
                    continue
                }
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "#", pending.count < 32 {
                    pending.append(scalar)
                    reference = pending
                    continue
                }
                // Not a reference: a plain ampersand and what followed it.
                text.append(contentsOf: pending)
                reference = nil
            }
            switch scalar {
            case "<": inTag = true
            case "&": reference = String.UnicodeScalarView()
            default: text.append(scalar)
            }
        }
        if let reference { text.append(contentsOf: reference) }
        return String(text)
    }
}
