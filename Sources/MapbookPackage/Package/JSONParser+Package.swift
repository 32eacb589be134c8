import MapbookSupport

extension JSONParser {
    /// Parses a package file that must hold a JSON object; errors name the file.
    public static func parseObject(_ bytes: [UInt8], path: String, expecting what: String = "a JSON object") throws(PackageFormatError) -> JSONObject {
        let value: JSONValue
        do {
            value = try parse(bytes)
        } catch {
            throw PackageFormatError(kind: .json(error.kind), path: path, message: "not valid JSON (\(error))")
        }
        guard let object = value.objectValue else {
            throw PackageFormatError(kind: .invalidValue, path: path, message: "expected \(what), found \(value.kindName)")
        }
        return object
    }
}
