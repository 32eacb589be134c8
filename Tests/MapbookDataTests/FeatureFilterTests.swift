import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookData

@Suite struct FeatureFilterTests {
    typealias Node = FeatureFilter.Node
    typealias Operand = FeatureFilter.Operand

    static let fields = ["fid", "name", "Pipe Size", "status", "inspected"]

    /// A row of the test table, kept in Swift so that expected results are computed without SQL.
    struct Row: Sendable {
        var fid: Int64
        var name: String?
        var size: Double?
        var status: String?
        /// GeoPackage date-time text, as the importers write it.
        var inspected: String?
    }

    static let rows: [Row] = [
        Row(fid: 1, name: "Main St", size: 6, status: "ACTIVE", inspected: "2020-01-01T00:00:00.000Z"),
        Row(fid: 2, name: "main st", size: 8, status: "active", inspected: "2020-06-15T12:30:00.000Z"),
        Row(fid: 3, name: "O'Brien Rd", size: 12.5, status: "RETIRED", inspected: "2019-12-31T23:59:59.000Z"),
        Row(fid: 4, name: "50% Lane", size: nil, status: "ACTIVE", inspected: nil),
        Row(fid: 5, name: nil, size: 4, status: nil, inspected: "2021-03-01"),
        Row(fid: 6, name: "Élan_Way", size: 0, status: "PLANNED", inspected: "2020-01-01T00:00:00.000Z"),
        Row(fid: 7, name: "Sixth", size: -2.5, status: "ACTIVE", inspected: "2020-06-15T12:30:00"),
        Row(fid: 8, name: "Eight", size: 8, status: "ACTIVE", inspected: nil),
    ]

    /// A filter and, independently, which rows it should select.
    struct Case: Sendable, CustomTestStringConvertible {
        var filter: String
        var selects: @Sendable (Row) -> Bool
        var testDescription: String { filter }
    }

    /// `YYYY-MM-DDTHH:MM:SS` of a stored date or date-time, which sorts as the moments do.
    static func moment(_ text: String?) -> String? {
        guard let text else { return nil }
        let head = String(text.prefix(19))
        return head.count == 10 ? head + "T00:00:00" : head
    }

