import Testing
@testable import MapbookData

@Suite struct WKBTests {
    @Test func polygonWithHoleRoundTripsThroughWKBAndGeoPackageBinary() throws {
        let outer = [Position(x: 0, y: 0), Position(x: 10, y: 0), Position(x: 10, y: 10), Position(x: 0, y: 10), Position(x: 0, y: 0)]
        let hole = [Position(x: 2, y: 2), Position(x: 2, y: 4), Position(x: 4, y: 4), Position(x: 2, y: 2)]
        let g = Geometry(.multiPolygon([[outer, hole]]))
        #expect(try WKB.decode(WKB.encode(g)).geometry == g)
        let blob = GeoPackageBinary.encode(g, srsID: 3857)
        let (back, srs) = try GeoPackageBinary.decode(blob)
        #expect(back == g)
        #expect(srs == 3857)
    }

    @Test func readsPostGISEWKBWithSRIDInHex() throws {
        // SELECT ST_AsEWKB('SRID=4326;POINT(-122.6 45.5)') as written by PostGIS (little-endian).
        let hex = "0101000020E61000006666666666A65EC00000000000C04640"
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        let (g, srid) = try WKB.decode(bytes)
        #expect(srid == 4326)
        #expect(g == Geometry(.point(Position(x: -122.6, y: 45.5))))
    }

    @Test func refusesCountsLargerThanTheBlob() {
        // A line string claiming 2^31 points in 9 bytes.
        let bytes: [UInt8] = [1, 2, 0, 0, 0, 0, 0, 0, 0x80]
        #expect(throws: WKB.Error.self) { try WKB.decode(bytes) }
    }
}
