import MapbookSupport

/// A typed view of a JSON object that keeps every key it does not model.
///
/// A model is read from an object (`init(json:)`) and keeps that object as `original`.
/// Writing it (`json`) starts from `original` and sets the modelled keys in place, so unknown
/// keys, their order and values the model could not read all survive a round trip. A modelled
/// value that is nil leaves whatever the original held under that key (a `null`, a value of a
/// type the model does not read); to remove a key, remove it from `original`.
public protocol JSONModel: Sendable, Equatable {
    init(json: JSONObject)
    var json: JSONObject { get }
}

extension JSONModel {
    public init(value: JSONValue) {
        self.init(json: value.objectValue ?? JSONObject())
    }

    public var jsonValue: JSONValue { .object(json) }
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

    public func strings(_ key: String) -> [String]? {
        guard let items = array(key) else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    public func doubles(_ key: String) -> [Double]? {
        guard let items = array(key) else { return nil }
        let numbers = items.compactMap(\.doubleValue)
        return numbers.count == items.count ? numbers : nil
    }

    /// Sets `key` to `value` when there is one; nil leaves the original value alone.
    public mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }

    public mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string)) }
    public mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }
    public mutating func set(_ key: String, _ value: Double?) { set(key, value.map(JSONValue.double)) }
    public mutating func set(_ key: String, _ value: Int?) { set(key, value.map(JSONValue.int)) }
    public mutating func set(_ key: String, _ value: Int64?) { set(key, value.map(JSONValue.integer)) }
    public mutating func set<M: JSONModel>(_ key: String, _ value: M?) { set(key, value.map(\.jsonValue)) }
    public mutating func set(_ key: String, _ value: [String]?) { set(key, value.map { .array($0.map(JSONValue.string)) }) }
    public mutating func set(_ key: String, _ value: [Double]?) { set(key, value.map { .array($0.map(JSONValue.double)) }) }

    /// Sets an array of models, keeping any non-object elements of the original array in place.
    public mutating func setModels<M: JSONModel>(_ key: String, _ models: [M]?) {
        guard let models else { return }
        let originalItems = array(key) ?? []
        let originalObjects = originalItems.filter { $0.objectValue != nil }.count
        guard originalObjects == models.count, originalItems.count != originalObjects else {
            self[key] = .array(models.map(\.jsonValue))
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
