/// Where a packaged layer's data is: `file:./data.gpkg?table=mains` or Esri's
/// `file:./x.geodatabase?itemId=3`, relative to the folder of the `.mmap` that names it.
public struct LayerDataPath: Sendable, Hashable, CustomStringConvertible {
    /// The file, relative to the map's folder, with any leading `./` removed.
    public var file: String
    /// Query parameters in order (`table`, `itemId`, ...).
    public var parameters: [(name: String, value: String)]

    /// Parses a `file:` URL; returns nil for anything else (http URLs, bare names).
    public init?(_ text: String) {
        guard text.hasPrefix("file:") else { return nil }
        var rest = Substring(text.dropFirst(5))
        while rest.hasPrefix("//") { rest = rest.dropFirst() }
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        while rest.hasPrefix("./") { rest = rest.dropFirst(2) }
        guard !rest.isEmpty else { return nil }
        file = Self.percentDecode(String(rest))
        parameters = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (name: Self.percentDecode(String(parts[0])), value: parts.count > 1 ? Self.percentDecode(String(parts[1])) : "")
        }
    }

    public init(file: String, table: String) {
        self.file = file
        self.parameters = [(name: "table", value: table)]
    }

    public var table: String? { parameter("table") }
    public var itemId: Int? { parameter("itemId").flatMap { Int($0) } }

    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var description: String {
        let query = parameters.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return "file:./\(file)" + (query.isEmpty ? "" : "?" + query)
    }

    public static func == (lhs: LayerDataPath, rhs: LayerDataPath) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// The entry this path names inside a package, given the folder of the map (`p20`).
    public func entryName(relativeTo folder: String) -> String {
        Self.entryName(file, relativeTo: folder)
    }

    /// The folder of the package holding an entry (`p20` for `p20/811 Map.mmap`, "" at the
    /// root): what the entry's relative paths are resolved from. Sliced, not split and joined
    /// again: the standard library's `joined` runs unspecialised here, and its first call looks
    /// its types up through every conformance record (start time of `inspect`).
    public static func folder(of entryName: String) -> String {
        entryName.lastIndex(of: "/").map { String(entryName[..<$0]) } ?? ""
    }

    /// The entry a relative path (`../data.gpkg`) names from a folder of the package.
    public static func entryName(_ path: String, relativeTo folder: String) -> String {
        // Substrings of the two strings, joined by hand: `[String].joined(separator:)` is the
        // standard library's unspecialised generic here, and its first call in a process looks
        // `[String]: Collection` up through every conformance record (start time of `inspect`).
        var components = folder.split(separator: "/")
        for part in path.split(separator: "/") {
            if part == ".." {
                if !components.isEmpty { components.removeLast() }
            } else if part != "." {
                components.append(part)
            }
        }
        var name = ""
        for part in components {
            if !name.isEmpty { name += "/" }
            name.append(contentsOf: part)
        }
        return name
    }

    static func percentDecode(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2,
                let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
