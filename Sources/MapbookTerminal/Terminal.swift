/// A terminal's size: cells, and pixels when the terminal says (0 otherwise).
public typealias TerminalSize = (columns: Int, rows: Int, width: Int, height: Int)

/// What the viewer draws on and reads keys from: the real terminal (`TerminalSession`) or a
/// test's model of one. The viewer writes whole frames as escape sequences (cursor moves,
/// erases, SGR colours, synchronized-update marks, and pictures as libchafa prints them).
public protocol Terminal: AnyObject {
    /// The terminal's size now.
    func size() -> TerminalSize
    /// Writes text to the terminal, all of it.
    func write(_ text: String)
    /// The bytes typed since the last call, waiting up to `milliseconds` for the first; empty
    /// when none came.
    func read(waiting milliseconds: Int32) -> [UInt8]
    /// Whether the terminal changed size since the last call.
    func takeResize() -> Bool
    /// Whether the terminal went away (hung up, closed); the viewer then stops.
    var isClosed: Bool { get }
}
