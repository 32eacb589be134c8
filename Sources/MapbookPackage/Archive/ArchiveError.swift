/// A failure to read or write an archive, naming the file, what was being done and why.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What was being done: "open", "read the central directory", "read entry", "write".
    public var operation: String
    /// The archive's path, with the entry in brackets when one is involved.
    public var path: String
    public var message: String

    public init(operation: String, path: String, message: String) {
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String { "Cannot \(operation) '\(path)': \(message)" }
}
