#if canImport(Glibc)
import Glibc
#endif
import MapbookLibrary
import MapbookRender
import MapbookSupport
import Testing

@testable import MapbookTerminal

/// The viewer run on a `ScreenModel` one turn of its loop at a time: a key is handed over as
/// a read, and `press` returns once the loop has handled it and written the frame it asked
/// for, so a test reads the screen right after without waiting.
final class ViewerDriver {
    /// The keys as a terminal sends them.
    enum Key {
        static let escape = "\u{1B}", enter = "\r", tab = "\t", backspace = "\u{7F}"
        static let up = "\u{1B}[A", down = "\u{1B}[B", right = "\u{1B}[C", left = "\u{1B}[D"
        static let pageUp = "\u{1B}[5~", pageDown = "\u{1B}[6~"
        static func control(_ letter: Character) -> String { String(UnicodeScalar(letter.asciiValue! - 0x60)) }
        /// A click of the left button on a cell (from 1): pressed, then let go.
        static func click(column: Int, row: Int) -> [String] { ["\u{1B}[<0;\(column);\(row)M", "\u{1B}[<0;\(column);\(row)m"] }
    }

    let terminal: ScreenModel
    let loop: ViewerLoop
    /// False once a key quit the viewer.
    private(set) var isRunning = true

    /// The viewer as `mapbook view [PKG] [--map MAP]` starts it, on a terminal of `columns` x `rows`.
    init(context: ViewerContext, package: String? = nil, map: String? = nil, columns: Int = 100, rows: Int = 30) throws {
        terminal = ScreenModel(columns: columns, rows: rows)
        loop = try ViewerLoop(terminal: terminal, context: context, package: package, map: map)
        loop.draw()
    }

    deinit {
        if isRunning { loop.stack.close() }
    }

    /// A context for tests: the device library at `home`, pictures as `mode` prints them.
    static func context(home: String, mode: TerminalPicture.Mode = .colors256) -> ViewerContext {
        ViewerContext(library: DeviceLibrary(root: home), mode: mode, trust: .system)
    }

    /// The screen shown.
    var screen: any TerminalScreen { loop.stack.top }

    /// Hands each of `keys` to the viewer as a read of its own, as typed one after another;
    /// returns when the viewer has handled the last and drawn what it changed.
    func press(_ keys: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        press(keys, sourceLocation: sourceLocation)
    }

    func press(_ keys: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for key in keys {
            guard isRunning else {
                Issue.record("the viewer has quit; '\(key)' was not handed to it", sourceLocation: sourceLocation)
                return
            }
            terminal.input.append(Array(key.utf8))
            turn(waiting: 0)
        }
        #expect(terminal.unknown.isEmpty, "sequences the model does not follow: \(terminal.unknown.prefix(5))", sourceLocation: sourceLocation)
    }

    /// Types `text` a character at a time.
    func type(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        press(text.map { String($0) }, sourceLocation: sourceLocation)
    }

    /// Lets the viewer run (as it does between keys) until `condition` holds for the screen,
    /// or `seconds` pass; whether it came. For what background work shows.
    func wait(seconds: Double = 30, until condition: (ScreenModel) -> Bool) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        while !condition(terminal) {
            clock_gettime(CLOCK_MONOTONIC, &now)
            guard isRunning, Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 < deadline else { return false }
            turn(waiting: 50)
        }
        return true
    }

    /// The terminal resized; returns when the viewer has drawn for the new size.
    func resize(columns: Int, rows: Int) {
        terminal.resize(columns: columns, rows: rows)
        turn(waiting: 0)
    }

    /// One turn of the viewer's loop; when it stops, its screens are closed as `run` closes them.
    private func turn(waiting milliseconds: Int32) {
        guard isRunning else { return }
        if !loop.step(waiting: milliseconds) {
            isRunning = false
            loop.stack.close()
        }
    }

    // MARK: - What the map screen shows

    /// The column (from 0) of the border of the panel beside the map.
    var panelBorder: Int {
        MapScreen.layout(terminal.size(), banner: (screen as? MapScreen)?.banner != nil, panel: true).columns
    }

    /// The panel beside the map: each row's text after its border, trimmed.
    var panel: [String] {
        let border = panelBorder
        return terminal.lines.dropLast().compactMap { line in
            let characters = Array(line)
            guard characters.count > border + 1, characters[border] == "│" else { return nil }
            return String(characters[(border + 1)...]).trimming(" ")
        }
    }

    /// The scale the status line shows (the number after "1:").
    var scale: Double? {
        let status = terminal.statusLine
        guard let range = status.firstRange(of: "│ 1:") else { return nil }
        return Double(status[range.upperBound...].prefix { $0.isNumber || $0 == "," }.filter { $0 != "," })
    }
}
