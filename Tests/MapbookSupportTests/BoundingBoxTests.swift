import MapbookSupport
import Testing

@Suite struct BoundingBoxTests {
    /// `isEmpty` is "no point included"; `hasArea` is "positive width and height". A point or a
    /// line is not empty but has no area; a NaN corner is neither.
    @Test(arguments: [
        (BoundingBox.empty, true, false),
        (BoundingBox(minX: 5, minY: 5, maxX: 5, maxY: 5), false, false),
        (BoundingBox(minX: 0, minY: 0, maxX: 0, maxY: 10), false, false),
        (BoundingBox(minX: 10, minY: 0, maxX: 0, maxY: 10), true, false),
        (BoundingBox(minX: .nan, minY: 0, maxX: 10, maxY: 10), false, false),
        (BoundingBox(minX: 0, minY: 0, maxX: 10, maxY: 10), false, true),
    ])
    func emptinessAndArea(box: BoundingBox, isEmpty: Bool, hasArea: Bool) {
        #expect(box.isEmpty == isEmpty)
        #expect(box.hasArea == hasArea)
    }

    @Test func includeSkipsAnEmptyBoxButUnionTakesCornersAsTheyAre() {
        var grown = BoundingBox.empty
        grown.include(x: 1, y: 2)
        grown.include(BoundingBox(minX: 10, minY: 0, maxX: 0, maxY: 10))
        #expect(grown == BoundingBox(minX: 1, minY: 2, maxX: 1, maxY: 2))
        let joined = grown.union(BoundingBox(minX: 10, minY: 0, maxX: 0, maxY: 10))
        #expect(joined == BoundingBox(minX: 1, minY: 0, maxX: 1, maxY: 10))
        #expect(joined.center.x == 1 && joined.center.y == 5)
    }

    @Test func describesItselfAsAJSONArray() {
        #expect("\(BoundingBox(minX: -88.2, minY: 41.7, maxX: -88, maxY: 42))" == "[-88.2, 41.7, -88, 42]")
        #expect(BoundingBox.empty.description == "[null, null, null, null]")
    }
}
