import MapbookSupport

/// What a locator file says about itself: an Esri `.loc` (INI-style `key = value` lines, with
/// an optional `.loc.xml` style beside it) or Mapbook's open `.loc.json` (DESIGN.md 3.5).
///
/// Esri's index files (`.locb`, `.lox`) are proprietary and are only listed, not read.
public struct LocatorDescription: Sendable, Hashable {
    public var path: String
    /// `esri` for `.loc`, `mapbook` for `.loc.json`.
    public var format: String
    public var name: String?
    public var description: String?
    public var category: String?
    /// `composite`, `singleField`, or an Esri style name.
    public var style: String?
    /// Participants of a composite locator, in order.
    public var participants: [String]
    /// Every property of an Esri `.loc`, in file order.
    public var properties: [String: String]

    /// Parses an Esri `.loc` file's text.
    public static func esri(_ bytes: [UInt8], path: String, styleXML: [UInt8]? = nil) -> LocatorDescription {
        let text = String(decoding: bytes, as: UTF8.self)
        var properties: [String: String] = [:]
        var participants: [(Int, String)] = []
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = String(rawLine).trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix(";"), let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq]).trimmingWhitespace()
            let value = String(line[line.index(after: eq)...]).trimmingWhitespace()
            properties[key] = value
            // Composite locators list participants as numbered keys (Locator0, Locator1, ...).
            if key.hasPrefix("Locator"), let n = Int(key.dropFirst(7)) { participants.append((n, value)) }
        }
        var description = LocatorDescription(
            path: path, format: "esri", name: properties["SafeLocatorName"],
            description: properties["Description"], category: properties["Category"],
            style: participants.isEmpty ? nil : "composite",
            participants: participants.sorted { $0.0 < $1.0 }.map(\.1), properties: properties)
        if let styleXML, let root = try? XMLDocumentIO.parse(styleXML, path: path + ".xml"),
            let locator = root.child("locator")
        {
            description.style = description.style ?? locator.child("name")?.text
            if description.description == nil { description.description = locator.child("desc")?.text }
        }
        return description
    }

    /// Parses a Mapbook `.loc.json` (composite) or `locator.json` (single field).
    public static func mapbook(_ bytes: [UInt8], path: String) throws(PackageFormatError) -> LocatorDescription {
        guard let json = (try? JSONParser.parse(bytes))?.objectValue else {
            throw PackageFormatError(kind: .invalidValue, path: path, message: "not a JSON object")
        }
        var participants: [String] = []
        if json.string("type") == "composite" {
            do {
                participants = try CompositeDefinition.parse(bytes, path: path).participants.map(\.name)
            } catch let error as PackageFormatError {
                throw error
            } catch {
                throw PackageFormatError(error, path: path)
            }
        }
        var properties: [String: String] = [:]
        for key in ["layer", "field", "displayField", "rankField", "role"] {
            if let v = json.string(key) { properties[key] = v }
        }
        if let count = json.int("count") { properties["count"] = String(count) }
        return LocatorDescription(
            path: path, format: "mapbook", name: json.string("name"), description: json.string("description"),
            category: nil, style: json.string("type"), participants: participants, properties: properties)
    }
}
