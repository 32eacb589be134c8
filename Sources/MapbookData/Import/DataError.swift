/// A source that cannot be read, naming the file, where in it, and what to do.
public struct DataError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// Where in the file: "line 12", "record 40", "feature 3", or empty.
    public var location: String
    public var message: String

    public init(path: String, location: String = "", message: String) {
        self.path = path
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? "\(path): \(message)" : "\(path), \(location): \(message)"
    }
}
