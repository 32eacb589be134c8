import MapbookPackage
import MapbookSupport
import Testing

@testable import MapbookRender

/// Pictures on a terminal through libchafa.
@Suite struct TerminalPictureTests {
    @Test(arguments: [
        (["TERM": "xterm-kitty"], TerminalPicture.Mode.kitty), (["TERM_PROGRAM": "iTerm.app"], .iterm), (["TERM": "foot"], .sixel),
        (["TERM": "xterm-256color", "COLORTERM": "truecolor"], .trueColor), (["TERM": "xterm-256color"], .colors256),
        (["TERM": "xterm"], .colors16), (["TERM": "xterm-kitty", "NO_COLOR": "1"], .noColor), (["TERM": "tmux-256color"], .colors256),
    ])
    func theModeFollowsWhatTheTerminalSays(environment: [String: String], expected: TerminalPicture.Mode) {
        #expect(TerminalPicture.detect(environment: environment) == expected)
    }

    /// A red square on white, in true colour: red cells and white cells, in `columns` x `rows`
    /// lines; without colour, no colour sequence at all.
    @Test func symbolsCarryThePicturesColoursOrNoneWithNoColor() throws {
        let canvas = try MapCanvas(width: 80, height: 40, extent: BoundingBox(minX: 0, minY: 0, maxX: 80, maxY: 40))
        canvas.fillRectangle(x: 0, y: 0, width: 40, height: 40, color: RGBAColor(red: 255, green: 0, blue: 0))
        let colour = TerminalPicture.text(of: canvas, columns: 20, rows: 5, mode: .trueColor)
        #expect(colour.contains("255;0;0"), "red in a true-colour sequence")
        #expect(colour.split(separator: "\n").count == 5)
        let plain = TerminalPicture.text(of: canvas, columns: 20, rows: 5, mode: .noColor)
        #expect(!plain.contains("38;2;") && !plain.contains("48;2;") && !plain.contains("38;5;"))
        #expect(!plain.isEmpty)
        let kitty = TerminalPicture.text(of: canvas, columns: 20, rows: 5, mode: .kitty)
        #expect(kitty.hasPrefix("\u{1B}_G"), "kitty's graphics protocol")
    }
}
