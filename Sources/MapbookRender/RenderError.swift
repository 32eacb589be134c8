/// A failure to draw a map or to read or write an image, naming what was being done and why.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    /// What was being done: "create a canvas", "encode PNG", "write", "decode PNG".
    public var operation: String
    /// The file involved, or empty when the work was in memory.
    public var path: String
    public var message: String

    public init(operation: String, path: String = "", message: String) {
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? "Cannot \(operation): \(message)" : "Cannot \(operation) '\(path)': \(message)"
    }
}
