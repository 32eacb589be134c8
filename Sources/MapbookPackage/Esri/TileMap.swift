import MapbookSupport

/// Esri's tile map (`tilemap/root.json` of a vector tile package): a quadtree of the tiles
/// that exist, so clients never ask for missing ones.
///
/// Format (ArcGIS REST API, "Vector Tilemap"): `{"index": node}`, where a node is `0` (no tile
/// here or below), `1` (a tile with no children: clients overzoom it), `2` (a subtree kept in
/// another file) or `[NW, NE, SW, SE]` (a tile with children, one node per quadrant). The root
/// node is level 0. Levels below a package's `minLOD` hold no tiles; their nodes are arrays
/// only to lead to the tiles below.
public struct TileMap: Sendable {
    /// Nodes marked `1`: tiles without children.
    public var leaves: [TileCoordinate] = []
    /// Array nodes: tiles with children (or, below `minLOD`, only a way to the tiles below).
    public var branches: [TileCoordinate] = []
    /// Nodes marked `2`, whose subtree another file holds.
    public var externalSubtrees: [TileCoordinate] = []

    /// The deepest level a tile map may describe; deeper nesting is refused as hostile.
    public static let maximumLevel = 30

    /// Reads a parsed `tilemap/root.json`.
    public init(json: JSONValue, path: String) throws(PackageFormatError) {
        guard let root = json.objectValue?["index"] else {
            throw PackageFormatError(kind: .missingKey, path: path, message: "not a tile map: no \"index\" key")
        }
        var pending: [(JSONValue, TileCoordinate)] = [(root, TileCoordinate(level: 0, row: 0, column: 0))]
        while let (node, tile) = pending.popLast() {
            switch node {
            case .integer(0): continue
            case .integer(1): leaves.append(tile)
            case .integer(2): externalSubtrees.append(tile)
            case .array(let children) where children.count == 4:
                guard tile.level < Self.maximumLevel else {
                    throw PackageFormatError(kind: .tooDeep, path: path, message: "the tile map nests deeper than level \(Self.maximumLevel)")
                }
                branches.append(tile)
                for (child, position) in zip(children, tile.children).reversed() { pending.append((child, position)) }
            default:
                let shown = JSONWriter.string(node, style: .compact)
                throw PackageFormatError(kind: .invalidValue, path: path, message: "the tile map node at \(tile) is \(shown.count > 40 ? String(shown.prefix(40)) + "..." : shown); expected 0, 1, 2 or an array of 4 nodes")
            }
        }
    }

    /// The `{"index": ...}` document listing exactly `tiles`.
    ///
    /// A tile with tiles below it becomes an array node, one without a leaf (`1`); a node with
    /// no tile at or below it is `0`. Ancestors that are not tiles themselves (levels below
    /// `minLOD`) are array nodes too: the format has no way to say "no tile here, but below".
    public static func document(tiles: some Sequence<TileCoordinate>) -> JSONValue {
        var present = Set<TileCoordinate>()
        var inner = Set<TileCoordinate>()
        for tile in tiles {
            present.insert(tile)
            var up = tile.parent
            while let parent = up, inner.insert(parent).inserted { up = parent.parent }
        }
        func node(_ tile: TileCoordinate) -> JSONValue {
            if inner.contains(tile) { return .array(tile.children.map(node)) }
            return present.contains(tile) ? 1 : 0
        }
        return ["index": node(TileCoordinate(level: 0, row: 0, column: 0))]
    }
}
