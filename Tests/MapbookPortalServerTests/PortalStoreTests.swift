import Foundation
import MapbookPortalAPI
import MapbookTestSupport
import Testing

@testable import MapbookPortalServer

/// The stores against each other and against the plain meaning of a search: both keep what
/// they are given the same way, and both search as testing every item would.
@Suite struct PortalStoreTests {
    func stores(_ dir: String) async throws -> [any PortalStore] {
        [try SQLitePortalStore(path: dir + "/portal.sqlite"), try await PostgresPortalStore.connect(try PostgresServer.database(), patience: .seconds(60))]
    }

    /// 300 random items (every access, two owners, two groups, some not committed; titles,
    /// tags, snippets, descriptions with markup, type keywords, file names and numbers, some
    /// words not in ASCII) searched by every kind of viewer, with every form of `q` the grammar
    /// has, orders and pages: each store (its word index; PostgreSQL's through its change log)
    /// gives the pages that testing every item with `ItemQuery.matches` gives.
    @Test(PostgresServer.required)
    func searchesGiveTheSameAnswerOnBothStores() async throws {
        try await withTemporaryDirectory { dir in
            let stores = try await stores(dir)
            var records: [String: ItemRecord] = [:]
            var rng = SplitMix64(seed: 20261126)
            let accesses: [ItemAccess] = [.private, .shared, .org, .public]
            let words = ["water", "sewer", "trees", "parcels", "roads", "café", "straße", "Δέντρα", "Water-Mains", "w4ter"]
            func word() -> String { words[Int(rng.next() % UInt64(words.count))] }
            for i in 0..<300 {
                let owner = ["alice", "Bob", "carol.smith"][Int(rng.next() % 3)]
                let groups = ["g1", "g2"].filter { _ in rng.next() % 3 == 0 }
                let item = PortalItem(
                    id: String(format: "%032x", i), owner: owner, orgId: rng.next() % 5 == 0 ? nil : "Org1", created: Int64(i), modified: Int64(i * 7 % 300),
                    title: "\(word()) \(word()) \(i)", type: rng.next() % 4 == 0 ? "Web Map" : "Mobile Map Package",
                    typeKeywords: rng.next() % 2 == 0 ? ["Offline", "Map Package"] : [], name: rng.next() % 3 == 0 ? nil : "\(word())_\(i).mmpk",
                    description: rng.next() % 2 == 0 ? "<p>The <b>\(word())</b> district&amp;\(word())</p>" : nil,
                    snippet: rng.next() % 2 == 0 ? "tree inventory of \(word())" : nil, tags: [word(), word()],
                    access: accesses[Int(rng.next() % 4)], size: Int64(rng.next() % 1000), numViews: Int(rng.next() % 5))
                let record = ItemRecord(item: item, status: rng.next() % 10 == 0 ? .uploading : .ready, groups: groups, sha256: nil)
                for store in stores { try await store.saveItem(record) }
                records[item.id] = record
            }
            let viewers = [
                ItemViewer(username: nil, isAdmin: false, groups: []), ItemViewer(username: "alice", isAdmin: false, groups: []),
                ItemViewer(username: "bob", isAdmin: false, groups: ["g1"]), ItemViewer(username: "carol", isAdmin: false, groups: ["g1", "g2"]),
                ItemViewer(username: "root", isAdmin: true, groups: []),
            ]
            let queries = [
                "", "*", "water", "Water", "wat*", "w?ter", "wa*r", "w*", "\"water sewer\"", "\"wa*ter\"", "café", "cafe", "straße", "δέντρα", "mains",
                "\"water mains\"", "w4ter", "title:water", "title:wat*", "title:*", "tags:trees OR type:\"Web Map\"", "owner:bob AND NOT title:roads",
                "owner:b*", "owner:c?rol.smith", "owner:carol.smith", "owner:CAROL*", "id:0000000000000000000000000000002a", "id:00000000000000000000000000000*",
                "access:org", "access:public OR access:shared", "group:g1", "orgid:org1", "accountid:org1", "created:[0 TO 100]", "modified:{10 TO 50}",
                "modified:[* TO 20]", "uploaded:[0 TO 50]", "created:42", "numviews:0", "numviews:[2 TO *]", "avgrating:0", "title:[a TO m]",
                "title:{roads TO water}", "owner:[alice TO bob]", "-water", "+water +trees", "(water OR sewer) AND -roads", "NOT (trees OR parcels)",
                "typekeywords:offline", "typekeywords:\"map package\"", "name:mmpk", "name:*", "description:district", "description:p", "description:amp",
                "snippet:\"tree inventory\"", "snippet:inventory AND owner:alice", "unknownfield:x", "title:\"\"", "water*", "!!!", "type:map",
                "type:\"mobile map package\" AND (tags:water OR tags:sewer)",
                // What the SQLite store's index answers without a test, and combinations of it.
                "owner:bob OR group:g1", "water AND owner:Bob", "tags:water", "water OR title:trees", "café OR straße", "group:G2 AND access:shared",
                "owner:alice AND \"water sewer\"", "title:water OR wat*", "id:0000000000000000000000000000002A OR owner:nobody",
            ]
            let sorts = [(nil, nil), ("modified", "desc"), ("title", "asc"), ("owner,title", "desc"), ("size", "asc"), ("numViews,created", "desc"), ("name", "asc"), ("type", "desc")]
            // Each item's document made once: the reference tests every item for every query.
            let documents = records.values.map { ($0, ItemSearchDocument(item: $0.item, groups: $0.groups)) }
            for viewer in viewers {
                for q in queries {
                    let query = try ItemQuery.parse(q)
                    for group in [nil, "g2"] {
                        let matching = documents.filter { record, document in
                            viewer.mayRead(record) && (group.map { record.groups.contains($0) } ?? true) && query.matches(document)
                        }.map(\.0)
                        for (start, num) in [(1, 10), (11, 10), (1, 100), (290, 20), (0, 5), (1, 0)] {
                            let (field, order) = sorts[Int(rng.next() % UInt64(sorts.count))]
                            let search = ItemSearch(
                                query: query, viewer: viewer, group: group, sort: try ItemSort(sortField: field, sortOrder: order),
                                page: SearchPage(start: start, num: num))
                            let expected = Self.expected(search, matching, tested: true)
                            for store in stores {
                                #expect(
                                    try await store.searchItems(search) == expected,
                                    "\(store) \(viewer) q=\(q) group=\(String(describing: group)) start=\(start) num=\(num) sort=\(String(describing: field))")
                            }
                        }
                    }
                }
            }
            // The SQLite store's word index follows renames and deletions.
            for store in stores {
                for i in 0..<30 {
                    guard var record = try await store.item(String(format: "%032x", i)) else { continue }
                    record.item.title = "renamed \(i)"
                    record.item.tags = []
                    try await store.saveItem(record)
                }
                for i in 30..<50 { try await store.deleteItem(String(format: "%032x", i)) }
            }
            for i in 0..<30 {
                records[String(format: "%032x", i)]?.item.title = "renamed \(i)"
                records[String(format: "%032x", i)]?.item.tags = []
            }
            for i in 30..<50 { records[String(format: "%032x", i)] = nil }
            for q in ["water", "renamed", "renamed AND water", "\"water sewer\"", "trees OR renamed", "title:water", "tags:roads"] {
                let search = ItemSearch(query: try ItemQuery.parse(q), viewer: viewers[4], group: nil, sort: try ItemSort(sortField: "title", sortOrder: "asc"), page: SearchPage(start: 1, num: 100))
                let expected = Self.expected(search, Array(records.values))
                for store in stores { #expect(try await store.searchItems(search) == expected, "\(store) after renames and deletions: q=\(q)") }
                if q == "renamed" { #expect(expected.total > 20, "the renamed items are found by their new title") }
            }

            // The comparison means something: the admin finds items for most queries.
            let admin = viewers[4]
            var found = 0
            for q in queries {
                let search = ItemSearch(query: try ItemQuery.parse(q), viewer: admin, group: nil, sort: try ItemSort(sortField: nil, sortOrder: nil), page: SearchPage(start: 1, num: 10))
                if try await stores[1].searchItems(search).total > 0 { found += 1 }
            }
            #expect(found > queries.count * 2 / 3, "\(found) of \(queries.count) queries found something")
        }
    }

    /// Every item, by title, as an administrator sees them.
    static func everything() throws -> ItemSearch {
        ItemSearch(
            query: .all, viewer: ItemViewer(username: "root", isAdmin: true, groups: []), group: nil, sort: try ItemSort(sortField: "title", sortOrder: "asc"),
            page: SearchPage(start: 1, num: 100))
    }

    /// A private web map of alice's, its id made from `i`.
    static func record(_ i: Int, _ title: String) -> ItemRecord {
        ItemRecord(
            item: PortalItem(id: String(format: "%032x", i), owner: "alice", created: 1, modified: 1, title: title, type: "Web Map", access: .private),
            status: .ready, groups: [], sha256: nil)
    }

    /// Two processes on one database: what one writes, the other's next search finds (its
    /// index follows the item change log), with writes from both and searches between them
    /// running at once.
    @Test(PostgresServer.required)
    func aSearchSeesWhatAnotherProcessWrote() async throws {
        let url = try PostgresServer.database()
        let a = try await PostgresPortalStore.connect(url, patience: .seconds(60)), b = try await PostgresPortalStore.connect(url, patience: .seconds(60))
        let everything = try Self.everything(), record = Self.record
        #expect(try await b.searchItems(everything).total == 0)
        try await a.saveItem(record(1, "first"))
        try await a.saveItem(record(2, "second"))
        #expect(try await b.searchItems(everything).items.map(\.title) == ["first", "second"])
        try await a.saveItem(record(1, "renamed"))
        try await a.deleteItem(record(2, "").item.id)
        #expect(try await b.searchItems(everything).items.map(\.title) == ["renamed"])
        // Writes from both processes and searches at both, all at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 10..<60 {
                group.addTask { try await (i % 2 == 0 ? a : b).saveItem(record(i, "item \(i)")) }
                group.addTask { _ = try await (i % 2 == 0 ? b : a).searchItems(everything) }
            }
            try await group.waitForAll()
        }
        for store in [a, b] {
            let titles = try await store.searchItems(everything).items.map(\.title)
            #expect(titles.count == 51 && titles.contains("renamed") && titles.contains("item 59"))
        }
        await a.shutdown()
        await b.shutdown()
    }

    /// Within a request (`PortalReads.since`), reads share one catch-up, yet a request sees
    /// its own writes, and a request that began after another process's write sees that.
    @Test(PostgresServer.required)
    func aRequestSeesItsOwnWritesAndThoseBeforeIt() async throws {
        let url = try PostgresServer.database()
        let a = try await PostgresPortalStore.connect(url, patience: .seconds(60)), b = try await PostgresPortalStore.connect(url, patience: .seconds(60))
        let everything = try Self.everything(), record = Self.record
        try await PortalReads.$since.withValue(.now) { () async throws in
            #expect(try await a.searchItems(everything).total == 0)
            #expect(try await a.setting("organizationName") == nil)
            try await a.saveItem(record(1, "first"))
            try await a.setSetting("organizationName", "Water Department")
            #expect(try await a.searchItems(everything).items.map(\.title) == ["first"], "the request's own write")
            #expect(try await a.setting("organizationName") == "Water Department")
        }
        try await PortalReads.$since.withValue(.now) { () async throws in
            #expect(try await b.searchItems(everything).items.map(\.title) == ["first"])
            try await a.saveItem(record(2, "second"))
        }
        try await PortalReads.$since.withValue(.now) { () async throws in
            #expect(try await b.searchItems(everything).items.map(\.title) == ["first", "second"], "a write before the request began")
        }
        await a.shutdown()
        await b.shutdown()
    }

    /// Two processes on one database: a setting or a group one writes, the other reads at
    /// once (each keeps a copy, which the change log keeps current), and a setting first read
    /// as missing is found once written.
    @Test(PostgresServer.required)
    func settingsAndGroupsAnotherProcessWroteAreReadAtOnce() async throws {
        let url = try PostgresServer.database()
        let a = try await PostgresPortalStore.connect(url, patience: .seconds(60)), b = try await PostgresPortalStore.connect(url, patience: .seconds(60))
        #expect(try await b.setting("organizationName") == nil)
        #expect(try await b.groups().isEmpty)
        try await a.setSetting("organizationName", "Water Department")
        #expect(try await b.setting("organizationName") == "Water Department")
        try await b.setSetting("organizationName", "Public Works")
        #expect(try await a.setting("organizationName") == "Public Works")
        #expect(try await a.settings()["organizationName"] == "Public Works")
        let crews = GroupRecord(
            id: String(repeating: "c", count: 32), title: "Crews", owner: "alice", snippet: nil, description: nil, tags: [], access: "private",
            created: 1, modified: 1, members: ["alice"], capabilities: [])
        try await a.saveGroup(crews)
        #expect(try await b.group(crews.id)?.members == ["alice"])
        var joined = crews
        joined.members.append("bob")
        try await a.saveGroup(joined)
        #expect(try await b.groups().map(\.members) == [["alice", "bob"]])
        try await b.deleteGroup(crews.id)
        #expect(try await a.group(crews.id) == nil)
        #expect(try await a.groups().isEmpty)
        await a.shutdown()
        await b.shutdown()
    }

    /// Two processes on one database: each keeps the tokens it has read with their users, yet a
    /// sign-out, a revocation of a user's tokens or a change of the user at one is seen by the
    /// other's next read.
    @Test(PostgresServer.required)
    func aTokenRevokedOrAUserChangedAtAnotherProcessIsSeenAtOnce() async throws {
        let url = try PostgresServer.database()
        let a = try await PostgresPortalStore.connect(url, patience: .seconds(60)), b = try await PostgresPortalStore.connect(url, patience: .seconds(60))
        let alice = UserRecord(username: "alice", id: "a1", fullName: "Alice", email: "", role: "org_admin", passwordHash: "x", created: 1, modified: 1)
        let bob = UserRecord(username: "bob", id: "b1", fullName: "Bob", email: "", role: "org_user", passwordHash: "x", created: 1, modified: 1)
        try await a.saveUser(alice)
        try await a.saveUser(bob)
        func token(_ hash: String, _ user: String) -> TokenRecord {
            TokenRecord(hash: hash, kind: .session, username: user, clientId: nil, referer: nil, created: 1, expires: .max, codeChallenge: nil, redirectURI: nil)
        }
        for (hash, user) in [("t1", "bob"), ("t2", "bob"), ("t3", "alice")] { try await a.saveToken(token(hash, user)) }
        // b reads them twice: the second read is its copy's.
        for _ in 0..<2 {
            #expect(try await b.tokenAndUser(hash: "t1")?.user?.fullName == "Bob")
            #expect(try await b.tokenAndUser(hash: "t3")?.user?.role == "org_admin")
        }
        try await a.deleteToken(hash: "t1")
        #expect(try await b.tokenAndUser(hash: "t1") == nil, "a sign-out at a is seen at b")
        #expect(try await b.tokenAndUser(hash: "t2")?.token.username == "bob")
        _ = try await a.changeUser("bob") { $0.disabled = true }
        #expect(try await b.tokenAndUser(hash: "t2")?.user?.disabled == true, "a disabled user is seen at b")
        try await a.deleteTokens(username: "bob")
        #expect(try await b.tokenAndUser(hash: "t2") == nil, "revoked tokens are gone at b")
        var renamed = alice
        renamed.fullName = "Alice Liddell"
        try await a.saveUser(renamed)
        #expect(try await b.tokenAndUser(hash: "t3")?.user?.fullName == "Alice Liddell")
        await a.shutdown()
        await b.shutdown()
    }

    /// The plain meaning of `search` over `records`: every item tested (unless `tested`
    /// says they were), the matches sorted and paged.
    static func expected(_ search: ItemSearch, _ records: [ItemRecord], tested: Bool = false) -> ItemSearchResult {
        let matches = search.sort.sorted(
            tested
                ? records
                : records.filter { record in
                    search.viewer.mayRead(record) && (search.group.map { record.groups.contains($0) } ?? true) && search.query.matches(record.item, groups: record.groups)
                }
        ) { $0.item }
        let window = search.page.window(total: matches.count)
        return ItemSearchResult(
            items: matches[window.offset..<window.offset + window.count].map(\.item), total: matches.count, start: search.page.start, num: search.page.num,
            nextStart: window.nextStart)
    }

    /// Users by name without case, tokens, sign-in failures (the last few kept), settings:
    /// both stores keep them alike.
    @Test(PostgresServer.required)
    func bothStoresKeepRecordsAlike() async throws {
        try await withTemporaryDirectory { dir in
            for store in try await stores(dir) {
                let user = UserRecord(username: "Alice", id: "1", fullName: "Alice A", email: "a@example.org", role: "org_user", passwordHash: "h", created: 1, modified: 2)
                try await store.saveUser(user)
                #expect(try await store.user("ALICE") == user, "\(store)")
                let token = TokenRecord(hash: "t1", kind: .code, username: "Alice", clientId: "c", referer: nil, created: 1, expires: 10, codeChallenge: "x", redirectURI: "https://r")
                try await store.saveToken(token)
                #expect(try await store.token(hash: "t1") == token)
                try await store.deleteTokens(username: "alice")
                #expect(try await store.token(hash: "t1") == nil)
                for t in 1...8 { try await store.recordSignInFailure("user:alice", at: Int64(t), keepingLast: 5) }
                #expect(try await store.signInFailures("user:alice", since: 0) == [4, 5, 6, 7, 8])
                #expect(try await store.signInFailures("user:alice", since: 6) == [7, 8])
                try await store.clearSignInFailures("user:alice")
                #expect(try await store.signInFailures("user:alice", since: 0).isEmpty)
                try await store.setSetting("orgId", "abc")
                try await store.setSetting("orgId", "def")
                #expect(try await store.setting("orgId") == "def")
                let group = GroupRecord(id: "g", title: "Crew", owner: "Alice", snippet: nil, description: "d", tags: ["t"], access: "org", created: 1, modified: 1, members: ["Alice"], capabilities: ["updateitemcontrol"])
                try await store.saveGroup(group)
                #expect(try await store.group("g") == group)
                let folder = FolderRecord(id: "f", owner: "Alice", title: "Field", created: 3)
                try await store.saveFolder(folder)
                #expect(try await store.folders(owner: "alice") == [folder])
                // What migrating reads: every setting and token.
                #expect(try await store.settings() == ["orgId": "def"])
                let access = TokenRecord(hash: "t2", kind: .access, username: "Alice", clientId: nil, referer: "r", created: 1, expires: 99, codeChallenge: nil, redirectURI: nil)
                try await store.saveToken(access)
                #expect(try await store.tokens() == [access])
                // Upload parts: any order in, part-number order out, a resent part replacing
                // the first, gone with the item.
                let item = ItemRecord(item: PortalItem(id: "i1", owner: "Alice", created: 1, modified: 1, title: "Up", type: "Mobile Map Package"), status: .uploading, groups: [], sha256: nil, version: "v1")
                try await store.saveItem(item)
                #expect(try await store.item("i1") == item)
                for (n, size) in [(2, 20), (1, 10), (3, 30), (2, 25)] { try await store.saveUploadPart(itemId: "i1", UploadPart(number: n, size: Int64(size))) }
                #expect(try await store.uploadParts(itemId: "i1") == [UploadPart(number: 1, size: 10), UploadPart(number: 2, size: 25), UploadPart(number: 3, size: 30)])
                try await store.deleteItem("i1")
                #expect(try await store.uploadParts(itemId: "i1").isEmpty)
            }
        }
    }

    /// A database written by a newer mapbook is refused, not changed.
    @Test(PostgresServer.required)
    func aNewerDatabaseIsRefused() async throws {
        let url = try PostgresServer.database()
        let store = try await PostgresPortalStore.connect(url, patience: .seconds(60))
        try await store.client.query("UPDATE mapbook_schema SET version = 99")
        await store.shutdown()
        do {
            _ = try await PostgresPortalStore.connect(url, patience: .seconds(60))
            Issue.record("a newer database was opened")
        } catch let error as PortalStoreError {
            #expect(error.kind == .newerVersion && error.message.contains("version 99"), "\(error)")
        }
    }
}
