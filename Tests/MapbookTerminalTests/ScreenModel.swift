#if canImport(Glibc)
import Glibc
#endif
import MapbookTerminal

/// A terminal for tests: keys go in as the bytes a terminal sends, and what the viewer writes
/// comes out as a grid of cells, each with its character and style.
///
/// It interprets exactly the escape sequences the viewer's frames carry, as xterm and tmux do:
/// cursor moves (CSI H, G, C), erasing the screen (CSI 2J), SGR colours and attributes (16, 256
/// and 24-bit colours, bold, dim, reverse), repeating a character (CSI b), the synchronized-update
/// marks (CSI ?2026h and l), images as kitty's APC strings (counted, not drawn), line feeds that
/// start the next row at its first column (the viewer keeps OPOST on), and wrapping and
/// scrolling at the edges. Any other sequence is kept in `unknown`, so that a test sees the
/// viewer write something this model (and perhaps a terminal) does not follow.
final class ScreenModel: Terminal {
    enum Color: Equatable, CustomStringConvertible {
        case standard
        /// 0...15 the 16 colours (8...15 bright), 16...255 the cube and the greys.
        case indexed(Int)
        case rgb(Int, Int, Int)

        var description: String {
            switch self {
            case .standard: return "standard"
            case .indexed(let i): return "\(i)"
            case .rgb(let r, let g, let b): return "rgb(\(r),\(g),\(b))"
            }
        }
    }

    struct Style: Equatable {
        var foreground = Color.standard
        var background = Color.standard
        var bold = false
        var dim = false
        var reverse = false
    }

    struct Cell: Equatable {
        var character: Character = " "
        var style = Style()
    }

    private(set) var columns: Int
    private(set) var rows: Int
    /// The grid as the viewer is writing it.
    private(set) var cells: [[Cell]]
    /// The grid at the end of the last synchronized update: the last whole frame.
    private(set) var frame: [[Cell]]
    /// How many whole frames were written.
    private(set) var frames = 0
    /// Escape sequences this model does not interpret, as written.
    private(set) var unknown: [String] = []
    /// How many images (kitty APC strings) were written.
    private(set) var images = 0
    /// The bytes waiting to be read, one read each.
    var input: [[UInt8]] = []
    /// Set to make the next read find the terminal gone.
    var hangUp = false
    private var resized = false
    private(set) var isClosed = false

