import MapbookSupport

/// The entry patches a portal keeps for an item (`mapbook/patches.json`, an info file beside
/// the layout): each gives an entry's bytes in one version from its bytes in the version
/// before (`EntryPatch`), so a device holding an older version applies them in a chain
/// (docs/PORTAL.md "Updates by delta").
public struct PatchIndex: Sendable, Equatable {
    public struct Patch: Sendable, Equatable {
        /// The entry's name in the version the patch leads to.
        public var name: String
        /// The SHA-256 (lowercase hex) and size of the entry it starts from and gives.
        public var from: String
        public var fromSize: Int64
        public var to: String
        public var toSize: Int64
        /// The patch's own size in bytes.
        public var size: Int64
        /// The item's `modified` of the version the patch leads to: `portal gc` removes
        /// patches no reporting device still needs.
        public var modified: Int64

        public init(name: String, from: String, fromSize: Int64, to: String, toSize: Int64, size: Int64, modified: Int64) {
            self.name = name
            self.from = from
            self.fromSize = fromSize
            self.to = to
            self.toSize = toSize
            self.size = size
            self.modified = modified
        }

        /// Where the portal keeps it: an info file of the item, named by the two hashes.
        public var path: String { "mapbook/patches/\(from)-\(to).zst" }
    }

    public var patches: [Patch]

    public init(patches: [Patch] = []) { self.patches = patches }

    /// The info file holding the index.
    public static let path = "mapbook/patches.json"
    /// Chains longer than this are not followed: the entry's changed blocks cost less.
    public static let longestChain = 8

    /// The patches, in order, giving the entry `to` from one whose hash is in `held`: the
    /// cheapest chain of at most `longestChain` patches, nil when there is none.
    public func chain(to target: String, from held: Set<String>) -> [Patch]? {
        var byTarget: [String: [Patch]] = [:]
        for p in patches where p.from != p.to { byTarget[p.to, default: []].append(p) }
        // Backwards from the target, cheapest first (few patches, few bytes): the first
        // held hash reached ends the search.
        var best: [String: (bytes: Int64, chain: [Patch])] = [target: (0, [])]
        var frontier = [target]
        var found: [Patch]?
        var foundBytes = Int64.max
        for _ in 0..<Self.longestChain {
            var next: [String] = []
            for hash in frontier {
                guard let (bytes, chain) = best[hash] else { continue }
                for p in byTarget[hash] ?? [] {
                    let total = bytes + p.size
                    let path = [p] + chain
                    if held.contains(p.from), total < foundBytes { (found, foundBytes) = (path, total) }
                    if total < (best[p.from]?.bytes ?? .max) {
                        best[p.from] = (total, path)
                        next.append(p.from)
                    }
                }
            }
            frontier = next
        }
        return found
    }

    public var jsonValue: JSONValue {
        .object([
            "patches": .array(patches.map { p in
                .object([
                    "name": .string(p.name), "from": .string(p.from), "fromSize": .integer(p.fromSize), "to": .string(p.to), "toSize": .integer(p.toSize),
                    "size": .integer(p.size), "modified": .integer(p.modified),
                ])
            })
        ])
    }

    /// Reads an index's JSON; nil when it is not one this tool can use (a patch named by
    /// anything but two SHA-256 hashes would name another file).
    public init?(json value: JSONValue) {
        guard let list = value.objectValue?["patches"]?.arrayValue else { return nil }
        var patches: [Patch] = []
        for item in list {
            guard let o = item.objectValue, let name = o["name"]?.stringValue, let from = o["from"]?.stringValue, let to = o["to"]?.stringValue,
                let fromSize = o["fromSize"]?.int64Value, let toSize = o["toSize"]?.int64Value, let size = o["size"]?.int64Value,
                let modified = o["modified"]?.int64Value, SHA256Digest.isHex(from), SHA256Digest.isHex(to), fromSize >= 0, toSize >= 0, size > 0
            else { return nil }
            patches.append(Patch(name: name, from: from, fromSize: fromSize, to: to, toSize: toSize, size: size, modified: modified))
        }
        self.init(patches: patches)
    }
}
