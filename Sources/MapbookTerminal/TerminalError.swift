/// Why the viewer cannot run on what it was given.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// Standard input or output is not a terminal: there is nothing to draw on.
        case notATerminal
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }
}
