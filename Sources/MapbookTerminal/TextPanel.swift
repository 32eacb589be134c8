import MapbookPackage
import MapbookRender

/// A box of text lines drawn at a place on the screen: a title, lines that scroll (one of
/// them chosen, in reverse video), and a line of keys at the bottom. The table of contents,
/// legend, bookmarks, search and pop-ups are panels; so are the library's and maps' lists.
struct TextPanel {
    /// One line: its text, with a coloured symbol before it (a legend's swatch) when given.
    struct Line {
        var text: String
        var symbol: (glyph: Character, color: RGBAColor?)?
        var isBold = false
        var isDim = false

        init(_ text: String, symbol: (glyph: Character, color: RGBAColor?)? = nil, bold: Bool = false, dim: Bool = false) {
            self.text = text
            self.symbol = symbol
            isBold = bold
            isDim = dim
        }
    }

    var title: String
    var lines: [Line]
    /// The chosen line, when the panel has a choice.
    var selection: Int?
    /// The first line shown, when there is no choice to keep in view.
    var top = 0
    var footer: String

    /// The lines that fit in `height` rows after the title and before the footer, so that
    /// the chosen one is in view.
    func visibleRange(height: Int) -> Range<Int> {
        let room = max(height - 2, 1)
        var first = min(max(top, 0), max(lines.count - room, 0))
        if let selection {
            if selection < first { first = selection }
            if selection >= first + room { first = selection - room + 1 }
        }
        return first..<min(first + room, lines.count)
    }

    /// The panel's text from `column`, `row` (cells from 1), `width` x `height` cells, with a
    /// border on its left.
    func text(column: Int, row: Int, width: Int, height: Int, mode: TerminalPicture.Mode, border: Bool = true) -> String {
        guard width > 3, height > 2 else { return "" }
        let inner = width - (border ? 2 : 1)
        var out = ""
        func put(_ r: Int, _ style: String, _ content: String, symbol: (glyph: Character, color: RGBAColor?)? = nil) {
            out += "\u{1B}[\(r);\(column)H\u{1B}[0m" + (border ? "│" : "") + style + " "
            var room = inner - 1
            if let symbol {
                out += Self.color(symbol.color, mode: mode) + String(symbol.glyph) + "\u{1B}[0m" + style + " "
                room -= 2
            }
            out += Self.fit(content, room) + "\u{1B}[0m"
        }
        put(row, "\u{1B}[1;7m", title)
        let range = visibleRange(height: height)
        for r in 0..<(height - 2) {
            let i = range.lowerBound + r
            guard i < range.upperBound else { put(row + 1 + r, "", ""); continue }
            let line = lines[i]
            var style = line.isBold ? "\u{1B}[1m" : line.isDim ? "\u{1B}[2m" : ""
            if i == selection { style += "\u{1B}[7m" }
            put(row + 1 + r, style, line.text, symbol: line.symbol)
        }
        let more = range.upperBound < lines.count ? "↓ " : range.lowerBound > 0 ? "↑ " : ""
        put(row + height - 1, "\u{1B}[2m", more + footer)
        return out
    }

    /// `text` cut or padded to `width` characters.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count > width { return String(text.prefix(width - 1)) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }

    /// `text` broken into lines of at most `width` characters, at spaces where it can be.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 1 else { return [text] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = String(word)
                if line.isEmpty {
                    line = word
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = word
                }
                while line.count > width {
                    lines.append(String(line.prefix(width)))
                    word = String(line.dropFirst(width))
                    line = word
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// The escape sequence for text in `color`, as the terminal's mode shows colours; empty
    /// without a colour or in 16 colours and none (NO_COLOR).
    static func color(_ color: RGBAColor?, mode: TerminalPicture.Mode) -> String {
        guard let color else { return "" }
        switch mode {
        case .colors16, .noColor:
            return ""
        case .colors256:
            // The 6 x 6 x 6 cube of the 256 colours.
            func level(_ v: Int) -> Int { v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40 }
            return "\u{1B}[38;5;\(16 + 36 * level(color.red) + 6 * level(color.green) + level(color.blue))m"
        default:
            return "\u{1B}[38;2;\(color.red);\(color.green);\(color.blue)m"
        }
    }
}
