import MapbookSupport

/// A `.mmap` file: `{"map": <web map>, "item": <map item>}` (DESIGN.md 3.2).
public struct MobileMap: JSONRecord {
    public var map: WebMap
    public var item: MapItem
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [.requiredModel("map", { $0.map }, { $0.map = $1 }), .requiredModel("item", { $0.item }, { $0.item = $1 })]
    }

    /// A map over `original` with an empty web map and item.
    public init(original: JSONObject) {
        self.original = original
        map = WebMap(original: JSONObject())
        item = MapItem(original: JSONObject())
    }

    public init(map: WebMap, item: MapItem) {
        self.init(original: JSONObject())
        self.map = map
        self.item = item
    }

    /// Parses a `.mmap` file's bytes.
    public static func parse(_ bytes: [UInt8], path: String) throws(PackageFormatError) -> MobileMap {
        let object = try JSONParser.parseObject(bytes, path: path, expecting: "a JSON object with \"map\" and \"item\"")
        guard object.object("map") != nil else {
            throw PackageFormatError(kind: .wrongFormat, path: path, message: "no \"map\" object: not a mobile map")
        }
        return MobileMap(json: object)
    }

    /// The name people know the map by: the item's title, else its name.
    public var displayName: String {
        item.title ?? item.name ?? "(untitled map)"
    }
}