    static let cases: [Case] = [
        Case(filter: "status = 'ACTIVE'") { $0.status == "ACTIVE" },
        Case(filter: "STATUS <> 'ACTIVE'") { $0.status.map { $0 != "ACTIVE" } ?? false },
        Case(filter: "status != 'ACTIVE'") { $0.status.map { $0 != "ACTIVE" } ?? false },
        Case(filter: "\"status\" = 'ACTIVE'") { $0.status == "ACTIVE" },
        Case(filter: "\"STATUS\" = 'ACTIVE'") { $0.status == "ACTIVE" },
        Case(filter: "name = 'O''Brien Rd'") { $0.name == "O'Brien Rd" },
        Case(filter: "name = N'Sixth'") { $0.name == "Sixth" },
        Case(filter: "\"Pipe Size\" > 5") { ($0.size ?? -.infinity) > 5 },
        Case(filter: "\"pipe size\" >= 8") { ($0.size ?? -.infinity) >= 8 },
        Case(filter: "\"Pipe Size\" < -1") { ($0.size ?? .infinity) < -1 },
        Case(filter: "\"Pipe Size\" <= 0") { ($0.size ?? .infinity) <= 0 },
        Case(filter: "\"Pipe Size\" >= 1e1") { ($0.size ?? -.infinity) >= 10 },
        Case(filter: "\"Pipe Size\" = 12.5") { $0.size == 12.5 },
        Case(filter: "\"Pipe Size\" = - 2.5") { $0.size == -2.5 },
        Case(filter: "\"Pipe Size\" BETWEEN 0 AND 6") { $0.size.map { $0 >= 0 && $0 <= 6 } ?? false },
        Case(filter: "\"Pipe Size\" NOT BETWEEN 0 AND 6") { $0.size.map { $0 < 0 || $0 > 6 } ?? false },
        Case(filter: "\"Pipe Size\" IN (6, 12.5)") { $0.size == 6 || $0.size == 12.5 },
        Case(filter: "fid NOT IN (1, 2, 3)") { ![1, 2, 3].contains($0.fid) },
        Case(filter: "fid = \"Pipe Size\"") { $0.size == Double($0.fid) },
        Case(filter: "name LIKE 'main%'") { $0.name?.lowercased().hasPrefix("main") ?? false },
        Case(filter: "name NOT LIKE 'main%'") { $0.name.map { !$0.lowercased().hasPrefix("main") } ?? false },
        Case(filter: "name LIKE '_ixth'") { $0.name == "Sixth" },
        Case(filter: "name LIKE '50\\%%' ESCAPE '\\'") { $0.name?.hasPrefix("50%") ?? false },
        Case(filter: "name LIKE '%!_%' ESCAPE '!'") { $0.name?.contains("_") ?? false },
        Case(filter: "name IS NULL") { $0.name == nil },
        Case(filter: "name IS NOT NULL") { $0.name != nil },
        Case(filter: "status IN ('ACTIVE', 'PLANNED') AND \"Pipe Size\" > 1") {
            ["ACTIVE", "PLANNED"].contains($0.status ?? "") && ($0.size ?? 0) > 1
        },
        Case(filter: "NOT (status = 'ACTIVE' OR status IS NULL)") { $0.status.map { $0 != "ACTIVE" } ?? false },
        Case(filter: "status = 'ACTIVE' OR status = 'active' AND fid > 1") {
            $0.status == "ACTIVE" || ($0.status == "active" && $0.fid > 1)
        },
        Case(filter: "(status = 'ACTIVE' OR status = 'active') AND fid > 1") {
            ($0.status == "ACTIVE" || $0.status == "active") && $0.fid > 1
        },
        Case(filter: "NOT status = 'ACTIVE' AND fid < 4") { $0.status.map { $0 != "ACTIVE" } ?? false && $0.fid < 4 },
        Case(filter: "not not fid = 3") { $0.fid == 3 },
        Case(filter: "1=1") { _ in true },
        Case(filter: "1 = 0") { _ in false },
        Case(filter: "1 = 1 AND fid = 3") { $0.fid == 3 },
        Case(filter: "TRUE = 1 and fid <> FALSE") { _ in true },
        Case(filter: "fid >= -9223372036854775808 AND fid < 9223372036854775807") { _ in true },
        Case(filter: "status = NULL") { _ in false },
        Case(filter: "inspected >= TIMESTAMP '2020-01-01 00:00:00'") { (moment($0.inspected) ?? "") >= "2020-01-01T00:00:00" },
        Case(filter: "inspected = DATE '2020-01-01'") { moment($0.inspected) == "2020-01-01T00:00:00" },
        Case(filter: "inspected = timestamp '2020-06-15 12:30:00'") { moment($0.inspected) == "2020-06-15T12:30:00" },
        Case(filter: "inspected > date '2020-06-15 12:29:59'") { (moment($0.inspected) ?? "") > "2020-06-15T12:29:59" },
        Case(filter: "inspected BETWEEN DATE '2020-01-01' AND DATE '2020-12-31'") {
            moment($0.inspected).map { $0 >= "2020-01-01T00:00:00" && $0 <= "2020-12-31T00:00:00" } ?? false
        },
        Case(filter: "inspected IN (DATE '2021-03-01', TIMESTAMP '2019-12-31 23:59:59')") {
            ["2021-03-01T00:00:00", "2019-12-31T23:59:59"].contains(moment($0.inspected) ?? "")
        },
        Case(filter: "inspected < DATE '2020-01-01' OR inspected IS NULL") {
            moment($0.inspected).map { $0 < "2020-01-01T00:00:00" } ?? true
        },
    ]

