import Testing
import MapbookPortalAPI

/// Paging search results with `start`, `num` and `nextStart`.
@Suite struct SearchPageTests {
    static let ids = (1...250).map { "item\($0)" }

    @Test func defaultsAndCap() throws {
        #expect(try SearchPage(start: nil, num: nil) == SearchPage(start: 1, num: 10))
        #expect(try SearchPage(start: "", num: "") == SearchPage(start: 1, num: 10))
        #expect(try SearchPage(start: "1", num: "1000").num == 100)
        let page = try SearchPage(start: "1", num: "1000").apply(Self.ids)
        #expect(page.results.count == 100)
        #expect(page.total == 250)
        #expect(page.nextStart == 101)
    }

    /// Following nextStart visits every result once, in order, and ends with -1.
    @Test func nextStartWalksEveryResultOnce() throws {
        var start = 1
        var seen: [String] = []
        var pages = 0
        while start != -1 {
            let page = try SearchPage(start: String(start), num: "30").apply(Self.ids)
            #expect(page.start == start)
            #expect(page.num == 30)
            seen += page.results
            start = page.nextStart
            pages += 1
        }
        #expect(seen == Self.ids)
        #expect(pages == 9)
        // A page that ends exactly at the last result has no next page.
        #expect(try SearchPage(start: "221", num: "30").apply(Self.ids).nextStart == -1)
        #expect(try SearchPage(start: "220", num: "30").apply(Self.ids).nextStart == 250)
    }

    @Test func pastTheEndAndCountOnly() throws {
        let past = try SearchPage(start: "251", num: "10").apply(Self.ids)
        #expect(past.results.isEmpty)
        #expect(past.total == 250)
        #expect(past.nextStart == -1)
        // -1 is the nextStart of a last page: a client that sends it back gets an empty page.
        #expect(try SearchPage(start: "-1", num: "10").apply(Self.ids).results.isEmpty)
        let count = try SearchPage(start: "1", num: "0").apply(Self.ids)
        #expect(count.results.isEmpty)
        #expect(count.total == 250)
        #expect(count.nextStart == -1)
        #expect(try SearchPage(start: "1", num: "10").apply([String]()).nextStart == -1)
    }

    @Test(arguments: [("0", "10"), ("-5", "10"), ("abc", "10"), ("1", "-1"), ("1", "ten"), ("99999999999999999999999", "10")])
    func badParametersAreRefused(start: String, num: String) {
        #expect(throws: PortalError.self) { try SearchPage(start: start, num: num) }
    }

    /// The paging loop of the arcgis client's `_search` (gis/_impl/_search.py): it adds each
    /// response's `num` to its count and follows `nextStart`. It must stop with every result
    /// once, for a few results or for "all" (max_items -1).
    @Test(arguments: [(25, 3), (25, 250), (100, 250), (-1, 250), (-1, 0), (10, 0)])
    func theArcGISClientsLoopGetsEachResultOnce(maxItems: Int, total: Int) throws {
        let all = Array(Self.ids.prefix(total))
        func post(_ start: Int, _ num: Int) throws -> (results: ArraySlice<String>, total: Int, start: Int, num: Int, nextStart: Int) {
            try SearchPage(start: String(start), num: String(num)).apply(all)
        }
        let pageSize = maxItems > 0 && maxItems < 100 ? min(maxItems, 100) : 100
        var response = try post(1, pageSize)
        var results = Array(response.results)
        var count = response.num
        var nextStart = response.nextStart
        var requests = 1
        while (count < maxItems && maxItems > 0) || (nextStart > 0 && maxItems == -1) {
            if results.count >= maxItems && maxItems != -1 { break }
            response = try post(response.nextStart, pageSize)
            requests += 1
            results += response.results
            count += response.num
            nextStart = response.nextStart
            if response.results.isEmpty { break }
            try #require(requests < 100)
        }
        if maxItems != -1 && results.count > maxItems { results = Array(results.prefix(maxItems)) }
        let expected = maxItems == -1 ? all : Array(all.prefix(maxItems))
        #expect(results == expected)
    }
}
