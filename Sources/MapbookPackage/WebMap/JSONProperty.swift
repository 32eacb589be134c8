import MapbookSupport

/// One key of a `JSONRecord`: how its value is read into the model and written back.
///
/// Reading sets the model's property from the key (nil when the key is absent or holds a value
/// of another type); writing sets the key when the property holds a value and leaves whatever
/// the object held when it is nil, as `JSONModel` describes.
///
/// A property is named by two closures, `{ $0.title }` and `{ $0.title = $1 }`, rather than a
/// key path: the runtime builds each key path's object (its class, its types by mangled name)
/// at first use, about 15 µs apiece, and a package's first map read used a hundred of them, a
/// tenth of a small package's `inspect` (issue 36). Closures cost nothing until called.
///
/// Not `Sendable`: it holds closures. Tables are built when asked for
/// (`JSONRecord.properties` is a computed property), never stored in a global.
public struct JSONProperty<Model> {
    /// The key in the model's object; for a property of a nested object, the outer key.
    public let key: String
    /// What the key holds.
    public let kind: JSONPropertyKind
    /// Reads the key of an object into the model.
    public let read: (JSONObject, inout Model) -> Void
    /// Writes the model's value into an object.
    public let write: (Model, inout JSONObject) -> Void

    /// A property read and written by hand.
    public init(
        _ key: String, kind: JSONPropertyKind,
        read: @escaping (JSONObject, inout Model) -> Void,
        write: @escaping (Model, inout JSONObject) -> Void
    ) {
        self.key = key
        self.kind = kind
        self.read = read
        self.write = write
    }

    /// An optional property converted from the key's value by `from` and back by `to`.
    ///
    /// With `keepingEquivalent`, a value equal to what the key already reads as is not written
    /// again, so a form the model does not write (a 3-channel colour, a comma-separated list)
    /// survives a round trip.
    public init<Value: Equatable>(
        _ key: String, _ get: @escaping (Model) -> Value?, _ set: @escaping (inout Model, Value?) -> Void, kind: JSONPropertyKind,
        from: @escaping (JSONValue) -> Value?, to: @escaping (Value) -> JSONValue,
        keepingEquivalent: Bool = false
    ) {
        self.init(
            key, kind: kind,
            read: { object, model in set(&model, object[key].flatMap(from)) },
            write: { model, object in
                guard let value = get(model) else { return }
                if keepingEquivalent, object[key].flatMap(from) == value { return }
                object[key] = to(value)
            })
    }

    /// A string; `from` reads other forms (a version written as a number).
    public static func string(
        _ key: String, _ get: @escaping (Model) -> String?, _ set: @escaping (inout Model, String?) -> Void, from: @escaping (JSONValue) -> String? = { $0.stringValue }
    ) -> Self {
        Self(key, get, set, kind: .string, from: from, to: JSONValue.string)
    }

    public static func bool(_ key: String, _ get: @escaping (Model) -> Bool?, _ set: @escaping (inout Model, Bool?) -> Void) -> Self {
        Self(key, get, set, kind: .bool, from: { $0.boolValue }, to: JSONValue.bool)
    }

    /// A number, written as an integer when it has no fractional part (`JSONValue.double`).
    public static func double(_ key: String, _ get: @escaping (Model) -> Double?, _ set: @escaping (inout Model, Double?) -> Void) -> Self {
        Self(key, get, set, kind: .number, from: { $0.doubleValue }, to: JSONValue.double)
    }

    public static func int(_ key: String, _ get: @escaping (Model) -> Int?, _ set: @escaping (inout Model, Int?) -> Void) -> Self {
        Self(key, get, set, kind: .integer, from: { $0.intValue }, to: JSONValue.int)
    }

    /// A 64-bit integer; `from` reads other forms (a date as a numeric string).
    public static func int64(
        _ key: String, _ get: @escaping (Model) -> Int64?, _ set: @escaping (inout Model, Int64?) -> Void, from: @escaping (JSONValue) -> Int64? = { $0.int64Value }
    ) -> Self {
        Self(key, get, set, kind: .integer, from: from, to: JSONValue.integer)
    }

    /// Any JSON value, kept as it is.
    public static func value(_ key: String, _ get: @escaping (Model) -> JSONValue?, _ set: @escaping (inout Model, JSONValue?) -> Void) -> Self {
        Self(key, get, set, kind: .any, from: { $0 }, to: { $0 })
    }

