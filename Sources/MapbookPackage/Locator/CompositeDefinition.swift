import MapbookSupport

/// The composite locator's `<Name>.loc.json` (DESIGN.md 3.5), read in this one place by search,
/// inspection and validation.
public struct CompositeDefinition: Sendable, Equatable {
    public struct Participant: Sendable, Equatable {
        public var name: String
        /// The participant's folder, relative to the composite's folder.
        public var path: String
        public var order: Int

        public init(name: String, path: String, order: Int) {
            self.name = name
            self.path = path
            self.order = order
        }
    }

    public var name: String
    public var participants: [Participant]
    /// The search-quality file, relative to the composite's folder.
    public var quality: String?

    public init(name: String, participants: [Participant], quality: String? = nil) {
        self.name = name
        self.participants = participants
        self.quality = quality
    }

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["type"] = .string("composite")
        o["name"] = .string(name)
        o["participants"] = .array(participants.map { p in
            .object(["name": .string(p.name), "path": .string(p.path), "order": .int(p.order)])
        })
        o.set("quality", quality)
        return .object(o)
    }

    public static func parse(_ bytes: [UInt8], path: String) throws -> CompositeDefinition {
        let o = try JSONParser.parseObject(bytes, path: path)
        guard o.string("type") == "composite" else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "not a composite locator (type is '\(o.string("type") ?? "missing")')")
        }
        var participants: [Participant] = []
        for (i, value) in (o.array("participants") ?? []).enumerated() {
            guard let p = value.objectValue, let folder = p.string("path") else {
                throw PackageFormatError(kind: .missingKey, path: path, message: "participant \(i + 1) has no 'path'")
            }
            participants.append(Participant(name: p.string("name") ?? folder, path: folder, order: p.int("order") ?? i + 1))
        }
        guard !participants.isEmpty else { throw PackageFormatError(kind: .missingKey, path: path, message: "the composite locator lists no participants") }
        participants.sort { $0.order < $1.order }
        return CompositeDefinition(name: o.string("name") ?? "Locator", participants: participants, quality: o.string("quality"))
    }
}
