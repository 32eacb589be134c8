import Testing
@testable import MapbookData

@Suite struct WKTTests {
    private func p(_ x: Double, _ y: Double) -> Position { Position(x: x, y: y) }

    @Test(arguments: [
        ("POINT (1 2)", Geometry(.point(Position(x: 1, y: 2)))),
        ("LINESTRING(0 0, 1 1, 2 0.5)", Geometry(.lineString([Position(x: 0, y: 0), Position(x: 1, y: 1), Position(x: 2, y: 0.5)]))),
        ("MULTIPOINT(1 2, 3 4)", Geometry(.multiPoint([Position(x: 1, y: 2), Position(x: 3, y: 4)]))),
        ("MULTIPOINT((1 2),(3 4))", Geometry(.multiPoint([Position(x: 1, y: 2), Position(x: 3, y: 4)]))),
        ("MULTILINESTRING((0 0,1 1),(2 2,3 3))", Geometry(.multiLineString([[Position(x: 0, y: 0), Position(x: 1, y: 1)], [Position(x: 2, y: 2), Position(x: 3, y: 3)]]))),
        ("  multipoint ( ( 1 2 ) ,(3\t4) )\n", Geometry(.multiPoint([Position(x: 1, y: 2), Position(x: 3, y: 4)]))),
        ("Point(1e5 -.5)", Geometry(.point(Position(x: 100_000, y: -0.5)))),
        ("POINT(+1.25 -0)", Geometry(.point(Position(x: 1.25, y: 0)))),
    ])
    func readsEachSimpleType(text: String, expected: Geometry) throws {
        #expect(try WKT.parse(text) == expected)
    }

    @Test func readsPolygonsWithHolesAndMultiPolygons() throws {
        let outer = [p(0, 0), p(10, 0), p(10, 10), p(0, 10), p(0, 0)]
        let hole = [p(2, 2), p(2, 4), p(4, 4), p(2, 2)]
        let polygon = try WKT.parse("POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,2 2))")
        #expect(polygon == Geometry(.polygon([outer, hole])))
        let multi = try WKT.parse("MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,2 2)),((20 20,21 20,21 21,20 20)))")
        #expect(multi == Geometry(.multiPolygon([[outer, hole], [[p(20, 20), p(21, 20), p(21, 21), p(20, 20)]]])))
    }

