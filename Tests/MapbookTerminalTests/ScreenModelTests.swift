import MapbookSupport
import Testing

@testable import MapbookTerminal

/// The model of a terminal the viewer's tests read: it must show what xterm and tmux show for
/// the sequences the viewer writes, or the tests would pass on frames a terminal garbles.
@Suite struct ScreenModelTests {
    /// A frame shows once its synchronized update ends, with the cursor moves and colours in it.
    @Test func aFrameShowsAtTheEndOfItsUpdateWithItsColours() {
        let model = ScreenModel(columns: 20, rows: 4)
        model.write("\u{1B}[?2026h\u{1B}[2J\u{1B}[2;3H\u{1B}[1;41;97mHi\u{1B}[0m \u{1B}[38;5;208mo\u{1B}[48;2;1;2;3mk")
        #expect(model.frames == 0 && model.lines[1].trimming(" ").isEmpty, "shown before the update ended")
        model.write("\u{1B}[4;1H\u{1B}[7mstatus\u{1B}[0m\u{1B}[?2026l")
        #expect(model.frames == 1)
        #expect(model.lines[1] == "  Hi ok" + String(repeating: " ", count: 13))
        let hi = model.cells(of: "Hi", row: 1)
        #expect(hi?.allSatisfy { $0.style == ScreenModel.Style(foreground: .indexed(15), background: .indexed(1), bold: true) } == true)
        #expect(model.cells(of: "o", row: 1)?.first?.style.foreground == .indexed(208))
        #expect(model.cells(of: "k", row: 1)?.first?.style == ScreenModel.Style(foreground: .indexed(208), background: .rgb(1, 2, 3)))
        #expect(model.cells(of: "status", row: 3)?.allSatisfy(\.style.reverse) == true)
        #expect(model.unknown.isEmpty)
    }

    /// A line feed starts the next row at its first column; past the last row the screen
    /// scrolls; a character past the last column wraps; a repeat repeats the last character.
    @Test func lineFeedsWrapsScrollsAndRepeatsAreFollowed() {
        let model = ScreenModel(columns: 4, rows: 2)
        model.write("\u{1B}[?2026hab\ncdefg\u{1B}[2b\u{1B}[?2026l")
        #expect(model.lines == ["cdef", "ggg "])
        model.write("\u{1B}[?2026h\u{1B}[H\u{1B}[2G\u{1B}[2Cz\u{1B}[?2026l")
        #expect(model.lines == ["cdez", "ggg "])
    }

    /// A sequence the model does not follow is kept, for the driver to report.
    @Test func anUnknownSequenceIsKept() {
        let model = ScreenModel(columns: 10, rows: 2)
        model.write("\u{1B}[3Jx\u{1B}[5n")
        #expect(model.unknown == ["ESC[3J", "ESC[5n"])
    }

    /// Keys go in as reads, one each, and a hang-up closes the terminal.
    @Test func keysAreReadOneAtATime() {
        let model = ScreenModel(columns: 10, rows: 2)
        model.input = [Array("q".utf8), [0x1B]]
        #expect(model.read(waiting: 0) == Array("q".utf8))
        #expect(model.read(waiting: 0) == [0x1B])
        #expect(model.read(waiting: 0).isEmpty && !model.isClosed)
        model.hangUp = true
        _ = model.read(waiting: 0)
        #expect(model.isClosed)
    }
}
