import MapbookTestSupport
import Testing
import MapbookPortalAPI

/// The search `q` grammar against a small portal: four Mobile Map Packages in two
/// organizations, a Web Map, a Web Mapping Application, a Map Package with no organization and
/// a Vector Tile Package, with different owners, access, groups and dates.
@Suite struct ItemQueryTests {
    static let naperville = "0123456789abcdef"
    static let county = "fedcba9876543210"
    static let fieldCrews = "f1e1d0c0b0a090807060504030201000"

    static let items: [PortalItem] = [
        PortalItem(
            id: "a0000000000000000000000000000001", owner: "alice", orgId: naperville, created: 1_736_467_200_000,
            modified: 1_748_736_000_000, title: "Naperville Water", type: "Mobile Map Package",
            typeKeywords: ["Mobile Map Package", "mmpk", "Map", "Offline"], name: "NapervilleWater.mmpk",
            description: "<p>Mains, laterals &amp; valves.</p>", snippet: "Water mains, laterals and valves for field crews",
            tags: ["water", "811", "utilities"], access: .org, size: 48_000_000, numViews: 120),
        PortalItem(
            id: "a0000000000000000000000000000002", owner: "bob", orgId: naperville, created: 1_738_368_000_000,
            modified: 1_740_787_200_000, title: "Naperville Sewer", type: "Mobile Map Package",
            typeKeywords: ["Mobile Map Package", "mmpk"], snippet: "Sanitary sewer network", tags: ["sewer", "utilities"],
            access: .shared, size: 30_000_000, numViews: 40),
        PortalItem(
            id: "a0000000000000000000000000000003", owner: "carol", orgId: county, created: 1_714_521_600_000,
            modified: 1_725_148_800_000, title: "Portland Street Trees", type: "Mobile Map Package",
            typeKeywords: ["Mobile Map Package"], snippet: "Street tree inventory by neighbourhood",
            tags: ["trees", "urban forestry"], access: .public, size: 80_000_000, numViews: 900),
        PortalItem(
            id: "a0000000000000000000000000000004", owner: "dave", orgId: county, created: 1_677_628_800_000,
            modified: 1_677_628_800_000, title: "Lake County Water", type: "Mobile Map Package",
            snippet: "Hydrants and water mains", tags: ["water", "hydrants"], access: .public, size: 12_000_000, numViews: 5),
        PortalItem(
            id: "a0000000000000000000000000000005", owner: "alice", orgId: naperville, created: 1_743_465_600_000,
            modified: 1_748_736_000_000, title: "Water Main Breaks", type: "Web Map",
            typeKeywords: ["ArcGIS Online", "Explorer Web Map", "Map", "Online Map", "Web Map"],
            snippet: "Main breaks reported since 2020", tags: ["water", "incidents"], access: .public, numViews: 300),
        // A Web AppBuilder app carries the "Web Map" type keyword: `type:"web map"` must still miss it.
        PortalItem(
            id: "a0000000000000000000000000000006", owner: "alice", orgId: naperville, created: 1_746_057_600_000,
            modified: 1_746_144_000_000, title: "Field Crew App", type: "Web Mapping Application",
            typeKeywords: ["JavaScript", "Map", "Mapping Site", "Online Map", "Web AppBuilder", "Web Map"],
            snippet: "Find valves and hydrants in the field", tags: ["water", "app"], access: .org, numViews: 60),
        // Created on 3 August 2009, modified exactly at the end of the search reference's example range.
        PortalItem(
            id: "a0000000000000000000000000000007", owner: "esri_data", created: 1_249_300_000_000, modified: 1_249_548_000_000,
            title: "World Countries", type: "Map Package", tags: ["boundaries", "countries"], access: .public, numViews: 7000),
        PortalItem(
            id: "a0000000000000000000000000000008", owner: "bob", orgId: naperville, created: 1_736_899_200_000,
            modified: 1_736_899_200_000, title: "Naperville Basemap", type: "Vector Tile Package", tags: ["basemap"],
            access: .private, size: 250_000_000),
    ]

    /// The groups each item is shared with.
    static let groups: [String: [String]] = [
        "a0000000000000000000000000000001": [fieldCrews], "a0000000000000000000000000000002": [fieldCrews],
    ]