    @Test func readsGeometryCollectionsAndTheirMembers() throws {
        let g = try WKT.parse("GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1), GEOMETRYCOLLECTION(POINT(3 4)))")
        #expect(
            g == Geometry(.geometryCollection([
                Geometry(.point(p(1, 2))), Geometry(.lineString([p(0, 0), p(1, 1)])),
                Geometry(.geometryCollection([Geometry(.point(p(3, 4)))])),
            ])))
    }

    @Test(arguments: [
        ("POINT Z (1 2 3)", true, false, Position(x: 1, y: 2, z: 3)),
        ("POINTZ(1 2 3)", true, false, Position(x: 1, y: 2, z: 3)),
        ("point z(1 2 3)", true, false, Position(x: 1, y: 2, z: 3)),
        ("POINT(1 2 3)", true, false, Position(x: 1, y: 2, z: 3)),
        ("POINT M (1 2 3)", false, true, Position(x: 1, y: 2, m: 3)),
        ("POINTM(1 2 3)", false, true, Position(x: 1, y: 2, m: 3)),
        ("POINT ZM (1 2 3 4)", true, true, Position(x: 1, y: 2, z: 3, m: 4)),
        ("POINT(1 2 3 4)", true, true, Position(x: 1, y: 2, z: 3, m: 4)),
    ])
    func readsZAndMFromTagsOrFromTheCoordinateCount(text: String, z: Bool, m: Bool, position: Position) throws {
        let g = try WKT.parse(text)
        #expect(g.hasZ == z)
        #expect(g.hasM == m)
        #expect(g.shape == .point(position))
    }

    @Test func tagsDimensionsOnEveryMemberOfACollection() throws {
        let g = try WKT.parse("GEOMETRYCOLLECTION Z (POINT(1 2 3), LINESTRING Z (0 0 0, 1 1 1))")
        guard case .geometryCollection(let members) = g.shape else {
            Issue.record("not a collection: \(g)")
            return
        }
        #expect(g.hasZ && members.allSatisfy(\.hasZ))
        // Round trip through WKB, which writes each member's own flags.
        #expect(try WKB.decode(WKB.encode(g)).geometry == g)
    }

    @Test(arguments: ["POINT EMPTY", "LINESTRING EMPTY", "polygon empty", "MULTIPOINT EMPTY", "MULTIPOLYGON EMPTY", "GEOMETRYCOLLECTION EMPTY"])
    func readsEmptyGeometries(text: String) throws {
        let g = try WKT.parse(text)
        #expect(g.isEmpty)
        #expect(g.type.gpkgName == text.split(separator: " ")[0].uppercased())
    }

    @Test func readsEmptyMembers() throws {
        #expect(try WKT.parse("MULTIPOINT(EMPTY, (1 2))") == Geometry(.multiPoint([p(1, 2)])))
        #expect(try WKT.parse("MULTILINESTRING(EMPTY, (1 2, 3 4))") == Geometry(.multiLineString([[], [p(1, 2), p(3, 4)]])))
        #expect(try WKT.parse("GEOMETRYCOLLECTION(POINT EMPTY, POINT(1 2))").positionCount == 2)
    }

    @Test func readsTheSRIDOfEWKT() throws {
        let (g, srid) = try WKT.parseWithSRID("SRID=4326;POINT(-122.6 45.5)")
        #expect(srid == 4326)
        #expect(g == Geometry(.point(p(-122.6, 45.5))))
        #expect(try WKT.parseWithSRID("srid = 3857 ; POINT(1 2)").srid == 3857)
        #expect(try WKT.parseWithSRID("POINT(1 2)").srid == nil)
        #expect(try WKT.parse("SRID=4326;POINT(1 2)") == Geometry(.point(p(1, 2))))
    }

    @Test func readsASubstring() throws {
        let text = "id=7 POINT(5 6) trailing"
        let slice = text.dropFirst(5).prefix(10)
        #expect(try WKT.parse(slice) == Geometry(.point(p(5, 6))))
    }

    @Test(arguments: [
        ("", 0, .empty),
        ("POINT(1)", 6, .invalidPosition),
        ("POINT(1 2", 9, .unexpectedEnd),
        ("POINT(1 2) x", 11, .trailingContent),
        ("POINT(1 2 3 4 5)", 14, .invalidPosition),
        ("LINESTRING(1 2, 3 4 5)", 16, .mixedDimensions),
        ("POINT Z (1 2)", 9, .mixedDimensions),
        ("CIRCULARSTRING(0 0, 1 1, 2 0)", 0, .unsupportedType),
        ("POINT(nan 1)", 6, .unexpectedCharacter),
        ("POINT(1.2.3 4)", 9, .invalidNumber),
        ("POLYGON((0 0, 1 1, 0 0)", 23, .unexpectedEnd),
        ("MULTIPOINT(1 2,)", 15, .unexpectedCharacter),
        ("GEOMETRYCOLLECTION Z (POINT M (1 2 3))", 22, .mixedDimensions),
        ("SRID=abc;POINT(1 2)", 5, .invalidSRID),
        ("42", 0, .unexpectedCharacter),
    ] as [(String, Int, WKT.Error.Kind)])
    func refusesMalformedTextNamingWhere(text: String, offset: Int, kind: WKT.Error.Kind) {
        do {
            let g = try WKT.parse(text)
            Issue.record("parsed \(text) as \(g)")
        } catch {
            #expect(error.offset == offset, "\(error)")
            #expect(error.kind == kind, "\(error)")
            #expect(error.description.hasPrefix("WKT at character \(error.offset): "))
        }
    }

    @Test func acceptsCollectionsNestedToTheLimitAndRefusesDeeperOnesWithoutCrashing() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "GEOMETRYCOLLECTION(", count: depth) + "POINT(1 2)" + String(repeating: ")", count: depth)
        }
        #expect(try WKT.parse(nested(WKT.maximumDepth)).positionCount == 1)
        #expect(throws: WKT.Error.self) { try WKT.parse(nested(WKT.maximumDepth + 1)) }
        // Hostile: a megabyte of opening collections must fail fast, not exhaust the stack.
        let hostile = String(repeating: "GEOMETRYCOLLECTION(", count: 60_000)
        do {
            _ = try WKT.parse(hostile)
            Issue.record("parsed hostile nesting")
        } catch {
            #expect(error.kind == .tooDeep, "\(error)")
            #expect(error.offset == 19 * (WKT.maximumDepth + 1))
        }
        #expect(throws: WKT.Error.self) { try WKT.parse("POLYGON" + String(repeating: "(", count: 100_000)) }
    }

    @Test func roundTripsThroughWKB() throws {
        for text in [
            "MULTIPOLYGON Z (((0 0 1,1 0 1,1 1 1,0 0 1)),((5 5 2,6 5 2,6 6 2,5 5 2)))",
            "LINESTRING M (0 0 10, 1 1 20)",
            "GEOMETRYCOLLECTION(POINT(1 2),MULTILINESTRING((0 0,1 1)))",
        ] {
            let g = try WKT.parse(text)
            #expect(try WKB.decode(WKB.encode(g)).geometry == g, "\(text)")
        }
    }

    @Test func readsHeadersWithoutCoordinates() throws {
        func header(_ text: String) -> WKT.Header? {
            Array(text.utf8).withUnsafeBufferPointer { WKT.header($0) }
        }
        #expect(header("SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)))")?.type == .multiPolygon)
        #expect(header("SRID=4326;POINT(1 2)")?.srid == 4326)
        #expect(header("POINT(1 2 3)")?.hasZ == true)
        #expect(header("LINESTRING M EMPTY")?.hasM == true)
        #expect(header("Polygonal") == nil)
        #expect(header("POINT is a word") == nil)
    }
}
