import MapbookPackage

/// A source that cannot be read, naming the file, where in it, and what to do.
public struct DataError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// Where in the file: "line 12", "record 40", "feature 3", or empty.
    public var location: String
    public var message: String
    /// The JSON error underneath, when the file is not valid JSON: its kind says what is wrong.
    public var json: JSONError?

    public init(path: String, location: String = "", message: String) {
        self.path = path
        self.location = location
        self.message = message
    }

    /// A JSON file that cannot be read, keeping the JSON error.
    public init(_ json: JSONError) {
        self.init(path: json.path ?? "", location: json.location, message: json.message)
        self.json = json
    }

    public var description: String {
        location.isEmpty ? "\(path): \(message)" : "\(path), \(location): \(message)"
    }
}
