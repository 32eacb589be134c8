import MapbookPackage

/// A failure to draw a map or to read or write an image, naming what was being done and why.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// An image or canvas size outside what Cairo can draw.
        case invalidSize
        /// A map extent that is empty, a single point, or not finite.
        case invalidExtent
        /// The data does not start with the PNG signature.
        case notAPNG
        /// The PNG data ends early, or Cairo cannot decode it.
        case damagedPNG
        /// A PNG wider or taller than allowed.
        case imageTooLarge
        /// Cairo ran out of memory.
        case outOfMemory
        /// Cairo failed to create a surface or encode an image; `message` gives its status.
        case cairo
        /// The image file cannot be written.
        case file(ArchiveError.Kind)
    }

    public var kind: Kind
    /// What was being done: "create a canvas", "encode PNG", "write", "decode PNG".
    public var operation: String
    /// The file involved, or empty when the work was in memory.
    public var path: String
    public var message: String

    public init(kind: Kind, operation: String, path: String = "", message: String) {
        self.kind = kind
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? "Cannot \(operation): \(message)" : "Cannot \(operation) '\(path)': \(message)"
    }
}
