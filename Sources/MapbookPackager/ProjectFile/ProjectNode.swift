import MapbookSupport
import Yams

/// A node of a project file with its key path and line, for typed reading with good errors.
///
/// YAML and JSON project files are both read through Yams (JSON is YAML), so both report
/// lines.
struct ProjectNode {
    let node: Node
    /// `maps[0].layers[1]`; empty for the document root.
    let path: String
    let file: String

    var line: Int? { node.mark?.line }

    func error(_ kind: ProjectError.Kind, _ message: String) -> ProjectError {
        ProjectError(kind: kind, file: file, key: path, line: node.mark?.line, column: node.mark?.column, message: message)
    }

    private func child(_ key: String, _ node: Node) -> ProjectNode {
        ProjectNode(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    var kindName: String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar: return isNull ? "nothing (null)" : "a value"
        case .alias: return "an alias"
        }
    }

    var isNull: Bool {
        if case .scalar(let s) = node { return node.tag.rawValue == Tag.Name.null.rawValue || (s.string.isEmpty && s.style == .plain) }
        return false
    }

    /// The mapping's entries in order; keys must be strings and unique.
    func entries() throws(ProjectError) -> [(key: String, value: ProjectNode)] {
        guard let mapping = node.mapping else { throw error(.wrongType, "expected a mapping (key: value lines), found \(kindName)") }
        var out: [(String, ProjectNode)] = []
        var seen = Set<String>()
        for (k, v) in mapping {
            guard let key = k.scalar?.string else {
                throw ProjectNode(node: k, path: path, file: file).error(.wrongType, "keys must be plain text")
            }
            guard seen.insert(key).inserted else {
                throw ProjectNode(node: k, path: path, file: file).error(.duplicateKey, "key '\(key)' appears twice")
            }
            out.append((key, child(key, v)))
        }
        return out
    }

    /// Refuses keys outside `allowed`, naming the nearest one, to catch typos.
    func checkKeys(_ allowed: [String]) throws(ProjectError) {
        for (key, value) in try entries() where !allowed.contains(key) {
            var message = "unknown key '\(key)'"
            if let s = nearest(key, in: allowed) { message += "; did you mean '\(s)'?" }
            message += " Known keys here: " + allowed.joined(separator: ", ")
            throw ProjectError(kind: .unknownKey, file: file, key: value.path, line: value.line, message: message)
        }
    }

    subscript(key: String) -> ProjectNode? {
        guard let mapping = node.mapping, let value = mapping[key] else { return nil }
        let n = child(key, value)
        return n.isNull ? nil : n
    }

    func required(_ key: String) throws(ProjectError) -> ProjectNode {
        guard let value = self[key] else { throw error(.missingKey, "the key '\(key)' is required") }
        return value
    }

    func items() throws(ProjectError) -> [ProjectNode] {
        guard let sequence = node.sequence else { throw error(.wrongType, "expected a list, found \(kindName)") }
        return sequence.enumerated().map { ProjectNode(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    func string() throws(ProjectError) -> String {
        guard let scalar = node.scalar, !isNull else { throw error(.wrongType, "expected text, found \(kindName)") }
        return scalar.string
    }

    func double() throws(ProjectError) -> Double {
        guard node.scalar != nil, let value = node.float ?? node.int.map(Double.init), value.isFinite else {
            throw error(.wrongType, "expected a number, found '\((try? string()) ?? kindName)'")
        }
        return value
    }

    func int() throws(ProjectError) -> Int {
        guard node.scalar != nil, let value = node.int else {
            throw error(.wrongType, "expected a whole number, found '\((try? string()) ?? kindName)'")
        }
        return value
    }

    func bool() throws(ProjectError) -> Bool {
        guard node.scalar != nil, let value = node.bool else {
            throw error(.wrongType, "expected true or false, found '\((try? string()) ?? kindName)'")
        }
        return value
    }

    /// A list of text, or a single text (`tags: water` means `[water]`).
    func strings() throws(ProjectError) -> [String] {
        if node.scalar != nil { return [try string()] }
        var out: [String] = []
        for item in try items() { out.append(try item.string()) }
        return out
    }

    /// `[xmin, ymin, xmax, ymax]` in WGS84 degrees, checked for order and range.
    func boundingBox() throws(ProjectError) -> BoundingBox {
        let values = try items()
        guard values.count == 4 else { throw error(.wrongType, "expected [xmin, ymin, xmax, ymax] (4 numbers in WGS84 degrees), found \(values.count) values") }
        var v: [Double] = []
        for item in values { v.append(try item.double()) }
        let box = BoundingBox(minX: v[0], minY: v[1], maxX: v[2], maxY: v[3])
        guard box.minX < box.maxX, box.minY < box.maxY else {
            throw error(.invalidValue, "the extent \(box) is empty or inverted; write [xmin, ymin, xmax, ymax] with min below max")
        }
        guard box.minX >= -180, box.maxX <= 180, box.minY >= -90, box.maxY <= 90 else {
            throw error(.invalidValue, "the extent \(box) is outside longitude -180..180, latitude -90..90 (extents are in WGS84 degrees)")
        }
        return box
    }

    /// The node as JSON, for values passed through to the web map (renderers, pop-ups).
    func json() throws(ProjectError) -> JSONValue {
        switch node {
        case .mapping:
            var object = JSONObject()
            for (key, value) in try entries() { object[key] = try value.json() }
            return .object(object)
        case .sequence:
            var array: [JSONValue] = []
            for item in try items() { array.append(try item.json()) }
            return .array(array)
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int: return node.int.map { .integer(Int64($0)) } ?? .string(scalar.string)
            case .float: return node.float.map(JSONValue.double) ?? .string(scalar.string)
            default: return .string(scalar.string)
            }
        case .alias:
            throw error(.unsupported, "YAML aliases are not supported here")
        }
    }
}

/// The candidate a typo of `word` most likely meant: the nearest by edit distance, when it is
/// near enough (two edits, or a third of the word), ignoring case.
func nearest(_ word: String, in candidates: [String]) -> String? {
    guard let best = candidates.min(by: { editDistance(word, $0) < editDistance(word, $1) }) else { return nil }
    return editDistance(word, best) <= max(2, word.count / 3) ? best : nil
}

/// Levenshtein distance, for suggesting the key a typo meant.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
