import MapbookTestSupport
import Testing
@testable import MapbookSearch

/// First hits that a field user would expect, on real data.
@Suite(Fixtures.required) struct RealDataSearchTests {
    func first(_ c: CompositeLocator, _ q: String, near: (Double, Double)? = nil) throws -> GeocodeCandidate? {
        try c.geocode(q, near: near.map { (longitude: $0.0, latitude: $0.1) }, max: 5).first
    }

    @Test func portlandAddresses() throws {
        let c = try SearchFixture.portland().composite
        // Exact, any word order, typed prefix, a typo, and case/spacing.
        for q in ["9500 NE CASCADES PKWY", "NE CASCADES PKWY 9500", "9500 ne casc", "9500 NE CASACDES PKWY", "  9500   ne cascades pkwy "] {
            let hit = try first(c, q)
            #expect(hit?.matchedText == "9500 NE CASCADES PKWY", "\(q)")
            #expect(hit?.participant == "Addresses")
        }
        #expect(try first(c, "9500 NE CASCADES PKWY")?.matchKind == .exact)
        #expect(try first(c, "9500 ne casc")?.matchKind == .prefix)
        #expect(try first(c, "9500 NE CASACDES PKWY")?.matchKind == .fuzzy)
        // Exact first: the score orders exact, prefix, typo.
        let scores = try ["9500 NE CASCADES PKWY", "9500 ne casc", "9500 NE CASACDES PKWY"].map { try first(c, $0)?.score ?? 0 }
        #expect(scores[0] > scores[1] && scores[1] > scores[2])
        // House numbers are exact: 9501 is not 9500.
        #expect(try c.geocode("9501 NE CASCADES PKWY", max: 5).allSatisfy { !$0.matchedText.hasPrefix("9500 ") })
    }

    @Test func portlandSpeciesSuggestAndNearest() throws {
        let c = try SearchFixture.portland().composite
        let s = try c.suggest("lind", max: 5)
        #expect(s.first?.text == "linden")
        #expect(s.first?.count == 70)
        // Each text is suggested once.
        #expect(Set(s.map(\.text)).count == s.count)
        #expect(try c.suggest("lindne", max: 5).first?.text == "linden")
        // Choosing the suggestion lists its trees, nearest to the preferred place first.
        let here = (longitude: -122.5571, latitude: 45.5720)
        let trees = try c.geocode(suggestion: s[0], near: here, max: 10)
        #expect(trees.count == 10)
        #expect(trees.allSatisfy { $0.matchedText == "linden" })
        let distances = trees.compactMap(\.distance)
        #expect(distances == distances.sorted())
        #expect(distances.first ?? 1e9 < 50)
        // Output attributes come with the result.
        #expect(trees.first?.attributes["scientific"]?.stringValue?.isEmpty == false)
    }

    /// A locator on the trees' ids, given no display or output fields: a hit on the id shows
    /// the tree's common name beside it and carries every field of the tree.
    @Test func aHitOnACodeShowsTheNameAndTheFeaturesFields() throws {
        let f = try SearchFixture.portland()
        try f.addLocator(LocatorSpec(name: "Tree IDs", layer: "trees", field: "cartodb_id"))
        let hit = try #require(try f.composite.geocode("213107").first)
        #expect(hit.participant == "Tree IDs" && hit.matchedText == "213107" && hit.label == "linden", "\(hit)")
        #expect(hit.attributes.string("condition") == "Fair" && hit.attributes.string("address") == "9500 NE CASCADES PKWY", "\(hit.attributes)")
        #expect(LocatorDefinition.defaultDisplayField(searchField: "address", fields: ["address", "common"]) == nil)
        #expect(LocatorDefinition.defaultDisplayField(searchField: "FACILITYID", fields: ["FACILITYID", "VALVETYPE", "SITE_NAME"]) == "SITE_NAME")
        #expect(LocatorDefinition.defaultDisplayField(searchField: "IATA", fields: ["IATA", "ICAO"]) == nil)
    }

    /// "What is here" at a tree: the tree itself, at 0 m; a little off it, the features in
    /// range nearest first; far from everything, nothing.
    @Test func portlandReverseGeocodeAnswersTheTreeItself() throws {
        let c = try SearchFixture.portland().composite
        let tree = try #require(try first(c, "9500 NE CASCADES PKWY"))
        let here = try c.reverseGeocode(longitude: tree.longitude!, latitude: tree.latitude!, maxDistance: 50)
        #expect(here.count == 1 && here.first?.matchedText == "9500 NE CASCADES PKWY" && here.first?.relation == .near, "\(here)")
        #expect((here.first?.distance ?? 99) < 0.01)
        let near = try c.reverseGeocode(longitude: tree.longitude! + 0.00001, latitude: tree.latitude!, maxDistance: 50, max: 3)
        #expect(near.first?.matchedText == "9500 NE CASCADES PKWY")
        let distances = near.compactMap(\.distance)
        #expect(near.count == 3 && distances == distances.sorted() && (distances.first ?? 99) < 2, "\(near)")
        #expect(try c.reverseGeocode(longitude: 0, latitude: 0, maxDistance: 100).isEmpty)
    }

