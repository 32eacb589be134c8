import MapbookSupport

/// A typed view of a JSON object that keeps every key it does not model.
///
/// A model is read from an object (`init(json:)`) and keeps that object as `original`.
/// Writing it (`json`) starts from `original` and sets the modelled keys in place, so unknown
/// keys, their order and values the model could not read all survive a round trip. A modelled
/// value that is nil leaves whatever the original held under that key (a `null`, a value of a
/// type the model does not read); to remove a key, remove it from `original`.
///
/// Most models are `JSONRecord`s, which list their keys once; a model that is one of several
/// shapes chosen by a key (`Renderer`, `Symbol`) conforms to this protocol directly.
public protocol JSONModel: Sendable, Equatable {
    init(json: JSONObject)
    var json: JSONObject { get }
}

/// A `JSONModel` whose keys are listed once, in `properties`, from which both reading and
/// writing follow.
///
/// The table is plain Swift rather than `Codable` or a macro: `Codable` cannot keep the
/// original object's unknown keys and key order without a custom coder that would list every
/// key again, and a macro needs a compiler-plugin target built against swift-syntax, which
/// slows every clean build of the package for what a table of accessors already does.
public protocol JSONRecord: JSONModel {
    /// The modelled keys, in the order they are written: a key the original object lacks is
    /// added in this order.
    static var properties: [JSONProperty<Self>] { get }
    /// The object the model was read from, with every key it does not model.
    var original: JSONObject { get set }
    /// The model over `original` before any property is read: every property of `properties`
    /// at its default (nil for optionals).
    init(original: JSONObject)
}

extension JSONRecord {
    /// Reads every property of `properties` from `json`, which is kept as `original`.
    public init(json: JSONObject) {
        self.init(original: json)
        for property in Self.properties { property.read(json, &self) }
    }

    /// `original` with every property written over it, in the order of `properties`.
    public var json: JSONObject {
        var object = original
        for property in Self.properties { property.write(self, &object) }
        return object
    }
}

extension JSONModel {
    public init(value: JSONValue) {
        self.init(json: value.objectValue ?? JSONObject())
    }

    public var jsonValue: JSONValue { .object(json) }
}

extension JSONValue {
    /// The array's elements when every one is a string.
    public var stringsValue: [String]? {
        guard let items = arrayValue else { return nil }
        let strings = items.compactMap { $0.stringValue }
        return strings.count == items.count ? strings : nil
    }

    /// The array's elements when every one is a number.
    public var doublesValue: [Double]? {
        guard let items = arrayValue else { return nil }
        let numbers = items.compactMap { $0.doubleValue }
        return numbers.count == items.count ? numbers : nil
    }
}

extension JSONObject {
    public func string(_ key: String) -> String? { self[key]?.stringValue }
    public func double(_ key: String) -> Double? { self[key]?.doubleValue }
    public func int(_ key: String) -> Int? { self[key]?.intValue }
    public func int64(_ key: String) -> Int64? { self[key]?.int64Value }
    public func bool(_ key: String) -> Bool? { self[key]?.boolValue }
    public func object(_ key: String) -> JSONObject? { self[key]?.objectValue }
    public func array(_ key: String) -> [JSONValue]? { self[key]?.arrayValue }

    public func model<M: JSONModel>(_ key: String) -> M? {
        object(key).map { M(json: $0) }
    }

    /// The objects of an array as models; non-object elements are skipped (and kept, see `setModels`).
    public func models<M: JSONModel>(_ key: String) -> [M]? {
        array(key).map { $0.compactMap { $0.objectValue.map { M(json: $0) } } }
    }

    public func strings(_ key: String) -> [String]? { self[key]?.stringsValue }
    public func doubles(_ key: String) -> [Double]? { self[key]?.doublesValue }

    /// Sets `key` to `value` when there is one; nil leaves the original value alone.
    public mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }

    public mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string)) }
    public mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }
    public mutating func set(_ key: String, _ value: Double?) { set(key, value.map(JSONValue.double)) }
    public mutating func set(_ key: String, _ value: Int?) { set(key, value.map(JSONValue.int)) }
    public mutating func set(_ key: String, _ value: Int64?) { set(key, value.map(JSONValue.integer)) }
    public mutating func set<M: JSONModel>(_ key: String, _ value: M?) { set(key, value.map { $0.jsonValue }) }
    public mutating func set(_ key: String, _ value: [String]?) { set(key, value.map { .array($0.map(JSONValue.string)) }) }
    public mutating func set(_ key: String, _ value: [Double]?) { set(key, value.map { .array($0.map(JSONValue.double)) }) }

    /// Sets an array of models, keeping any non-object elements of the original array in place.
    public mutating func setModels<M: JSONModel>(_ key: String, _ models: [M]?) {
        guard let models else { return }
        let originalItems = array(key) ?? []
        let originalObjects = originalItems.filter { $0.objectValue != nil }.count
        guard originalObjects == models.count, originalItems.count != originalObjects else {
            self[key] = .array(models.map { $0.jsonValue })
            return
        }
        var out: [JSONValue] = []
        var next = models.makeIterator()
        for item in originalItems {
            if item.objectValue != nil, let model = next.next() {
                out.append(model.jsonValue)
            } else {
                out.append(item)
            }
        }
        self[key] = .array(out)
    }
}