    /// An array of any values, kept as they are.
    public static func array(_ key: String, _ get: @escaping (Model) -> [JSONValue]?, _ set: @escaping (inout Model, [JSONValue]?) -> Void) -> Self {
        Self(key, get, set, kind: .array(.any), from: { $0.arrayValue }, to: JSONValue.array)
    }

    /// An object the model does not read further, kept as it is.
    public static func object(_ key: String, _ get: @escaping (Model) -> JSONObject?, _ set: @escaping (inout Model, JSONObject?) -> Void) -> Self {
        Self(key, get, set, kind: .object, from: { $0.objectValue }, to: JSONValue.object)
    }

    /// An array of strings (nil unless every element is one); `from` reads other forms (one
    /// string).
    public static func strings(
        _ key: String, _ get: @escaping (Model) -> [String]?, _ set: @escaping (inout Model, [String]?) -> Void, from: @escaping (JSONValue) -> [String]? = { $0.stringsValue }
    ) -> Self {
        Self(key, get, set, kind: .array(.string), from: from, to: { .array($0.map(JSONValue.string)) })
    }

    /// An array of numbers (nil unless every element is one).
    public static func doubles(_ key: String, _ get: @escaping (Model) -> [Double]?, _ set: @escaping (inout Model, [Double]?) -> Void) -> Self {
        Self(key, get, set, kind: .array(.number), from: { $0.doublesValue }, to: { .array($0.map(JSONValue.double)) })
    }

    /// An `[r, g, b]` or `[r, g, b, a]` colour, written with four channels unless it equals
    /// the colour the key already holds.
    public static func color(_ key: String, _ get: @escaping (Model) -> RGBAColor?, _ set: @escaping (inout Model, RGBAColor?) -> Void) -> Self {
        Self(key, get, set, kind: .color, from: { RGBAColor($0) }, to: { $0.jsonValue }, keepingEquivalent: true)
    }

    /// An object read as a model.
    public static func model<M: JSONModel>(_ key: String, _ get: @escaping (Model) -> M?, _ set: @escaping (inout Model, M?) -> Void) -> Self {
        Self(key, get, set, kind: .model(M.self), from: { $0.objectValue.map(M.init(json:)) }, to: { $0.jsonValue })
    }

    /// A model the type always has: read when the key holds an object (else left at its
    /// default), always written.
    public static func requiredModel<M: JSONModel>(_ key: String, _ get: @escaping (Model) -> M, _ set: @escaping (inout Model, M) -> Void) -> Self {
        Self(
            key, kind: .model(M.self),
            read: { object, model in
                if let value: M = object.model(key) { set(&model, value) }
            },
            write: { model, object in object[key] = get(model).jsonValue })
    }

    /// An array of models: its objects read in order, its other elements kept in place when
    /// the number of objects is unchanged (`JSONObject.setModels`).
    public static func models<M: JSONModel>(_ key: String, _ get: @escaping (Model) -> [M]?, _ set: @escaping (inout Model, [M]?) -> Void) -> Self {
        Self(
            key, kind: .array(.model(M.self)),
            read: { object, model in set(&model, object.models(key)) },
            write: { model, object in object.setModels(key, get(model)) })
    }

    /// A key that always holds `value` (a symbol's or renderer's `type`): written, not read.
    public static func constant(_ key: String, _ value: JSONValue) -> Self {
        Self(key, kind: .constant(value), read: { _, _ in }, write: { _, object in object[key] = value })
    }

    /// `property` inside the object under `outer` (`"font": {"size": 9}`). The outer object is
    /// created when the property has a value and kept with its other keys.
    public static func nested(_ outer: String, _ property: Self) -> Self {
        Self(
            outer, kind: .nested(property.key, property.kind),
            read: { object, model in
                if let inner = object.object(outer) { property.read(inner, &model) }
            },
            write: { model, object in
                var inner = object.object(outer) ?? JSONObject()
                property.write(model, &inner)
                if !inner.isEmpty { object[outer] = .object(inner) }
            })
    }
}

/// What a `JSONProperty`'s key holds.
public indirect enum JSONPropertyKind {
    case string
    case bool
    case number
    case integer
    /// Any value, kept as it is.
    case any
    /// An object kept as it is.
    case object
    /// An `[r, g, b, a]` colour.
    case color
    /// An object read as this model.
    case model(any JSONModel.Type)
    /// An array of elements of one kind.
    case array(JSONPropertyKind)
    /// An array of exactly these elements (`[[xmin, ymin], [xmax, ymax]]`).
    case tuple([JSONPropertyKind])
    /// Always this value.
    case constant(JSONValue)
    /// The key of an object that holds the property.
    case nested(String, JSONPropertyKind)
}
