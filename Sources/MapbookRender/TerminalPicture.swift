import CCairo
import CMapbookLazy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A picture printed on a terminal (libchafa): an image where the terminal shows images
/// (kitty, iTerm2, sixels), else Unicode block symbols in the colours the terminal has; without
/// colour (`NO_COLOR`), shapes and shades in the terminal's own colours (`shapes`).
public enum TerminalPicture {
    public enum Mode: String, Sendable, CaseIterable {
        case kitty, iterm, sixel
        case trueColor = "truecolor", colors256 = "256", colors16 = "16", noColor = "none"

        /// Whether the terminal shows the picture's pixels (an image), not symbols for cells.
        public var showsPixels: Bool { pixelMode != 0 }

        var pixelMode: Int32 {
            switch self {
            case .kitty: return 2
            case .iterm: return 3
            case .sixel: return 1
            default: return 0
            }
        }

        var canvasMode: Int32 {
            switch self {
            case .colors256: return 1
            case .colors16: return 3
            case .noColor: return 5
            default: return 0
            }
        }
    }

    /// `choice` (a `--terminal-mode`) when it names a mode, else what this process's terminal
    /// shows best (`detect`).
    public static func mode(choosing choice: String?) -> Mode {
        var environment: [String: String] = [:]
        for key in ["NO_COLOR", "TERM", "TERM_PROGRAM", "LC_TERMINAL", "KITTY_WINDOW_ID", "COLORTERM"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return choice.flatMap(Mode.init(rawValue:)) ?? detect(environment: environment)
    }

    /// What the terminal shows best, from its environment: `NO_COLOR` (no colour, symbols
    /// only), kitty (`KITTY_WINDOW_ID`, TERM `xterm-kitty`), iTerm2 (`TERM_PROGRAM`,
    /// `LC_TERMINAL`), terminals known for sixels (mlterm, foot, contour, WezTerm), then
    /// `COLORTERM` truecolor, a TERM with 256 colours, else 16 colours.
    public static func detect(environment: [String: String]) -> Mode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .noColor }
        let term = environment["TERM"] ?? "", program = environment["TERM_PROGRAM"] ?? ""
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" { return .kitty }
        if program == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" { return .iterm }
        if ["mlterm", "foot", "contour", "yaft"].contains(where: term.hasPrefix) || program == "WezTerm" { return .sixel }
        let colorterm = environment["COLORTERM"] ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return .trueColor }
        if term.contains("256color") || term.hasPrefix("tmux") || term.hasPrefix("screen") { return .colors256 }
        return .colors16
    }

    /// The terminal's size on standard output: cells, and pixels when it says (0 otherwise);
    /// nil when standard output is not a terminal.
    public static func terminalSize() -> (columns: Int, rows: Int, width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row), Int(size.ws_xpixel), Int(size.ws_ypixel))
    }

    /// The text that shows `canvas` in `columns` x `rows` cells of a terminal.
    public static func text(of canvas: MapCanvas, columns: Int, rows: Int, mode: Mode) -> String {
        guard let image = try? canvas.raster() else { return "" }
        return text(of: image, columns: columns, rows: rows, mode: mode)
    }

    /// The text that shows `image` in `columns` x `rows` cells of a terminal.
    public static func text(of image: RasterImage, columns: Int, rows: Int, mode: Mode) -> String {
        // Chafa without colour inks every cell nearer its foreground than its background, so
        // a map (pale, mostly) comes out a solid silhouette: the shapes are chosen here instead.
        if mode == .noColor { return shapes(of: image, columns: columns, rows: rows) }
        let surface = image.surface
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return "" }
        let stride = cairo_image_surface_get_stride(surface)
        var length = 0
        guard let text = mapbook_terminal_image(data, Int32(image.width), Int32(image.height), stride, Int32(columns), Int32(rows), mode.pixelMode, mode.canvasMode, &length) else { return "" }
        defer { mapbook_terminal_free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }
}