    /// At a city: the city (a point) first, then the country it is in as context, never the
    /// country first though the place is inside it (distance 0). Inside a country with no
    /// place in range: the country answers alone.
    @Test func naturalEarthReverseGeocodeGivesThePlaceThenItsCountry() throws {
        let c = try SearchFixture.naturalEarth().composite
        let paris = try #require(try first(c, "Paris"))
        let here = try c.reverseGeocode(longitude: paris.longitude!, latitude: paris.latitude!, maxDistance: 1000)
        #expect(here.map(\.matchedText) == ["Paris", "France"], "\(here.map(\.matchedText))")
        #expect(here.map(\.relation) == [.near, .within] && here.map(\.participant) == ["Places", "Countries"])
        // The middle of the Sahara in Algeria, with no place within 1 km.
        let desert = try c.reverseGeocode(longitude: 2.5, latitude: 26.0, maxDistance: 1000)
        #expect(desert.map(\.matchedText) == ["Algeria"] && desert.first?.relation == .within, "\(desert.map(\.matchedText))")
    }

    @Test func naturalEarthPlacesWithAndWithoutAccents() throws {
        let c = try SearchFixture.naturalEarth().composite
        let cases = [
            ("Sao Paulo", "São Paulo"), ("são paulo", "São Paulo"), ("Reykjavik", "Reykjavík"), ("Kobenhavn", "København"),
            ("Chisinau", "Chișinău"), ("Urumqi", "Ürümqi"), ("Osaka", "Ōsaka"), ("Asuncion", "Asunción"),
            // Typos: one in 4-7 letters, two in 8 or more.
            ("Kinshsa", "Kinshasa"), ("Bgota", "Bogota"), ("Montevidoe", "Montevideo"), ("Jhoannesburg", "Johannesburg"),
            // Prefixes while typing.
            ("Reykj", "Reykjavík"), ("Ouagad", "Ouagadougou"),
        ]
        for (q, want) in cases {
            let got = try first(c, q)?.label
            #expect(got == want, "\(q) -> \(String(describing: got))")
        }
        // Three letters allow no typo.
        #expect(try c.geocode("Rme", max: 5).allSatisfy { $0.label != "Rome" })
    }

    @Test func rankBreaksTiesAndTheCompositeSaysWhoMatched() throws {
        let c = try SearchFixture.naturalEarth().composite
        // "San" is a word of several capitals: the most populous comes first.
        let sans = try c.geocode("San", max: 10).filter { $0.participant == "Places" && $0.score == 98 - 1 }
        let populations = sans.compactMap { $0.attributes["POP_MAX"]?.doubleValue }
        #expect(populations.count >= 3)
        #expect(populations == populations.sorted(by: >))
        // A name that is both a country and a city: equal scores, the earlier participant first.
        let both = try c.geocode("Guatemala", max: 5)
        #expect(both.prefix(2).map(\.participant) == ["Places", "Countries"])
        #expect(both.first?.score == both.dropFirst().first?.score)
        // Country polygons are placed inside themselves.
        let chile = try #require(try first(c, "Chile"))
        #expect(chile.participant == "Countries")
        #expect((-76 ... -66).contains(chile.longitude ?? 0) && (-56 ... -17).contains(chile.latitude ?? 0))
    }

    @Test func tigerStreetNames() throws {
        let c = try SearchFixture.tigerRoads().composite
        #expect(try first(c, "Silver Meteor Ct")?.matchedText == "Silver Meteor Ct")
        #expect(try first(c, "meteor silver")?.matchedText == "Silver Meteor Ct")
        #expect(try first(c, "Silvr Meteor Ct")?.matchedText == "Silver Meteor Ct")
        #expect(try first(c, "Russia Branch Vi")?.matchedText == "Russia Branch View Dr")
        let suggestions = try c.suggest("Man", max: 10)
        #expect(suggestions.contains { $0.text == "Manassas Dr" && $0.count == 9 })
        // A line is placed on itself: reverse geocoding at its label point finds it.
        let road = try #require(try first(c, "Handerson Pl"))
        let back = try c.reverseGeocode(longitude: road.longitude!, latitude: road.latitude!, maxDistance: 5)
        #expect(back.first?.matchedText == "Handerson Pl")
        #expect((back.first?.distance ?? 9) < 0.5)
    }

    @Test func idsMatchWithOrWithoutTheirPrefixAndDigitsAreExact() throws {
        let c = try SearchFixture.assetIDs().composite
        #expect(try first(c, "HYD-00123")?.matchedText == "HYD-00123")
        #expect(try first(c, "hyd 00123")?.matchedText == "HYD-00123")
        #expect(try first(c, "00123")?.matchedText == "HYD-00123")
        // 00124 is a valve, never the hydrant next to it; HYD-00124 does not exist.
        #expect(try c.geocode("00124", max: 10).map(\.matchedText) == ["VLV-00124"])
        #expect(try c.geocode("HYD-00124", max: 10).isEmpty)
        #expect(try c.geocode("123", max: 10).isEmpty)
        // Typing an ID: the unfinished number is a prefix.
        let typing = try c.suggest("HYD-0012", max: 20).map(\.text)
        #expect(typing.contains("HYD-00123") && !typing.contains("HYD-00124") && typing.count == 9)
        #expect(try c.suggest("HYD-0012 ", max: 20).isEmpty)
        // One and two typed digits read the stored union of the 499 hydrant numbers under
        // them (more than 256 terms): the same answer as walking the terms.
        #expect(try c.suggest("HYD-0", max: 1000).count == 499)
        #expect(try c.suggest("HYD-00", max: 1000).count == 499)
        #expect(try c.suggest("HYD-00", max: 3).map(\.text) == ["HYD-00001", "HYD-00002", "HYD-00003"])
        #expect(try c.suggest("VLV-00", max: 1000).count == 101)
    }
}