    private var row = 0, column = 0
    /// Whether the cursor stands past the last column: the next character wraps.
    private var pendingWrap = false
    private var style = Style()
    private var inUpdate = false

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Self.blank(columns, rows)
        frame = cells
    }

    static func blank(_ columns: Int, _ rows: Int) -> [[Cell]] {
        Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
    }

    /// A new size, as a window resized: the grid cut or padded (as tmux crops), and the
    /// resize reported to the viewer.
    func resize(columns: Int, rows: Int) {
        cells = (0..<rows).map { r in
            (0..<columns).map { c in r < cells.count && c < cells[r].count ? cells[r][c] : Cell() }
        }
        self.columns = columns
        self.rows = rows
        row = min(row, rows - 1)
        column = min(column, columns - 1)
        resized = true
    }

    // MARK: - Terminal

    func size() -> TerminalSize { (columns, rows, 0, 0) }

    func takeResize() -> Bool {
        defer { resized = false }
        return resized
    }

    /// The next bytes typed; with none waiting, nothing, after `milliseconds` (the time a
    /// real terminal's read waits, in which background work goes on).
    func read(waiting milliseconds: Int32) -> [UInt8] {
        if hangUp {
            isClosed = true
            return []
        }
        guard input.isEmpty else { return input.removeFirst() }
        if milliseconds > 0 { usleep(useconds_t(milliseconds) * 1000) }
        return []
    }

    func write(_ text: String) {
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            switch c {
            case "\u{1B}": escape(&characters)
            case "\n", "\r\n": lineFeed()
            case "\r":
                column = 0
                pendingWrap = false
            default: put(c)
            }
        }
    }

    // MARK: - Reading the screen

    /// The last frame's rows as text.
    var lines: [String] { frame.map { String($0.map(\.character)) } }

    /// The last frame as text, a row a line, trailing blanks dropped.
    var text: String {
        lines.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// The last row: the status line of the map and the lists.
    var statusLine: String { lines.last ?? "" }

    /// The cells of the last frame's row `row` (from 0) whose text contains `text`, from
    /// where it starts; nil when the row does not.
    func cells(of text: String, row: Int) -> ArraySlice<Cell>? {
        let line = Array(lines[row])
        let wanted = Array(text)
        guard wanted.count <= line.count else { return nil }
        for start in 0...(line.count - wanted.count) where Array(line[start..<(start + wanted.count)]) == wanted {
            return frame[row][start..<(start + wanted.count)]
        }
        return nil
    }

    /// The first cells of the last frame that show `text`, in the first row that has it.
    func cells(of text: String) -> ArraySlice<Cell>? {
        for row in 0..<frame.count { if let found = cells(of: text, row: row) { return found } }
        return nil
    }

    // MARK: - Interpreting

    private func put(_ c: Character) {
        if pendingWrap {
            pendingWrap = false
            column = 0
            lineFeed()
        }
        if row < rows, column < columns { cells[row][column] = Cell(character: c, style: style) }
        if column == columns - 1 { pendingWrap = true } else { column += 1 }
    }

    private func lineFeed() {
        pendingWrap = false
        column = 0
        if row == rows - 1 {
            cells.removeFirst()
            cells.append(Array(repeating: Cell(), count: columns))
        } else {
            row += 1
        }
    }

    private func escape(_ characters: inout ArraySlice<Character>) {
        guard let kind = characters.popFirst() else {
            unknown.append("ESC at the end")
            return
        }
        switch kind {
        case "[":
            var parameters = ""
            while let p = characters.popFirst() {
                if let ascii = p.asciiValue, (0x40...0x7E).contains(ascii) {
                    control(parameters, final: p)
                    return
                }
                parameters.append(p)
            }
            unknown.append("ESC[" + parameters)
        case "_":
            // An APC string (a kitty image or its deletion), to the string terminator.
            while let p = characters.popFirst() {
                if p == "\u{1B}", characters.first == "\\" {
                    characters.removeFirst()
                    break
                }
            }
            images += 1
        default:
            unknown.append("ESC" + String(kind))
        }
    }

    private func control(_ parameters: String, final: Character) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ i: Int, _ otherwise: Int = 1) -> Int { i < numbers.count ? numbers[i] ?? otherwise : otherwise }
        switch (final, parameters) {
        case ("h", "?2026"): inUpdate = true
        case ("l", "?2026"):
            if inUpdate { frame = cells; frames += 1 }
            inUpdate = false
        case ("H", _):
            row = min(max(number(0) - 1, 0), rows - 1)
            column = min(max(number(1) - 1, 0), columns - 1)
            pendingWrap = false
        case ("G", _):
            column = min(max(number(0) - 1, 0), columns - 1)
            pendingWrap = false
        case ("C", _):
            column = min(column + max(number(0), 1), columns - 1)
            pendingWrap = false
        case ("J", "2"):
            cells = Self.blank(columns, rows)
        case ("b", _):
            if column > 0 || pendingWrap, row < rows {
                let last = cells[row][pendingWrap ? column : column - 1].character
                for _ in 0..<max(number(0), 1) { put(last) }
            }
        case ("m", _):
            graphics(numbers.map { $0 ?? 0 })
        default:
            unknown.append("ESC[" + parameters + String(final))
        }
    }

    /// SGR: Select Graphic Rendition (ECMA-48 8.3.117, with xterm's 256 and 24-bit colours).
    private func graphics(_ codes: [Int]) {
        var i = 0
        func color(_ from: Int) -> (Color, Int)? {
            guard from + 1 < codes.count else { return nil }
            if codes[from + 1] == 5, from + 2 < codes.count { return (.indexed(codes[from + 2]), 3) }
            if codes[from + 1] == 2, from + 4 < codes.count { return (.rgb(codes[from + 2], codes[from + 3], codes[from + 4]), 5) }
            return nil
        }
        while i < codes.count {
            let code = codes[i]
            switch code {
            case 0: style = Style()
            case 1: style.bold = true
            case 2: style.dim = true
            case 7: style.reverse = true
            case 22: style.bold = false; style.dim = false
            case 27: style.reverse = false
            case 30...37: style.foreground = .indexed(code - 30)
            case 39: style.foreground = .standard
            case 40...47: style.background = .indexed(code - 40)
            case 49: style.background = .standard
            case 90...97: style.foreground = .indexed(code - 90 + 8)
            case 100...107: style.background = .indexed(code - 100 + 8)
            case 38, 48:
                guard let (value, length) = color(i) else {
                    unknown.append("SGR \(codes)")
                    return
                }
                if code == 38 { style.foreground = value } else { style.background = value }
                i += length - 1
            default:
                unknown.append("SGR \(code) in \(codes)")
            }
            i += 1
        }
    }
}
