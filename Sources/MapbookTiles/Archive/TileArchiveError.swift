/// A tile archive that cannot be read or written: the operation, the file and what went wrong.
public struct TileArchiveError: Error, Sendable, CustomStringConvertible {
    /// What was being done: "read", "write", "add a tile to", "finish".
    public var operation: String
    /// The archive, as `package.mmpk[p20/Backdrop.vtpk]` when nested.
    public var path: String
    public var message: String

    public init(operation: String, path: String, message: String) {
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String { "Cannot \(operation) '\(path)': \(message)" }
}