    /// The titles of the items `q` finds.
    func found(_ q: String) throws -> Set<String> {
        let query = try ItemQuery.parse(q)
        return Set(Self.items.filter { query.matches($0, groups: Self.groups[$0.id] ?? []) }.map(\.title))
    }

    static let waterItems: Set = ["Naperville Water", "Lake County Water", "Water Main Breaks", "Field Crew App"]

    // MARK: - What the arcgis Python client sends

    /// `gis.content.search(query="water", item_type="Mobile Map Package", max_items=25)`: the
    /// client lowercases the type, joins it with " AND " and appends the org id after a space
    /// (arcgis 2.4.4, gis/__init__.py, ContentManager.search).
    @Test func clientContentSearchForMobileMapPackagesStaysInTheOrg() throws {
        #expect(try found(#"water AND  (type:"mobile map package") accountid:0123456789abcdef"#) == ["Naperville Water"])
        // outside_org=True leaves the org filter off.
        #expect(try found(#"water AND  (type:"mobile map package")"#) == ["Naperville Water", "Lake County Water"])
    }

    /// `gis.content.search(query="owner:alice")`.
    @Test func clientOwnerSearch() throws {
        #expect(try found("owner:alice accountid:0123456789abcdef") == ["Naperville Water", "Water Main Breaks", "Field Crew App"])
    }

    /// `item_type="Web Map"` adds an exclusion of Web Mapping Applications; with an empty query no " AND ".
    @Test func clientWebMapSearchExcludesApps() throws {
        #expect(try found(#" (type:"web map" NOT type:"web mapping application") accountid:0123456789abcdef"#) == ["Water Main Breaks"])
        #expect(try found(#"water AND  (type:"web mapping application") accountid:0123456789abcdef"#) == ["Field Crew App"])
    }

    /// Queries written in the client's docs and modules.
    @Test func queriesFromTheClientsDocsAndModules() throws {
        // advanced_search docs: clauses separated by a blank.
        #expect(try found("owner:alice type:map") == ["Naperville Water", "Water Main Breaks"])
        // UserManager docs: a field applied to a group.
        #expect(try found("owner:alice AND type:(Application)") == ["Field Crew App"])
        // The clone module's lookup by title and owner.
        #expect(try found(#"title:"Naperville Water" AND owner:alice"#) == ["Naperville Water"])
        // Item.favorite: a quoted group and id.
        #expect(try found(#"(group:"\#(Self.fieldCrews)" AND id:"a0000000000000000000000000000002")"#) == ["Naperville Sewer"])
        // Workforce: a space after the colon.
        #expect(try found(#"name: "NapervilleWater.mmpk""#) == ["Naperville Water"])
        // Item docs: a lone `*` after a word.
        #expect(try found("Naperville *") == ["Naperville Water", "Naperville Sewer", "Naperville Basemap"])
    }

    // MARK: - Operators

    @Test func adjacentTermsAreAllRequired() throws {
        #expect(try found("water mains") == ["Naperville Water", "Lake County Water"])
        #expect(try found("water trees").isEmpty)
        #expect(try found("water OR trees") == Self.waterItems.union(["Portland Street Trees"]))
    }

    /// Only capitals are operators: a lower-case `and` is a word that must be found too.
    @Test func lowerCaseAndIsAWord() throws {
        #expect(try found("trees AND forestry") == ["Portland Street Trees"])
        #expect(try found("trees and forestry").isEmpty)
        #expect(try found("mains and valves") == ["Naperville Water"])
    }

    @Test func exclusionsAndRequiredTerms() throws {
        #expect(try found(#"water -type:"Web Mapping Application""#) == ["Naperville Water", "Lake County Water", "Water Main Breaks"])
        #expect(try found("water NOT owner:alice") == ["Lake County Water"])
        #expect(try found("+water +hydrants") == ["Lake County Water", "Field Crew App"])
        #expect(try found("-water").count == Self.items.count - Self.waterItems.count)
        #expect(try found("NOT NOT water") == Self.waterItems)
    }

