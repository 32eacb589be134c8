import MapbookTestSupport
import Testing
@testable import MapbookSearch

@Suite struct SmokeTests {
    @Test(Fixtures.required)
    func portland() throws {
        let f = try SearchFixture.portland()
        let c = f.composite
        for q in ["9500 NE CASCADES PKWY", "NE CASCADES PKWY 9500", "9500 ne casc", "linden", "lindne", "dougl", "douglas fir", "cascdes pkwy"] {
            let s = try c.suggest(q, max: 5)
            let g = try c.geocode(q, max: 3)
            print("Q \(q) -> S:", s.map { "\($0.text) [\($0.participant) \($0.score) x\($0.count)]" }, "G:", g.map { "\($0.label) \($0.score) \($0.longitude ?? 0),\($0.latitude ?? 0)" })
        }
        let r = try c.reverseGeocode(longitude: -122.5661, latitude: 45.5755, maxDistance: 200)
        print("R", r?.label ?? "-", r?.distance ?? -1)
    }
}
