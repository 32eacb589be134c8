import Testing
@testable import MapbookTiles

@Suite struct TileGeometryTests {
    func p(_ x: Int32, _ y: Int32) -> TilePoint { TilePoint(x, y) }

    func roundTrip(_ geometry: TileGeometry) throws -> TileGeometry {
        try VectorTile.Feature(geometry: geometry).decodeGeometry()
    }

    // The examples of MVT 2.1 section 4.3.5, command for command.

    @Test func encodesTheSpecExamples() {
        #expect(VectorTile.Feature(geometry: .points([p(25, 17)])).geometry == [9, 50, 34])
        #expect(VectorTile.Feature(geometry: .points([p(5, 7), p(3, 2)])).geometry == [17, 10, 14, 3, 9])
        #expect(VectorTile.Feature(geometry: .lines([[p(2, 2), p(2, 10), p(10, 10)]])).geometry == [9, 4, 4, 18, 0, 16, 16, 0])
        #expect(VectorTile.Feature(geometry: .lines([[p(2, 2), p(2, 10), p(10, 10)], [p(1, 1), p(3, 5)]])).geometry == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
        #expect(VectorTile.Feature(geometry: .polygons([[[p(3, 6), p(8, 12), p(20, 34)]]])).geometry == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        let multipolygon = TileGeometry.polygons([
            [[p(0, 0), p(10, 0), p(10, 10), p(0, 10)]],
            [[p(11, 11), p(20, 11), p(20, 20), p(11, 20)], [p(13, 13), p(13, 17), p(17, 17), p(17, 13)]],
        ])
        #expect(VectorTile.Feature(geometry: multipolygon).geometry == [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15, 9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15])
        #expect(VectorTile.Feature(geometry: multipolygon).type == .polygon)
    }

    @Test func polygonsWithHolesAndMultipolygonsRoundTrip() throws {
        let frame = [p(0, 0), p(100, 0), p(100, 100), p(0, 100)]
        let hole1 = [p(10, 10), p(10, 20), p(20, 20), p(20, 10)]
        let hole2 = [p(50, 50), p(50, 70), p(70, 60)]
        let island = [p(200, 200), p(300, 210), p(250, 300)]
        let geometry = TileGeometry.polygons([[frame, hole1, hole2], [island], [frame.map { p($0.x + 400, $0.y) }, hole1.map { p($0.x + 400, $0.y) }]])
        #expect(TileGeometry.ringArea(frame) > 0 && TileGeometry.ringArea(hole1) < 0 && TileGeometry.ringArea(hole2) < 0 && TileGeometry.ringArea(island) > 0)
        #expect(try roundTrip(geometry) == geometry)
    }

    @Test func linesAndPointsRoundTripIncludingNegativeAndHugeCoordinates() throws {
        let lines = TileGeometry.lines([[p(-64, -64), p(4160, 20), p(0, 4096)], [p(Int32.max, Int32.min), p(Int32.min, Int32.max)]])
        #expect(try roundTrip(lines) == lines)
        let points = TileGeometry.points([p(0, 0), p(0, 0), p(-5, 7), p(Int32.min, Int32.max)])
        #expect(try roundTrip(points) == points)
    }

    @Test func closingPointsAndRepeatedPointsAreNotWritten() throws {
        let ring = [p(0, 0), p(10, 0), p(10, 0), p(10, 10), p(0, 10), p(0, 0)]
        let feature = VectorTile.Feature(geometry: .polygons([[ring]]))
        // MoveTo 1, LineTo 3, ClosePath 1: no zero-length step, no closing point.
        #expect(feature.geometry == [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15])
        #expect(try feature.decodeGeometry() == .polygons([[[p(0, 0), p(10, 0), p(10, 10), p(0, 10)]]]))
        let line = VectorTile.Feature(geometry: .lines([[p(1, 1), p(1, 1), p(5, 5), p(5, 5)]]))
        #expect(line.geometry == [9, 2, 2, 10, 8, 8])
    }

    @Test func collapsedPartsAreLeftOut() throws {
        // A one-point line, a two-point ring, a zero-area ring with a hole that goes with it.
        let lines = VectorTile.Feature(geometry: .lines([[p(1, 1), p(1, 1)], [p(0, 0), p(3, 3)]]))
        #expect(try lines.decodeGeometry() == .lines([[p(0, 0), p(3, 3)]]))
        let flat = [p(0, 0), p(5, 5), p(10, 10)]
        let square = [p(0, 0), p(10, 0), p(10, 10), p(0, 10)]
        let hole = [p(2, 2), p(2, 4), p(4, 4)]
        let polygons = VectorTile.Feature(geometry: .polygons([[flat, hole], [[p(0, 0), p(1, 1)]], [square, hole, [p(3, 3), p(3, 3), p(3, 3)]]]))
        #expect(try polygons.decodeGeometry() == .polygons([[square, hole]]))
        #expect(VectorTile.Feature(geometry: .lines([[p(7, 7)]])).geometry.isEmpty)
        #expect(VectorTile.Feature(geometry: .points([])).geometry.isEmpty)
    }

    @Test func theCursorCarriesAcrossPartsButRestartsPerFeature() {
        let a = VectorTile.Feature(geometry: .points([p(3, 3)]))
        let b = VectorTile.Feature(geometry: .points([p(3, 3)]))
        #expect(a.geometry == b.geometry)
        // After a dropped ring the next ring is encoded from the last written point.
        let feature = VectorTile.Feature(geometry: .polygons([[[p(0, 0), p(4, 0), p(4, 4)], [p(9, 9), p(9, 9)]], [[p(10, 0), p(14, 0), p(14, 4)]]]))
        #expect(feature.geometry == [9, 0, 0, 18, 8, 0, 0, 8, 15, 9, 12, 7, 18, 8, 0, 0, 8, 15])
    }

    @Test(arguments: [
        ([(0, 0), (10, 0), (10, 10), (0, 10)], Int64(200)),
        ([(0, 0), (0, 10), (10, 10), (10, 0)], -200),
        ([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)], 200),
        ([(0, 0), (5, 5), (10, 10)], 0),
        ([(3, 6), (8, 12), (20, 34)], 38),
        ([], 0),
    ] as [([(Int32, Int32)], Int64)])
    func ringAreaIsTwiceTheSignedSurveyorsArea(points: [(Int32, Int32)], area: Int64) {
        #expect(TileGeometry.ringArea(points.map { p($0.0, $0.1) }) == area)
    }

    @Test func ringAreaOfExtremeCoordinatesKeepsItsSign() {
        let big = [p(Int32.min, Int32.min), p(Int32.max, Int32.min), p(Int32.max, Int32.max), p(Int32.min, Int32.max)]
        #expect(TileGeometry.ringArea(big) == Int64.max)
        #expect(TileGeometry.ringArea(big.reversed()) == Int64.min)
    }

    @Test func summariesCountPointsAndBounds() {
        let g = TileGeometry.polygons([[[p(0, 0), p(10, 0), p(10, 10)], [p(2, 1), p(2, 2), p(3, 2)]]])
        #expect(g.pointCount == 6)
        #expect(g.bounds?.min == p(0, 0) && g.bounds?.max == p(10, 10))
        #expect(TileGeometry.lines([]).bounds == nil)
        #expect(TileGeometry.lines([[]]).isEmpty)
    }

    /// A polygon whose only ring collapsed (two points, or three on a line) draws nothing:
    /// its own kind, which readers skip and validate notes, not an invalid geometry.
    @Test(arguments: [[9, 0, 0, 10, 20, 0, 15], [9, 0, 0, 18, 4, 4, 4, 4, 15]] as [[UInt32]])
    func aPolygonWithNoAreaIsDegenerateNotInvalid(commands: [UInt32]) {
        let feature = VectorTile.Feature(type: .polygon, geometry: commands)
        let error = #expect(throws: MVTError.self) { try feature.decodeGeometry() }
        #expect(error?.kind == .degeneratePolygon)
        let checkError = #expect(throws: MVTError.self) { try feature.checkGeometry() }
        #expect(checkError?.kind == .degeneratePolygon)
    }

    @Test func unknownTypeHasNoGeometry() {
        let error = #expect(throws: MVTError.self) {
            try VectorTile.Feature(type: .unknown, geometry: [9, 50, 34]).decodeGeometry()
        }
        #expect(error?.kind == .unknownGeometryType)
        #expect(error?.located(source: "a.mvt", layer: "x", feature: 2, featureID: 7).description == "a.mvt: layer 'x' feature 2 (id 7): its geometry type is UNKNOWN, which has no defined encoding")
    }

    @Test(arguments: [
        ([UInt32](), VectorTile.GeometryType.point),
        ([9, 50, 34, 9, 2, 2], .point),
        ([1], .point),
        ([17, 4, 4, 2, 2, 10, 2, 2], .lineString),
        ([9, 4, 4], .lineString),
        ([9, 4, 4, 2], .lineString),
        ([9, 4, 4, 9, 2, 2], .lineString),
        ([9, 0, 0, 26, 20, 0, 0, 20, 19, 0], .polygon),
        ([9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 9, 0, 0], .polygon),
    ] as [([UInt32], VectorTile.GeometryType)])
    func malformedCommandsAreRefusedAsInvalidGeometry(commands: [UInt32], type: VectorTile.GeometryType) {
        let feature = VectorTile.Feature(type: type, geometry: commands)
        let error = #expect(throws: MVTError.self) { try feature.decodeGeometry() }
        #expect(error?.kind == .invalidGeometry)
        // The decoder's check, which builds nothing, says the same.
        let checkError = #expect(throws: MVTError.self) { try feature.checkGeometry() }
        #expect(checkError?.kind == .invalidGeometry)
        #expect(checkError?.message == error?.message)
    }
}