    @Test func parenthesesGroupAndOrBindsLoosest() throws {
        #expect(try found("(trees OR sewer) AND access:public") == ["Portland Street Trees"])
        #expect(try found("trees OR sewer AND access:public") == ["Portland Street Trees"])
        #expect(try found("sewer OR trees AND access:shared") == ["Naperville Sewer"])
        #expect(try found("title:(naperville -sewer)") == ["Naperville Water", "Naperville Basemap"])
    }

    @Test func operatorPrecedenceAsParsed() throws {
        let a = ItemQuery.term(field: nil, value: "a", phrase: false, prefix: false)
        let b = ItemQuery.term(field: nil, value: "b", phrase: false, prefix: false)
        let c = ItemQuery.term(field: nil, value: "c", phrase: false, prefix: false)
        #expect(try ItemQuery.parse("a b") == .and(a, b))
        #expect(try ItemQuery.parse("a OR b c") == .or(a, .and(b, c)))
        #expect(try ItemQuery.parse("a -b") == .and(a, .not(b)))
        #expect(try ItemQuery.parse("a NOT b OR c") == .or(.and(a, .not(b)), c))
        #expect(try ItemQuery.parse("+a") == a)
        #expect(try ItemQuery.parse("") == .all)
        #expect(try ItemQuery.parse(" \t\n ") == .all)
        #expect(try ItemQuery.parse("accountid:ABC") == .term(field: "orgid", value: "ABC", phrase: false, prefix: false))
        #expect(try ItemQuery.parse("TITLE:wat*") == .term(field: "title", value: "wat", phrase: false, prefix: true))
        #expect(
            try ItemQuery.parse(#"-type:"Web Map""#) == .not(.term(field: "type", value: "Web Map", phrase: true, prefix: false)))
    }

    // MARK: - Text fields

    @Test func typePhrasesMatchOnlyThatType() throws {
        let packages: Set = ["Naperville Water", "Naperville Sewer", "Portland Street Trees", "Lake County Water"]
        #expect(try found(#"type:"Mobile Map Package""#) == packages)
        #expect(try found(#"TYPE:"mobile map package""#) == packages)
        // Its words in another order are not the type.
        #expect(try found(#"type:"Package Map Mobile""#).isEmpty)
        // A Web Map's phrase is not in "Web Mapping Application", though the app has the Web Map keyword.
        #expect(try found(#"type:"Web Map""#) == ["Water Main Breaks"])
        #expect(try found(#"typekeywords:"Web Map""#) == ["Water Main Breaks", "Field Crew App"])
        #expect(try found("typeKeywords:mmpk") == ["Naperville Water", "Naperville Sewer"])
    }

    @Test func phrasesMatchWordsInARow() throws {
        #expect(try found(#""naperville water""#) == ["Naperville Water"])
        #expect(try found(#""water naperville""#).isEmpty)
        #expect(try found(#"title:"Naperville Water""#) == ["Naperville Water"])
        #expect(try found(#"snippet:"water mains""#) == ["Naperville Water", "Lake County Water"])
    }

    @Test func wildcards() throws {
        let water: Set = ["Naperville Water", "Lake County Water", "Water Main Breaks"]
        #expect(try found("title:wat*") == water)
        #expect(try found("title:WAT*") == water)
        #expect(try found("title:w?ter") == water)
        #expect(try found("title:w*r") == water)
        #expect(try found("title:wat").isEmpty)
        #expect(try found("tags:urb*") == ["Portland Street Trees"])
        // In a phrase `*` is punctuation, not a wildcard.
        #expect(try found(#"title:"wat*""#).isEmpty)
    }

    /// A tag equals the value or holds the phrase; a phrase never runs from one tag into the next.
    @Test func tagsMatchWithinOneTag() throws {
        #expect(try found(#"tags:"urban forestry""#) == ["Portland Street Trees"])
        #expect(try found("tags:forestry") == ["Portland Street Trees"])
        #expect(try found("tags:811") == ["Naperville Water"])
        #expect(try found(#"tags:"water 811""#).isEmpty)
    }

    /// The search reference's default fields include type and type keywords.
    @Test func bareWordsSearchTheDefaultFields() throws {
        #expect(try found("hydrants") == ["Lake County Water", "Field Crew App"])
        #expect(try found("forestry") == ["Portland Street Trees"])
        #expect(try found("package") == [
            "Naperville Water", "Naperville Sewer", "Portland Street Trees", "Lake County Water", "World Countries", "Naperville Basemap",
        ])
        // Owner is not a default field.
        #expect(try found("alice").isEmpty)
    }

    /// Markup in descriptions is not text: `<p>` is not the word "p".
    @Test func descriptionsAreSearchedWithoutMarkup() throws {
        #expect(try found("description:valves") == ["Naperville Water"])
        #expect(try found("description:p").isEmpty)
        #expect(try found("description:amp").isEmpty)
    }

    // MARK: - Exact fields

    @Test func exactFieldsCompareWholeValuesIgnoringCase() throws {
        let alices: Set = ["Naperville Water", "Water Main Breaks", "Field Crew App"]
        #expect(try found("owner:ALICE") == alices)
        #expect(try found("owner:ali").isEmpty)
        #expect(try found("owner:ali*") == alices)
        #expect(try found("id:A0000000000000000000000000000007") == ["World Countries"])
        #expect(try found("access:public") == ["Portland Street Trees", "Lake County Water", "Water Main Breaks", "World Countries"])
        #expect(try found("orgid:FEDCBA9876543210") == ["Portland Street Trees", "Lake County Water"])
        #expect(try found("accountid:fedcba9876543210") == ["Portland Street Trees", "Lake County Water"])
        #expect(try found("group:\(Self.fieldCrews.uppercased())") == ["Naperville Water", "Naperville Sewer"])
        // The item without an organization is in no org.
        #expect(try found("orgid:*").count == Self.items.count - 1)
    }

    /// As the service's index answers a field it has no values for: no items.
    @Test func unknownFieldsMatchNothing() throws {
        #expect(try found("color:blue").isEmpty)
        #expect(try found("spatialreference:102100").isEmpty)
        #expect(try found("water OR color:blue") == Self.waterItems)
        #expect(try found("Naperville: Water").isEmpty)
    }

    // MARK: - Ranges

    @Test func dateRangesInZeroPaddedEpochMilliseconds() throws {
        // The search reference's example: 1 August 2009 to 6 August 2009 08:40.
        #expect(try found("created:[0000001249084800000 TO 0000001249548000000]") == ["World Countries"])
        #expect(try found("uploaded: [0000001249084800000 TO 0000001249548000000]") == ["World Countries"])
        // Modified exactly at the upper bound: in an inclusive range, out of an exclusive one.
        #expect(try found("modified:[0000001249084800000 TO 0000001249548000000]") == ["World Countries"])
        #expect(try found("modified:{0000001249084800000 TO 0000001249548000000}").isEmpty)
        #expect(try found("created:[* TO 0000001700000000000]") == ["World Countries", "Lake County Water"])
        #expect(try found("created:[1746057600000 TO *]") == ["Field Crew App"])
        #expect(try found("created:{1746057600000 TO *}").isEmpty)
        #expect(try found("created:1249300000000") == ["World Countries"])
    }

    @Test func textRangesCompareLexicographically() throws {
        #expect(try found("owner:{alice TO carol}") == ["Naperville Sewer", "Naperville Basemap"])
        #expect(try found("owner:[alice TO carol]").count == 6)
        #expect(try found("title:[p TO q]") == ["Portland Street Trees"])
        #expect(try ItemQuery.parse("title:[a TO *]") == .range(field: "title", lower: "a", upper: nil, inclusive: true))
    }

    // MARK: - Errors

    @Test(arguments: [
        ("(water", 1), ("water)", 6), (#"type:"Mobile Map"#, 6), ("created:[1 TO 2", 9), ("title:", 1), ("AND water", 1),
        ("water OR", 7), ("water AND NOT", 11), ("created:yesterday", 1), ("created:[1 TO 2}", 16), ("()", 1),
        ("[a TO b]", 1), ("created:[1 2]", 12), ("modified:[yesterday TO *]", 10),
    ])
    func badQueriesNameThePosition(q: String, position: Int) {
        do {
            let parsed = try ItemQuery.parse(q)
            Issue.record("'\(q)' parsed as \(parsed)")
        } catch {
            #expect(error.code == 400)
            #expect(error.message.contains("at position \(position):"), "\(error.message)")
        }
    }

    @Test func longAndDeepQueriesAreRefused() throws {
        #expect(throws: PortalError.self) { try ItemQuery.parse(String(repeating: "a", count: ItemQuery.maximumLength + 1)) }
        let deepest = ItemQuery.maximumDepth
        _ = try ItemQuery.parse(String(repeating: "(", count: deepest) + "water" + String(repeating: ")", count: deepest))
        #expect(throws: PortalError.self) {
            try ItemQuery.parse(String(repeating: "(", count: deepest + 1) + "water" + String(repeating: ")", count: deepest + 1))
        }
        #expect(throws: PortalError.self) { try ItemQuery.parse(String(repeating: "NOT ", count: deepest + 1) + "water") }
        #expect(throws: PortalError.self) { try ItemQuery.parse(String(repeating: "-", count: deepest + 1) + "water") }
        #expect(throws: PortalError.self) { try ItemQuery.parse(String(repeating: "title: ", count: deepest + 1) + "water") }
        // As many terms as fit in the limit still parse and match.
        let many = String(repeating: "water ", count: ItemQuery.maximumLength / 6)
        #expect(try found(many) == Self.waterItems)
        #expect(try found(String(repeating: "trees OR ", count: 400) + "sewer") == ["Portland Street Trees", "Naperville Sewer"])
    }

    /// Punctuation alone has no words to search: dropped from its clause.
    @Test func termsWithoutWordsAreDropped() throws {
        #expect(try found("water &&") == Self.waterItems)
        #expect(try found("water OR !!") == Self.waterItems)
        #expect(try found("&&").isEmpty)
        #expect(try found("water^5 OR trees^0.5") == Self.waterItems.union(["Portland Street Trees"]))
        #expect(try found("*:*").count == Self.items.count)
        #expect(try found("*").count == Self.items.count)
    }

    /// Thousands of queries of syntax fragments and random scalars: each parses and matches, or
    /// is a bad request naming where; none crashes or hangs.
    @Test func randomQueriesParseOrFailCleanly() throws {
        let fragments = [
            "water", "Naperville", " ", " ", "\"", "(", ")", "AND", "OR", "NOT", "and", "-", "+", "*", "?", "\\", "^2", ":", "title:",
            "type:", "owner:", "created:", "tags:", "[", "]", "{", "}", " TO ", "0000001249084800000", "\"Mobile Map Package\"",
            "accountid:0123456789abcdef", "é", "\u{301}", "🙂", "\u{0}", "\u{202E}", "&&", "||", "!", "\t", "\n", "~2", ",",
        ]
        var random = SplitMix64(seed: 20_261_122)
        var parsed = 0
        var refused = 0
        for round in 0..<4000 {
            var q = ""
            let pieces = Int(random.next() % 24)
            for _ in 0..<pieces {
                if random.next() % 5 == 0 {
                    // Any scalar, including unassigned planes and controls.
                    let value = UInt32(truncatingIfNeeded: random.next() % 0x11_0000)
                    q.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                } else {
                    q += fragments[Int(random.next() % UInt64(fragments.count))]
                }
            }
            if round % 500 == 0 { q += String(repeating: "(", count: 70) }
            do {
                let query = try ItemQuery.parse(q)
                parsed += 1
                let hits = Self.items.filter { query.matches($0, groups: Self.groups[$0.id] ?? []) }
                // The same query, doubled with OR, finds the same items.
                if let doubled = try? ItemQuery.parse("(\(q)) OR (\(q))") {
                    let again = Self.items.filter { doubled.matches($0, groups: Self.groups[$0.id] ?? []) }
                    #expect(again.map(\.id) == hits.map(\.id), "q: \(q)")
                }
            } catch {
                refused += 1
                #expect(error.code == 400)
                #expect(error.message.contains("at position "), "q: \(q) -> \(error.message)")
            }
        }
        // Both kinds were exercised.
        #expect(parsed > 500)
        #expect(refused > 500)
    }
}
