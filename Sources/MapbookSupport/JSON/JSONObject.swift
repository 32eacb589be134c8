/// A JSON object that remembers the order of its keys.
///
/// Setting an existing key replaces its value in place; a new key goes to the end. Equality
/// ignores order, as JSON does.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var entries: [(key: String, value: JSONValue)] = []
    // Positions of keys in `entries`, built only for larger objects where a scan would be slow.
    private var positions: [String: Int]? = nil
    private static let indexThreshold = 16

    public init() {}

    public init(_ pairs: [(String, JSONValue)]) {
        entries.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        entries.makeIterator()
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return entries.firstIndex { $0.key == key }
    }

    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let newValue {
                if let i = position(of: key) {
                    entries[i].value = newValue
                } else {
                    entries.append((key, newValue))
                    if positions != nil {
                        positions![key] = entries.count - 1
                    } else if entries.count > Self.indexThreshold {
                        rebuildPositions()
                    }
                }
            } else if let i = position(of: key) {
                entries.remove(at: i)
                if positions != nil { rebuildPositions() }
            }
        }
    }

    private mutating func rebuildPositions() {
        var map = [String: Int](minimumCapacity: entries.count)
        for (i, entry) in entries.enumerated() { map[entry.key] = i }
        positions = map
    }

    /// An object from parsed members in document order. A repeated key keeps its first
    /// position and its last value, as most JSON readers do, and is added to `duplicates`.
    init(parsed pairs: [(key: String, value: JSONValue)], duplicates: inout [String]) {
        guard pairs.count > Self.indexThreshold else {
            entries.reserveCapacity(pairs.count)
            for (key, value) in pairs {
                if let i = entries.firstIndex(where: { $0.key == key }) {
                    entries[i].value = value
                    duplicates.append(key)
                } else {
                    entries.append((key, value))
                }
            }
            return
        }
        var map = [String: Int](minimumCapacity: pairs.count)
        var unique: [(key: String, value: JSONValue)] = []
        unique.reserveCapacity(pairs.count)
        for pair in pairs {
            if let i = map[pair.key] {
                unique[i].value = pair.value
                duplicates.append(pair.key)
            } else {
                map[pair.key] = unique.count
                unique.append(pair)
            }
        }
        entries = unique
        positions = map
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.entries {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        // Order-independent: combine a commutative sum of entry hashes.
        var sum = 0
        for (key, value) in entries {
            var h = Hasher()
            h.combine(key)
            h.combine(value)
            sum = sum &+ h.finalize()
        }
        hasher.combine(sum)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
