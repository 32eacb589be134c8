import Testing
@testable import MapbookTiles
import MapbookPackage

@Suite struct TileCoordinateTests {
    @Test func parentHalvesTheAddress() {
        #expect(TileCoordinate(z: 3, x: 5, y: 6).parent == TileCoordinate(z: 2, x: 2, y: 3))
        #expect(TileCoordinate(z: 0, x: 0, y: 0).parent == nil)
    }

    @Test func addressesOutsideTheGridAreInvalid() {
        #expect(TileCoordinate(z: 2, x: 3, y: 3).isValid)
        #expect(!TileCoordinate(z: 2, x: 4, y: 0).isValid)
        #expect(!TileCoordinate(z: -1, x: 0, y: 0).isValid)
    }
}
