import MapbookData
import MapbookSupport

/// A layer's `applyEdits` request (the ArcGIS REST API's "Apply Edits (Feature Service/Layer)"):
/// features to add and update as ArcGIS JSON (`attributes`, `geometry`), features to delete by
/// object id (or by globalid with `useGlobalIds`), and whether one failure undoes them all
/// (`rollbackOnFailure`, true by default). `AuthoritativeCopy.applyEdits` applies it.
public struct FeatureEdits: Sendable {
    public struct Feature: Sendable {
        public var attributes: JSONObject
        public var geometry: JSONValue?

        public init(attributes: JSONObject, geometry: JSONValue?) {
            self.attributes = attributes
            self.geometry = geometry
        }
    }

    public enum Key: Sendable, Equatable {
        case objectId(Int64)
        case globalId(String)
    }

    public var adds: [Feature] = []
    public var updates: [Feature] = []
    public var deletes: [Key] = []
    public var rollbackOnFailure = true
    public var useGlobalIds = false

    public init(adds: [Feature] = [], updates: [Feature] = [], deletes: [Key] = [], rollbackOnFailure: Bool = true, useGlobalIds: Bool = false) {
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.rollbackOnFailure = rollbackOnFailure
        self.useGlobalIds = useGlobalIds
    }

    /// The most edits one request may carry.
    public static let maximumEdits = 10_000

    /// Reads `adds`, `updates`, `deletes`, `rollbackOnFailure` and `useGlobalIds` as sent.
    public init(_ parameters: [String: String]) throws(FeatureServiceError) {
        var p: [String: String] = [:]
        for (key, value) in parameters { p[key.lowercased()] = value }
        rollbackOnFailure = p["rollbackonfailure"].map { $0.isEmpty || $0.lowercased() != "false" } ?? true
        useGlobalIds = FeatureQuery.flag(p["useglobalids"])
        adds = try Self.features(p["adds"], "adds")
        updates = try Self.features(p["updates"], "updates")
        if let text = p["deletes"]?.trimming(" \t\r\n"), !text.isEmpty {
            if text.hasPrefix("[") {
                guard let items = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else {
                    throw FeatureServiceError(.badParameter, parameter: "deletes", "the list of features to delete is not a JSON array")
                }
                for item in items { deletes.append(try key(item.int64Value.map(String.init) ?? item.stringValue ?? "", useGlobalIds)) }
            } else {
                for part in text.split(separator: ",") { deletes.append(try key(part.trimming(" "), useGlobalIds)) }
            }
        }
        guard adds.count + updates.count + deletes.count <= Self.maximumEdits else {
            throw FeatureServiceError(.badParameter, parameter: "adds", "a request may carry at most \(Self.maximumEdits) edits; send them in several")
        }
    }

    func key(_ text: String, _ globalIds: Bool) throws(FeatureServiceError) -> Key {
        if globalIds {
            guard let id = Self.globalId(text) else {
                throw FeatureServiceError(.badParameter, parameter: "deletes", "'\(text)' is not a globalid ({XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX})")
            }
            return .globalId(id)
        }
        guard let id = Int64(text) else { throw FeatureServiceError(.badParameter, parameter: "deletes", "'\(text)' is not an object id") }
        return .objectId(id)
    }

    static func features(_ text: String?, _ parameter: String) throws(FeatureServiceError) -> [Feature] {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return [] }
        let json: JSONValue
        do {
            json = try JSONParser.parse(Array(text.utf8))
        } catch {
            throw FeatureServiceError(.badParameter, parameter: parameter, "the features are not JSON: \(error)")
        }
        guard let items = json.arrayValue else {
            throw FeatureServiceError(.badParameter, parameter: parameter, "the features must be a JSON array of {attributes, geometry}")
        }
        var out: [Feature] = []
        for (i, item) in items.enumerated() {
            guard let o = item.objectValue else {
                throw FeatureServiceError(.badParameter, parameter: parameter, "feature \(i + 1) is not a JSON object with attributes and geometry")
            }
            let geometry = o["geometry"].flatMap { $0 == .null ? nil : $0 }
            out.append(Feature(attributes: o.object("attributes") ?? [:], geometry: geometry))
        }
        return out
    }

    /// A globalid in ArcGIS's braced upper-case form, from any case, braced or not; nil when
    /// the text is not a UUID.
    public static func globalId(_ text: String) -> String? {
        var t = text.trimming(" ")
        if t.hasPrefix("{") && t.hasSuffix("}") { t = String(t.dropFirst().dropLast()) }
        let parts = t.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12], parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return "{" + t.uppercased() + "}"
    }
}

/// What `applyEdits` did with each edit, in the order sent, and the generation it was
/// recorded at (nil when nothing was applied).
public struct FeatureEditResults: Sendable {
    public struct Result: Sendable {
        public var objectId: Int64?
        public var globalId: String?
        /// Nil when the edit was applied.
        public var failure: Failure?
        public var success: Bool { failure == nil }

        /// `{objectId, globalId, success}`, and `error {code, description}` on failure.
        public var json: JSONValue {
            var o = JSONObject()
            o["objectId"] = objectId.map { .integer($0) } ?? .null
            o["globalId"] = globalId.map { .string($0) } ?? .null
            o["success"] = .bool(success)
            if let failure { o["error"] = .object(["code": .integer(Int64(failure.code.rawValue)), "description": .string(failure.description)]) }
            return .object(o)
        }
    }

    /// Why one edit was not applied: the API's error code (`Code`) and what to change.
    public struct Failure: Sendable {
        public var code: Code
        public var description: String
    }

    /// The error codes of edit results, as ArcGIS numbers them.
    public enum Code: Int, Sendable {
        /// Any other failure: a geometry that cannot be read or placed, a database error.
        case failed = 1000
        /// Not applied because another edit of the request failed (`rollbackOnFailure`).
        case rolledBack = 1003
        /// A field's value refused: unknown, read-only, of the wrong type, outside its domain,
        /// or a required field left empty.
        case invalidValue = 1011
        /// No feature has that object id or globalid (deleted meanwhile).
        case missing = 1019
    }

    public var adds: [Result] = []
    public var updates: [Result] = []
    public var deletes: [Result] = []
    public var generation: Int64?

    public var json: JSONValue {
        .object(["addResults": .array(adds.map(\.json)), "updateResults": .array(updates.map(\.json)), "deleteResults": .array(deletes.map(\.json))])
    }
}
