import MapbookData
import MapbookPackage
import MapbookSupport

/// One tile made on request from features in Web Mercator metres (the `mapbook serve` and
/// portal map pages' operational layers, drawn by MapLibre from a GeoPackage without a tiler
/// run): each geometry is clipped to the tile and a buffer around it, snapped to the tile's
/// grid, rid of repeated points and collapsed parts, and wound as MVT 2.1 wants.
///
/// Points are thinned to one per `pointCell` square of the grid (16 of 4096 units: two
/// screen pixels at MapLibre's 512-pixel tiles), so a tile of a dense layer at a low zoom stays
/// small whatever the layer holds; lines and polygons are kept whole, snapped to the grid.
public struct FeatureTileEncoder: Sendable {
    public let tile: TileCoordinate
    public let extent: UInt32
    /// The box features are clipped to, in Web Mercator metres: the tile and its buffer.
    public let clipBox: BoundingBox
    /// The tile itself, in Web Mercator metres.
    public let tileBox: BoundingBox
    public let pointCell: Int32
    private var layers: [VectorTileLayerBuilder] = []
    private var occupiedCells: [Set<Int64>] = []

    /// A tile `extent` units wide, clipping `buffer` units beyond its edges.
    public init(tile: TileCoordinate, extent: UInt32 = 4096, buffer: Int = 64, pointCell: Int32 = 16) {
        self.tile = tile
        self.extent = extent
        self.pointCell = max(pointCell, 1)
        tileBox = Self.box(of: tile)
        let margin = tileBox.width * Double(buffer) / Double(extent)
        clipBox = BoundingBox(minX: tileBox.minX - margin, minY: tileBox.minY - margin, maxX: tileBox.maxX + margin, maxY: tileBox.maxY + margin)
    }

    /// The tile's square in Web Mercator metres.
    public static func box(of tile: TileCoordinate) -> BoundingBox {
        let size = 2 * WebMercator.halfWorld / Double(tile.tilesPerSide)
        let minX = -WebMercator.halfWorld + Double(tile.x) * size
        let maxY = WebMercator.halfWorld - Double(tile.y) * size
        return BoundingBox(minX: minX, minY: maxY - size, maxX: minX + size, maxY: maxY)
    }

    /// Starts a layer; features added next go into it.
    public mutating func startLayer(named name: String) {
        layers.append(VectorTileLayerBuilder(name: name, extent: extent))
        occupiedCells.append([])
    }

    /// Adds a feature to the current layer; false when nothing of it lies in the tile (or a
    /// point's cell already holds one).
    @discardableResult
    public mutating func add(id: UInt64?, attributes: [(key: String, value: VectorTile.Value)], geometry: Geometry) -> Bool {
        precondition(!layers.isEmpty, "startLayer(named:) comes first")
        guard let clipped = RectangleClipper(clipBox).clip(geometry), let encoded = tileGeometry(clipped) else { return false }
        if case .points(let points) = encoded {
            var kept: [TilePoint] = []
            for p in points where occupiedCells[occupiedCells.count - 1].insert(cellKey(p)).inserted { kept.append(p) }
            guard !kept.isEmpty else { return false }
            return layers[layers.count - 1].add(id: id, attributes: attributes, geometry: .points(kept))
        }
        return layers[layers.count - 1].add(id: id, attributes: attributes, geometry: encoded)
    }

    /// The attribute value of a field's value as MVT stores it; nil for nulls and blobs.
    public static func value(_ value: FieldValue) -> VectorTile.Value? {
        switch value {
        case .null, .blob: return nil
        case .integer(let i): return i >= 0 ? .uint(UInt64(i)) : .sint(i)
        case .real(let d): return d.isFinite ? .double(d) : nil
        case .text(let s): return .string(s)
        }
    }

    /// The tile's bytes (uncompressed MVT); layers that got no feature are left out.
    public func encoded() -> [UInt8] {
        VectorTile(layers: layers.filter { !$0.isEmpty }.map { $0.build() }).encoded()
    }

    public var featureCount: Int { layers.reduce(0) { $0 + $1.featureCount } }

    // MARK: - Geometry

    private func cellKey(_ p: TilePoint) -> Int64 {
        // Floor division keeps buffer points (negative coordinates) in cells of their own.
        let cx = Int64((p.x >= 0 ? p.x : p.x - pointCell + 1) / pointCell)
        let cy = Int64((p.y >= 0 ? p.y : p.y - pointCell + 1) / pointCell)
        return (cx << 32) ^ (cy & 0xFFFF_FFFF)
    }

    private func point(_ p: Position) -> TilePoint {
        let e = Double(extent)
        let x = ((p.x - tileBox.minX) / tileBox.width * e).rounded()
        let y = ((tileBox.maxY - p.y) / tileBox.height * e).rounded()
        return TilePoint(Int32(clamping: Int64(x)), Int32(clamping: Int64(y)))
    }

    private func path(_ positions: [Position]) -> [TilePoint] {
        var out: [TilePoint] = []
        out.reserveCapacity(positions.count)
        for p in positions {
            let q = point(p)
            if out.last != q { out.append(q) }
        }
        return out
    }

    /// A ring snapped, without its closing point, wound as `exterior` says; nil when it
    /// collapses to less than a triangle or no area.
    private func ring(_ positions: [Position], exterior: Bool) -> [TilePoint]? {
        var r = path(positions)
        while r.count > 1, r.first == r.last { r.removeLast() }
        guard r.count >= 3 else { return nil }
        let area = TileGeometry.ringArea(r)
        guard area != 0 else { return nil }
        if (area > 0) != exterior { r.reverse() }
        return r
    }

    private func polygon(_ rings: [[Position]]) -> [[TilePoint]]? {
        guard let first = rings.first, let outer = ring(first, exterior: true) else { return nil }
        return [outer] + rings.dropFirst().compactMap { ring($0, exterior: false) }
    }

    func tileGeometry(_ g: Geometry) -> TileGeometry? {
        let result: TileGeometry
        switch g.shape {
        case .point(let p):
            result = .points([point(p)])
        case .multiPoint(let ps):
            var seen = Set<TilePoint>()
            result = .points(ps.map(point).filter { seen.insert($0).inserted })
        case .lineString(let line):
            result = .lines([path(line)].filter { $0.count >= 2 })
        case .multiLineString(let lines):
            result = .lines(lines.map(path).filter { $0.count >= 2 })
        case .polygon(let rings):
            result = .polygons(polygon(rings).map { [$0] } ?? [])
        case .multiPolygon(let polygons):
            result = .polygons(polygons.compactMap(polygon))
        case .geometryCollection(let members):
            // MVT has no collections: the first member's family that encodes wins.
            return members.lazy.compactMap { self.tileGeometry($0) }.first
        }
        return result.isEmpty ? nil : result
    }
}
