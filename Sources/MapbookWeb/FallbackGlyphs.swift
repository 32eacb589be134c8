import MapbookRender
import MapbookTiles
import Synchronization

/// Glyph ranges for fonts a base map's style names but its package does not ship, drawn from
/// the installed fonts (`GlyphRasterizer`): the family is the font stack's name without its
/// style words ("Roboto Bold" is Roboto, bold; fontconfig substitutes a family it lacks). Kept
/// once drawn.
final class FallbackGlyphs: Sendable {
    /// One for the process: what is drawn serves every server.
    static let shared = FallbackGlyphs()
    private let drawn = Mutex<[String: [UInt8]]>([:])
    /// The most ranges kept.
    static let capacity = 1024
    static let styleWords: Set<String> = ["regular", "bold", "italic", "medium", "light", "semibold", "black", "condensed", "extracondensed", "thin"]

    /// The range at `fonts/<stack>/<start>-<end>.pbf`; nil for any other path.
    func range(forPath path: String) -> [UInt8]? {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "fonts", parts[2].hasSuffix(".pbf") else { return nil }
        let bounds = parts[2].dropLast(4).split(separator: "-")
        guard bounds.count == 2, let start = UInt32(bounds[0]), let end = UInt32(bounds[1]), start % 256 == 0, end == start + 255, start < 0x110000 else { return nil }
        // A font stack may list several fonts, comma-separated: the first is drawn. Anyone
        // may ask (the portal's public pages too): a name is bounded, and so is what is kept.
        let stack = String(parts[1])
        guard stack.utf8.count <= 200 else { return nil }
        let key = "\(stack)/\(start)"
        if let kept = drawn.withLock({ $0[key] }) { return kept }
        let first = stack.split(separator: ",").first.map { String($0).trimmingWhitespace() } ?? stack
        let words = first.split(separator: " ").map(String.init)
        let family = words.filter { !Self.styleWords.contains($0.lowercased()) }.joined(separator: " ")
        let bold = words.contains { $0.lowercased() == "bold" || $0.lowercased() == "black" || $0.lowercased() == "semibold" }
        let bytes = GlyphRasterizer(family: family.isEmpty ? "Noto Sans" : family, bold: bold).range(start: start, fontStack: stack).encoded()
        drawn.withLock { drawn in
            if drawn.count >= Self.capacity, let any = drawn.keys.first { drawn[any] = nil }
            drawn[key] = bytes
        }
        return bytes
    }
}
