/// A device library file that cannot be read or written, or a request the library cannot
/// honour, naming the file and saying what to do.
public struct LibraryError: Error, Sendable, CustomStringConvertible {
    /// The file or folder involved; the library's root when no single file is.
    public var path: String
    /// What is wrong and, where there is one, the remedy.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "'\(path)': \(message)" }
}