    // MARK: - Running on SQLite

    /// A table of `rows` in a fresh database, for `body` to query.
    func withTable(_ body: (SQLiteDatabase) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let db = try SQLiteDatabase(writablePath: dir + "/t.sqlite")
            try db.execute("CREATE TABLE t (fid INTEGER PRIMARY KEY, name TEXT, \"Pipe Size\" REAL, status TEXT, inspected DATETIME)")
            let insert = try db.prepare("INSERT INTO t VALUES (?,?,?,?,?)")
            for row in Self.rows {
                try insert.bind([
                    .integer(row.fid), row.name.map { .text($0) } ?? .null, row.size.map { .real($0) } ?? .null,
                    row.status.map { .text($0) } ?? .null, row.inspected.map { .text($0) } ?? .null,
                ])
                try insert.run()
            }
            try body(db)
        }
    }

    func fids(_ filter: FeatureFilter, in db: SQLiteDatabase) throws -> [Int64] {
        let (clause, bindings) = filter.sql
        return try db.query("SELECT fid FROM t WHERE \(clause) ORDER BY fid", bindings).compactMap { $0.first?.int64 }
    }

    @Test(arguments: cases)
    func selectsTheRowsSQLWould(_ testCase: Case) throws {
        let filter = try FeatureFilter(testCase.filter, fields: Self.fields)
        let expected = Self.rows.filter(testCase.selects).map(\.fid)
        try withTable { db in
            let selected = try fids(filter, in: db)
            #expect(selected == expected)
        }
        // Every literal is bound: none of their text, quotes or digits reach the clause.
        let clause = filter.sql.clause
        #expect(!clause.contains("'"))
        #expect(!clause.contains { $0.isNumber })
        #expect(!clause.contains("ACTIVE") && !clause.contains("main") && !clause.contains("2020"))
    }

    // MARK: - Syntax tree

    static func f(_ name: String) -> Operand { .field(name) }
    static func text(_ s: String) -> Operand { .literal(.text(s)) }
    static func int(_ i: Int64) -> Operand { .literal(.integer(i)) }

    static let trees: [(String, Node)] = [
        ("name = 'a'", .compare(f("name"), .equal, text("a"))),
        ("NAME <> 'a'", .compare(f("name"), .notEqual, text("a"))),
        ("name != 'a'", .compare(f("name"), .notEqual, text("a"))),
        ("fid < 1", .compare(f("fid"), .less, int(1))),
        ("fid <= 1", .compare(f("fid"), .lessOrEqual, int(1))),
        ("fid > -1", .compare(f("fid"), .greater, int(-1))),
        ("fid >= 1.5", .compare(f("fid"), .greaterOrEqual, .literal(.real(1.5)))),
        ("fid = 2E-3", .compare(f("fid"), .equal, .literal(.real(0.002)))),
        ("1=1", .compare(int(1), .equal, int(1))),
        ("fid = \"Pipe Size\"", .compare(f("fid"), .equal, f("Pipe Size"))),
        ("status = NULL", .compare(f("status"), .equal, .literal(.null))),
        ("fid = TRUE OR fid = false", .or([.compare(f("fid"), .equal, int(1)), .compare(f("fid"), .equal, int(0))])),
        ("name = 'it''s'", .compare(f("name"), .equal, text("it's"))),
        ("\"Pipe Size\" IN (1, 2)", .in(f("Pipe Size"), [int(1), int(2)], negated: false)),
        ("fid not in (1)", .in(f("fid"), [int(1)], negated: true)),
        ("name LIKE 'a%'", .like(f("name"), pattern: text("a%"), escape: nil, negated: false)),
        ("name NOT LIKE 'a!%' ESCAPE '!'", .like(f("name"), pattern: text("a!%"), escape: "!", negated: true)),
        ("name IS NULL", .isNull(f("name"), negated: false)),
        ("name is not null", .isNull(f("name"), negated: true)),
        ("fid BETWEEN 1 AND 2", .between(f("fid"), low: int(1), high: int(2), negated: false)),
        ("fid NOT BETWEEN -2 AND 2", .between(f("fid"), low: int(-2), high: int(2), negated: true)),
        ("inspected = DATE '2020-01-31'", .compare(f("inspected"), .equal, .date("2020-01-31"))),
        ("inspected = TIMESTAMP '2020-01-31 08:05:09'", .compare(f("inspected"), .equal, .date("2020-01-31T08:05:09"))),
        ("NOT fid = 1", .not(.compare(f("fid"), .equal, int(1)))),
        (
            "fid = 1 OR fid = 2 AND NOT fid = 3",
            .or([.compare(f("fid"), .equal, int(1)), .and([.compare(f("fid"), .equal, int(2)), .not(.compare(f("fid"), .equal, int(3)))])])
        ),
        (
            "(fid = 1 OR fid = 2) AND fid = 3",
            .and([.or([.compare(f("fid"), .equal, int(1)), .compare(f("fid"), .equal, int(2))]), .compare(f("fid"), .equal, int(3))])
        ),
        ("((fid = 1))", .compare(f("fid"), .equal, int(1))),
        (
            "fid = 1 AND fid = 2 AND fid = 3",
            .and([.compare(f("fid"), .equal, int(1)), .compare(f("fid"), .equal, int(2)), .compare(f("fid"), .equal, int(3))])
        ),
    ]

    @Test(arguments: trees)
    func parsesEachOperatorIntoItsNode(_ expression: String, _ expected: Node) throws {
        let filter = try FeatureFilter(expression, fields: Self.fields)
        #expect(filter.root == expected)
        #expect(filter.expression == expression)
    }

    // MARK: - SQL

    @Test func writesAFullyParenthesisedClauseWithEveryLiteralBound() throws {
        let filter = try FeatureFilter(
            "STATUS = 'A' AND (\"pipe size\" >= 6 OR name IS NULL)", fields: Self.fields)
        #expect(filter.sql.clause == "(\"status\" = ? AND (\"Pipe Size\" >= ? OR \"name\" IS NULL))")
        #expect(filter.sql.bindings == [.text("A"), .integer(6)])

        let single = try FeatureFilter("name = 'x'", fields: Self.fields)
        #expect(single.sql.clause == "(\"name\" = ?)")

        let not = try FeatureFilter("NOT (fid = 1 OR fid BETWEEN 2 AND 3)", fields: Self.fields)
        #expect(not.sql.clause == "(NOT (\"fid\" = ? OR (\"fid\" BETWEEN ? AND ?)))")
        #expect(not.sql.bindings == [.integer(1), .integer(2), .integer(3)])

        let like = try FeatureFilter("name NOT LIKE 'a\\_%' ESCAPE '\\' AND status NOT IN ('x', 'y')", fields: Self.fields)
        #expect(like.sql.clause == "(\"name\" NOT LIKE ? ESCAPE ? AND \"status\" NOT IN (?, ?))")
        #expect(like.sql.bindings == [.text("a\\_%"), .text("\\"), .text("x"), .text("y")])
    }

    @Test func comparesDatesAsMoments() throws {
        let filter = try FeatureFilter("inspected BETWEEN DATE '2020-01-01' AND TIMESTAMP '2020-12-31 23:59:59'", fields: Self.fields)
        #expect(filter.sql.clause == "(julianday(\"inspected\") BETWEEN julianday(?) AND julianday(?))")
        #expect(filter.sql.bindings == [.text("2020-01-01"), .text("2020-12-31T23:59:59")])
    }

    @Test func quotesFieldNamesThatHoldQuotes() throws {
        let filter = try FeatureFilter("\"a\"\"b\" = 1", fields: ["a\"b"])
        #expect(filter.root == .compare(.field("a\"b"), .equal, .literal(.integer(1))))
        #expect(filter.sql.clause == "(\"a\"\"b\" = ?)")
    }

    // MARK: - Refusals

    static let refused: [(String, FeatureFilterError.Kind)] = [
        ("", .empty),
        ("  \n\t ", .empty),
        ("1=1; DROP TABLE t", .unsupported),
        ("name = 'a' -- x", .unsupported),
        ("name = 'a' /* x */", .unsupported),
        ("upper(name) = 'A'", .unsupported),
        ("\"upper\"(name) = 'A'", .unsupported),
        ("load_extension('x')", .unsupported),
        ("(SELECT 1)", .unsupported),
        ("fid IN (SELECT fid FROM t)", .unsupported),
        ("fid = (SELECT 1)", .unsupported),
        ("EXISTS (SELECT 1)", .unsupported),
        ("CASE WHEN fid = 1 THEN 1 END = 1", .unsupported),
        ("CAST(fid AS TEXT) = '1'", .unsupported),
        ("name = 'a' COLLATE NOCASE", .unsupported),
        ("name GLOB 'a*'", .unsupported),
        ("name || 'a' = 'ba'", .unsupported),
        ("fid + 1 = 2", .unsupported),
        ("fid - 1 = 2", .unsupported),
        ("fid * 2 = 2", .unsupported),
        ("fid / 2 = 2", .unsupported),
        ("fid % 2 = 0", .unsupported),
        ("name = x'00'", .unsupported),
        ("name = ?", .unsupported),
        ("name = :name", .unsupported),
        ("name = @name", .unsupported),
        ("name IS 'a'", .unsupported),
        ("fid = CURRENT_DATE", .unsupported),
        ("nmae = 'a'", .unknownField),
        ("\"Pipe size \" = 1", .unknownField),
        ("t.name = 'a'", .unexpectedCharacter),
        ("name = 'abc", .unterminatedString),
        ("\"name = 'abc'", .unterminatedString),
        ("name = 'a' # x", .unexpectedCharacter),
        ("[name] = 'a'", .unexpectedCharacter),
        ("fid = 0x10", .unexpectedCharacter),
        ("fid ! 1", .unexpectedCharacter),
        ("inspected = DATE '2020-02-30'", .invalidValue),
        ("inspected = TIMESTAMP 'yesterday'", .invalidValue),
        ("fid = 1e999", .invalidValue),
        ("name LIKE 'a' ESCAPE 'ab'", .invalidValue),
        ("STATUS = ", .syntax),
        ("(name = 'a'", .syntax),
        ("name = 'a')", .syntax),
        ("name = 'a' name", .syntax),
        ("name 'a'", .syntax),
        ("AND name = 'a'", .syntax),
        ("name = 'a' AND", .syntax),
        ("NOT", .syntax),
        ("fid IN ()", .syntax),
        ("fid IN (1, 2", .syntax),
        ("fid BETWEEN 1 OR 2", .syntax),
        ("fid NOT = 1", .syntax),
        ("fid == 1", .syntax),
        ("name", .syntax),
        ("()", .syntax),
        ("(1) = fid", .syntax),
        ("fid = (1)", .unsupported),
        (String(repeating: "(", count: 100) + "fid = 1" + String(repeating: ")", count: 100), .tooComplex),
        (String(repeating: "NOT ", count: FeatureFilter.maximumDepth + 1) + "fid = 1", .tooComplex),
        ("fid IN (" + (0...1000).map(String.init).joined(separator: ",") + ")", .tooComplex),
        ((0...FeatureFilter.maximumConditions).map { _ in "fid = fid" }.joined(separator: " OR "), .tooComplex),
        ("name = '" + String(repeating: "x", count: 16 * 1024) + "'", .tooComplex),
    ]

    @Test(arguments: refused)
    func refusesWithASpecificKind(_ expression: String, _ kind: FeatureFilterError.Kind) throws {
        do {
            let filter = try FeatureFilter(expression, fields: Self.fields)
            Issue.record("accepted '\(expression)' as \(filter.sql.clause)")
        } catch {
            #expect(error.kind == kind, "\(error)")
            #expect(error.expression == expression)
            #expect(error.position >= 0 && error.position <= expression.count)
        }
    }

    @Test func hostileFiltersLeaveTheTableIntact() throws {
        try withTable { db in
            for (expression, _) in Self.refused {
                #expect(throws: FeatureFilterError.self) { try FeatureFilter(expression, fields: Self.fields) }
            }
            #expect(try db.scalar("SELECT count(*) FROM t")?.int64 == Int64(Self.rows.count))
            #expect(try db.tableExists("t"))
            // Text that would be SQL injection, as a value, is only a value.
            let quoted = try FeatureFilter("name = '''; DROP TABLE t; --'", fields: Self.fields)
            #expect(quoted.sql.bindings == [.text("'; DROP TABLE t; --")])
            #expect(try fids(quoted, in: db) == [])
            #expect(try db.tableExists("t"))
        }
    }

    @Test func errorsSayWhereTheProblemIs() throws {
        #expect(throws: FeatureFilterError(
            kind: .syntax, expression: "STATUS = ", position: 8, message: "expected a field or a value after '='")) {
            try FeatureFilter("STATUS = ", fields: Self.fields)
        }
        do {
            _ = try FeatureFilter("STATUS = ", fields: Self.fields)
        } catch {
            #expect(error.description == "Cannot use the filter 'STATUS = ': expected a field or a value after '=' at character 9")
        }
        do {
            _ = try FeatureFilter("fid = 1 AND nmae = 'é'", fields: Self.fields)
        } catch {
            #expect(error.kind == .unknownField)
            #expect(error.position == 12)
            #expect(error.message.contains("nmae") && error.message.contains("Pipe Size"))
        }
        // Positions count characters, not bytes or scalars.
        do {
            _ = try FeatureFilter("name = 'é' AND name = 'e\u{301}' AND #", fields: Self.fields)
        } catch {
            #expect(error.kind == .unexpectedCharacter)
            #expect(error.position == 30)
        }
    }

    // MARK: - Limits

    @Test func acceptsFiltersAtTheLimits() throws {
        let depth = FeatureFilter.maximumDepth
        let juneInspection = "inspected BETWEEN DATE '2020-06-01' AND DATE '2020-06-30'"
        let june = Self.rows.filter { (Self.moment($0.inspected) ?? "").hasPrefix("2020-06") }.map(\.fid)
        // The deepest of each shape, with what it selects; alternating AND and OR cannot be
        // flattened and is the one SQLite's parser finds hardest.
        let deepest: [(String, [Int64])] = [
            (String(repeating: "(", count: depth) + "fid = 2" + String(repeating: ")", count: depth), [2]),
            (String(repeating: "NOT ", count: depth) + "fid = 2", [2]),
            (String(repeating: "NOT (", count: depth / 2) + "fid = 2" + String(repeating: ")", count: depth / 2), [2]),
            (String(repeating: "fid > 0 AND NOT (", count: depth / 2) + "fid = 2" + String(repeating: ")", count: depth / 2), [2]),
            (
                (0..<depth).map { $0 % 2 == 0 ? "fid = 8 OR (" : "fid > 0 AND (" }.joined() + juneInspection
                    + String(repeating: ")", count: depth),
                (june + [8]).sorted()
            ),
        ]
        try withTable { db in
            for (expression, expected) in deepest {
                let filter = try FeatureFilter(expression, fields: Self.fields)
                // Inside a query the way a caller may place it, which takes parser stack too.
                let (clause, bindings) = filter.sql
                let rows = try db.query(
                    "SELECT fid FROM t WHERE fid IN (SELECT fid FROM t WHERE fid > 0) AND \(clause) ORDER BY fid", bindings)
                #expect(rows.compactMap { $0.first?.int64 } == expected, "\(expression)")
                #expect(throws: FeatureFilterError.self) { try FeatureFilter("(" + expression + ")", fields: Self.fields) }
            }
            // As many conditions as allowed, nested as deep as allowed: SQLite's expression depth.
            let longest = deepest[deepest.count - 1].0
                + String(repeating: " AND fid > 0", count: FeatureFilter.maximumConditions - depth - 1)
            let (clause, bindings) = try FeatureFilter(longest, fields: Self.fields).sql
            let rows = try db.query(
                "SELECT fid FROM t WHERE fid IN (SELECT fid FROM t WHERE fid > 0) AND \(clause) ORDER BY fid", bindings)
            #expect(rows.compactMap { $0.first?.int64 } == (june + [8]).sorted())
            #expect(throws: FeatureFilterError.self) { try FeatureFilter(longest + " AND fid > 0", fields: Self.fields) }
            let chain = (1...FeatureFilter.maximumConditions).map { "fid = \($0)" }.joined(separator: " OR ")
            #expect(try fids(FeatureFilter(chain, fields: Self.fields), in: db) == Self.rows.map(\.fid))
            let list = (1...FeatureFilter.maximumLiterals - 1).map(String.init).joined(separator: ", ")
            let many = try FeatureFilter("fid IN (\(list)) AND name IS NOT NULL", fields: Self.fields)
            #expect(many.sql.bindings.count == FeatureFilter.maximumLiterals - 1)
            #expect(try fids(many, in: db) == Self.rows.filter { $0.name != nil }.map(\.fid))
            let long = "name = '" + String(repeating: "x", count: FeatureFilter.maximumLength - 9) + "'"
            #expect(long.utf8.count == FeatureFilter.maximumLength)
            #expect(try fids(FeatureFilter(long, fields: Self.fields), in: db) == [])
        }
    }

    /// Valid filters with random tokens replaced, dropped or added, and random runs of tokens:
    /// none may crash the parser, and every filter it accepts must run on SQLite.
    @Test func mutatedFiltersNeverCrashAndAcceptedOnesRun() throws {
        let pieces = [
            "fid", "name", "\"Pipe Size\"", "status", "inspected", "=", "<>", "<", ">=", "(", ")", "AND", "OR", "NOT", "IN",
            "LIKE", "BETWEEN", "IS", "NULL", "TRUE", "'a'", "'%'", "1", "-", "2.5", "1e3", ",", "ESCAPE", "'!'", "DATE",
            "'2020-01-01'", ";", "--", "upper", "'", "\"", "*", "é", "x'", "?", "/", "\u{0}", "SELECT",
        ]
        let seeds = Self.cases.map(\.filter) + Self.trees.map(\.0)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        var refused = 0
        try withTable { db in
            for round in 0..<6000 {
                var words: [String]
                if round % 4 == 0 {
                    words = (0...random(10)).map { _ in pieces[random(pieces.count)] }
                } else {
                    words = seeds[random(seeds.count)].split(separator: " ").map(String.init)
                    for _ in 0...random(2) where !words.isEmpty {
                        let at = random(words.count)
                        switch random(3) {
                        case 0: words[at] = pieces[random(pieces.count)]
                        case 1: words.remove(at: at)
                        default: words.insert(pieces[random(pieces.count)], at: at)
                        }
                    }
                }
                let expression = words.joined(separator: random(5) == 0 ? "" : " ")
                do {
                    let filter = try FeatureFilter(expression, fields: Self.fields)
                    accepted += 1
                    let (clause, bindings) = filter.sql
                    _ = try db.query("SELECT fid FROM t WHERE \(clause)", bindings)
                } catch let error as FeatureFilterError {
                    refused += 1
                    #expect(error.position >= 0 && error.position <= expression.count)
                }
            }
            #expect(try db.scalar("SELECT count(*) FROM t")?.int64 == Int64(Self.rows.count))
        }
        #expect(accepted > 100 && refused > 1000)
    }
}
