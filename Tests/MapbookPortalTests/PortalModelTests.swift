import MapbookSupport
import Testing

@testable import MapbookPortal
@testable import MapbookPortalAPI

@Suite struct PortalModelTests {
    /// What the server writes for an item, the client reads back unchanged.
    @Test func itemJSONRoundTrips() throws {
        let item = PortalItem(
            id: "3f2c9a7e5b1d4c8fa0e6b2d4c6e8f0a1", owner: "alice", orgId: "0123456789abcdef", created: 1_763_000_000_000,
            modified: 1_763_100_000_000, title: "Naperville Water", type: "Mobile Map Package",
            typeKeywords: ["Mobile Map Package", "mmpk"], name: "NapervilleWater.mmpk", description: "<p>Mains</p>",
            snippet: "Water network", tags: ["water", "811"], thumbnail: "thumbnail/thumbnail.png",
            extent: [[-88.2, 41.7], [-88.1, 41.8]], access: .org, size: 12_345_678, ownerFolder: "f00d")
        let text = JSONWriter.string(item.jsonValue)
        let back = try PortalItem(json: try JSONParser.parse(text), source: "test")
        #expect(back == item)
    }

    @Test func anObjectWithoutIdIsNotAnItem() {
        #expect(throws: PortalError.self) { try PortalItem(json: .object(["title": .string("x")]), source: "search result 3") }
    }

    /// Errors travel as HTTP 200 bodies; the client must recognise them and keep the code.
    @Test func errorsRoundTripInTheArcGISShape() throws {
        let error = PortalError.itemNotFound("abc")
        let body = try JSONParser.parse(JSONWriter.string(error.jsonValue))
        #expect(body.objectValue?["error"]?.objectValue?["code"]?.intValue == 400)
        #expect(PortalError(response: body) == error)
        #expect(PortalError(response: .object(["id": .string("x")])) == nil)
    }
}
