import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookData

/// The R-tree a GeoPackageWriter packs after a layer's load (SQLiteRTreeLoader): SQLite
/// accepts it, it answers window queries as a scan does, and edits through the GeoPackage
/// triggers keep it right.
@Suite struct RTreePackingTests {
    /// A reproducible scatter: points, short lines and a few rows without geometry.
    static func features(_ count: Int) -> [Geometry?] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        return (0..<count).map { i -> Geometry? in
            if i % 97 == 0 { return nil }
            let x = -1.3e7 + next() * 6e6, y = 3e6 + next() * 3e6
            if i % 5 == 0 {
                return Geometry(.lineString([Position(x: x, y: y), Position(x: x + next() * 5e4, y: y - next() * 5e4)]))
            }
            return Geometry(.point(Position(x: x, y: y)))
        }
    }

    /// Writes `geometries` as layer `t` of a new data.gpkg in `dir`.
    func write(_ geometries: [Geometry?], in dir: String) throws -> String {
        let path = dir + "/data.gpkg"
        let writer = try GeoPackageWriter(path: path, crs: .webMercator, timestamp: 1_700_000_000)
        let schema = LayerSchema(name: "t", fields: [Field(name: "n", type: .integer)], geometryType: .geometry, crs: .webMercator)
        try writer.beginLayer(table: "t", schema: schema, identifier: "t", description: "")
        for (i, g) in geometries.enumerated() { try writer.add(geometry: g, values: [.integer(Int64(i))]) }
        try writer.finishLayer()
        try writer.close()
        return path
    }

    /// The fids whose envelope meets the window, asked of the R-tree.
    func indexed(_ db: SQLiteDatabase, _ w: BoundingBox) throws -> Set<Int64> {
        Set(try db.query("SELECT id FROM rtree_t_geom WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?",
                         [.real(w.maxX), .real(w.minX), .real(w.maxY), .real(w.minY)]).compactMap { $0[0].int64 })
    }

    /// The same, by reading every geometry.
    func scanned(_ db: SQLiteDatabase, _ w: BoundingBox) throws -> Set<Int64> {
        var hits = Set<Int64>()
        for row in try db.query("SELECT fid, geom FROM t WHERE geom IS NOT NULL") {
            guard case .blob(let bytes) = row[1], let e = try GeoPackageBinary.decode(bytes).0.envelope else { continue }
            if e.minX <= w.maxX, e.maxX >= w.minX, e.minY <= w.maxY, e.maxY >= w.minY { hits.insert(row[0].int64!) }
        }
        return hits
    }

    static let windows = [
        BoundingBox(minX: -1.2e7, minY: 4e6, maxX: -1.1e7, maxY: 5e6),
        BoundingBox(minX: -9e6, minY: 3.1e6, maxX: -8.9e6, maxY: 3.2e6),
        BoundingBox(minX: -1.4e7, minY: 2e6, maxX: -6e6, maxY: 7e6),
        BoundingBox(minX: 0, minY: 0, maxX: 1, maxY: 1),
    ]

    @Test func aPackedTreeIsOneSQLiteAcceptsAndAnswersAsAScanDoes() throws {
        try withTemporaryDirectory { dir in
            let geometries = Self.features(20_000)
            let db = try SQLiteDatabase(readOnlyPath: try write(geometries, in: dir))
            #expect(try db.scalar("SELECT rtreecheck('rtree_t_geom')")?.text == "ok")
            #expect(try db.scalar("SELECT count(*) FROM rtree_t_geom")?.int64 == Int64(geometries.compactMap { $0 }.count))
            // 20,000 entries at 51 a node: leaves, two tiers above them, the root's depth 2.
            #expect(try db.scalar("SELECT hex(substr(data, 1, 2)) FROM rtree_t_geom_node WHERE nodeno = 1")?.text == "0002")
            for w in Self.windows {
                let hits = try indexed(db, w)
                #expect(hits == (try scanned(db, w)))
            }
            #expect(try indexed(db, Self.windows[2]).count == geometries.compactMap { $0 }.count)
        }
    }

    @Test func editsThroughTheTriggersKeepThePackedTreeRight() throws {
        try withTemporaryDirectory { dir in
            let path = try write(Self.features(5_000), in: dir)
            let db = try SQLiteDatabase(writablePath: path, create: false)
            try GeoPackageFunctions.register(on: db)
            let far = Geometry(.point(Position(x: 1000, y: 2000)))
            try db.query("INSERT INTO t (geom, n) VALUES (?, -1)", [.blob(GeoPackageBinary.encode(far, srsID: 3857))])
            try db.execute("DELETE FROM t WHERE fid % 7 = 0")
            try db.query("UPDATE t SET geom = ? WHERE fid = 2", [.blob(GeoPackageBinary.encode(Geometry(.point(Position(x: 10, y: 20))), srsID: 3857))])
            #expect(try db.scalar("SELECT rtreecheck('rtree_t_geom')")?.text == "ok")
            #expect(try indexed(db, Self.windows[3]).isEmpty)
            #expect(try indexed(db, BoundingBox(minX: 0, minY: 0, maxX: 2000, maxY: 2000)) == [2, 5001])
            for w in Self.windows { #expect(try indexed(db, w) == (try scanned(db, w))) }
            try db.close()
        }
    }

    @Test(arguments: [0, 1, 51, 52])
    func smallLayersMakeATreeToo(count: Int) throws {
        try withTemporaryDirectory { dir in
            let geometries = (0..<count).map { Geometry(.point(Position(x: Double($0) * 10, y: -Double($0)))) as Geometry? }
            let db = try SQLiteDatabase(readOnlyPath: try write(geometries, in: dir))
            #expect(try db.scalar("SELECT rtreecheck('rtree_t_geom')")?.text == "ok")
            #expect(try db.scalar("SELECT count(*) FROM rtree_t_geom")?.int64 == Int64(count))
            #expect(try indexed(db, BoundingBox(minX: -1, minY: -1e9, maxX: 1e9, maxY: 1)).count == count)
        }
    }

    @Test func boundsAreRoundedOutwardToSinglePrecision() {
        for v in [0.1, -0.1, 123456789.123, -2.0037508342789244e7, 1e-40, 3.0] {
            #expect(Double(SQLiteRTreeLoader.down(v)) <= v)
            #expect(Double(SQLiteRTreeLoader.up(v)) >= v)
            #expect(Double(SQLiteRTreeLoader.up(v)) - Double(SQLiteRTreeLoader.down(v)) <= abs(v) * 2.4e-7 + 1e-44)
        }
    }
}
