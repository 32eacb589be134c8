import MapbookData
import MapbookSupport
import Testing

@testable import MapbookViewer

/// Where a user asks to look, resolved on a real map (the Naperville sample) and on a tile
/// package's extent alone.
@Suite struct ViewRequestTests {
    @Test func aBookmarkWithAScaleKeepsItsCentreAndABoxIsShownWhole() throws {
        let map = try MapSession(path: try MapSessionTests.naperville.get()).map(named: nil)
        let bookmark = try ViewRequest(bookmark: "Washington St & Ogden Ave", width: 800, height: 600).view(of: map)
        let rescaled = try ViewRequest(bookmark: "Washington St & Ogden Ave", scale: 1000, width: 800, height: 600).view(of: map)
        #expect(bookmark.scale == 4000 && rescaled.scale == 1000)
        #expect(abs(rescaled.center.x - bookmark.center.x) < 1e-6 && abs(rescaled.center.y - bookmark.center.y) < 1e-6)

        let box = BoundingBox(minX: -88.16, minY: 41.75, maxX: -88.14, maxY: 41.77)
        let view = try ViewRequest(box: box, width: 400, height: 400).view(of: map)
        let corners = try [Position(x: box.minX, y: box.minY), Position(x: box.maxX, y: box.maxY)].map { try map.fromLongitudeLatitude($0) }
        #expect(corners.allSatisfy { view.extent.minX <= $0.x + 1e-6 && $0.x <= view.extent.maxX + 1e-6 && view.extent.minY <= $0.y + 1e-6 && $0.y <= view.extent.maxY + 1e-6 })

        let centred = try ViewRequest(center: LonLat(argument: "-88.15,41.76"), scale: 24000, width: 400, height: 300).view(of: map)
        let centre = try map.toLongitudeLatitude(centred.center)
        #expect(abs(centre.x - -88.15) < 1e-9 && abs(centre.y - 41.76) < 1e-9 && abs(centred.scale - 24000) < 1e-6)

        #expect(throws: ViewerError.self) { try ViewRequest(bookmark: "Nowhere", width: 800, height: 600).view(of: map) }
        do {
            _ = try ViewRequest(bookmark: "Nowhere", width: 800, height: 600).view(of: map)
        } catch {
            #expect(error.kind == .unknownBookmark && error.choices == ["Downtown", "Washington St & Ogden Ave"])
        }
    }

    @Test func aTilePackageHasNoBookmarksAndNeedsAnExtentOrAPlace() throws {
        let world = WebMercator.project(BoundingBox(minX: -10, minY: -10, maxX: 10, maxY: 10))
        let full = try ViewRequest(width: 256, height: 256).webMercatorView(fullExtent: world)
        #expect(abs(full.center.x) < 1e-6 && abs(full.center.y) < 1e-6)
        for (request, extent) in [(ViewRequest(bookmark: "Downtown", width: 256, height: 256), world), (ViewRequest(width: 256, height: 256), nil)] {
            do {
                _ = try request.webMercatorView(fullExtent: extent)
                Issue.record("\(request) on \(String(describing: extent)) should be refused")
            } catch {
                #expect(error.kind == .invalidView && error.isUsage)
            }
        }
        // A box of degrees beyond the poles is not one.
        #expect(throws: ViewerError.self) {
            try ViewRequest(box: BoundingBox(minX: 0, minY: -100, maxX: 10, maxY: 10), width: 256, height: 256).webMercatorView(fullExtent: nil)
        }
    }
}
