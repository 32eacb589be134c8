/// A mistake in a project file, naming the file, the key and the line.
public struct ProjectError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// Where in the document: `maps[1].layers[0].source`.
    public var key: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, key: String, line: Int?, column: Int? = nil, message: String) {
        self.file = file
        self.key = key
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var location = file
        if let line { location += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        return "\(location): " + (key.isEmpty ? "" : "\(key): ") + message
    }
}
