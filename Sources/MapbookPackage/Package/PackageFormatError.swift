/// A package file that is present but wrong: bad JSON, a missing key, an impossible value.
public struct PackageFormatError: Error, Sendable, CustomStringConvertible {
    /// The file, as `package.mmpk[entry]` when inside a package.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "'\(path)': \(message)" }
}
