#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// One searchable feature handed to `LocatorIndexBuilder`.
public struct LocatorIndexEntry: Sendable {
    public var fid: Int64
    /// The value of the search field.
    public var text: String
    /// Where the feature is (its label point), WGS84 degrees; nil without geometry.
    public var longitude: Double?
    public var latitude: Double?
    /// The rank field's value: higher ranks first among equal matches.
    public var rank: Double?

    public init(fid: Int64, text: String, longitude: Double? = nil, latitude: Double? = nil, rank: Double? = nil) {
        self.fid = fid
        self.text = text
        self.longitude = longitude
        self.latitude = latitude
        self.rank = rank
    }
}

/// What an index build did.
public struct LocatorIndexSummary: Sendable {
    public var entries: Int
    public var groups: Int
    public var words: Int
    public var numbers: Int
    /// Features whose search text has no letters or digits: not searchable.
    public var skipped: Int
    /// The UTF-8 size of the indexed text.
    public var textBytes: Int
}

/// Writes a locator's search index (`LocatorIndexFormat`) from its features.
///
/// The same entries always give the same bytes: every list is sorted before it is written
/// and nothing depends on the time or on hash order. The file is written beside `path` and
/// renamed over it when complete.
public enum LocatorIndexBuilder {
    public static func build(_ entries: [LocatorIndexEntry], hasRank: Bool, to path: String) throws -> LocatorIndexSummary {
        // Fold each feature's text; features with the same folded text form one group.
        var keyed: [(key: [UInt8], tokens: [SearchToken], entry: Int)] = []
        keyed.reserveCapacity(entries.count)
        var skipped = 0
        var textBytes = 0
        for (i, e) in entries.enumerated() {
            let tokens = SearchText.tokens(e.text)
            guard !tokens.isEmpty else {
                skipped += 1
                continue
            }
            textBytes += e.text.utf8.count
            keyed.append((Array(tokens.map(\.text).joined(separator: " ").utf8), tokens, i))
        }
        keyed.sort { a, b in
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            return entries[a.entry].fid < entries[b.entry].fid
        }

        var groupCounts: [Int] = []
        var groupTokenCounts: [UInt8] = []
        var termGroups: [SearchToken: [UInt32]] = [:]
        var order: [Int] = []
        order.reserveCapacity(keyed.count)
        var previousKey: [UInt8]?
        for item in keyed {
            if item.key != previousKey {
                let group = UInt32(groupCounts.count)
                groupCounts.append(0)
                let distinct = Set(item.tokens)
                groupTokenCounts.append(UInt8(min(255, distinct.count)))
                for token in distinct { termGroups[token, default: []].append(group) }
                previousKey = item.key
            }
            groupCounts[groupCounts.count - 1] += 1
            order.append(item.entry)
        }

        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        var ok = false
        defer { if !ok { unlink(temporary) } }
        let db = try SQLiteDatabase(writablePath: temporary)
        try db.execute("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try db.execute(LocatorIndexFormat.schema)
        try db.execute("BEGIN")

        // Terms, sorted by their UTF-8 bytes, in blocks.
        let terms = termGroups.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var words = 0, numbers = 0
        // The word terms once more, flat (`word_list`): a reader loads them in one step.
        var flat = (text: IndexByteWriter(), ends: IndexByteWriter(), counts: IndexByteWriter(), groups: IndexByteWriter())
        for table in ["words", "numbers"] {
            let isNumber = table == "numbers"
            let list = terms.filter { $0.isNumber == isNumber }
            if isNumber { numbers = list.count } else { words = list.count }
            let insert = try db.prepare("INSERT INTO \(table) (first, terms, postings) VALUES (?, ?, ?)")
            var start = 0
            while start < list.count {
                let block = list[start..<min(list.count, start + LocatorIndexFormat.blockSize)]
                var termBytes = IndexByteWriter()
                var postings = IndexByteWriter()
                var previous: [UInt8] = []
                for term in block {
                    let bytes = term.utf8
                    var shared = 0
                    while shared < min(previous.count, bytes.count), previous[shared] == bytes[shared] { shared += 1 }
                    termBytes.varint(shared)
                    termBytes.varint(bytes.count - shared)
                    termBytes.append(Array(bytes[shared...]))
                    let groups = termGroups[term]!
                    termBytes.varint(groups.count)
                    if groups.count == 1 {
                        termBytes.varint(UInt64(groups[0]))
                    } else {
                        let list = Postings.encode(groups)
                        termBytes.varint(list.count)
                        postings.append(list)
                    }
                    if !isNumber {
                        flat.text.append(bytes)
                        flat.ends.fixed(UInt64(flat.text.bytes.count), width: 4)
                        flat.counts.fixed(UInt64(groups.count), width: 4)
                        flat.groups.fixed(UInt64(groups.count == 1 ? Int(groups[0]) : postings.bytes.count), width: 4)
                    }
                    previous = bytes
                }
                try insert.bind([.text(block.first!.text), .blob(termBytes.bytes), .blob(postings.bytes)])
                try insert.run()
                start += LocatorIndexFormat.blockSize
            }
        }

        _ = try db.query(
            "INSERT INTO word_list (text, ends, counts, groups) VALUES (?, ?, ?, ?)",
            [.blob(flat.text.bytes), .blob(flat.ends.bytes), .blob(flat.counts.bytes), .blob(flat.groups.bytes)])

        // Unions for short number prefixes that reach many terms.
        let numberTerms = terms.filter(\.isNumber)
        let insertPrefix = try db.prepare("INSERT INTO number_prefixes (prefix, postings) VALUES (?, ?)")
        for digits in 1...LocatorIndexFormat.prefixDigits {
            var byPrefix: [[UInt32]: [SearchToken]] = [:]
            for term in numberTerms where term.scalars.count >= digits { byPrefix[Array(term.scalars.prefix(digits)), default: []].append(term) }
            for prefix in byPrefix.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let under = byPrefix[prefix]!
                guard under.count > LocatorIndexFormat.prefixTerms else { continue }
                var union = Set<UInt32>()
                for term in under { union.formUnion(termGroups[term]!) }
                try insertPrefix.bind([.text(SearchToken(scalars: prefix, isNumber: true).text), .blob(Postings.encode(union.sorted()))])
                try insertPrefix.run()
            }
        }

        // Groups, in chunks.
        let chunk = LocatorIndexFormat.chunkSize
        let insertGroups = try db.prepare("INSERT INTO groups (chunk, data) VALUES (?, ?)")
        var firstEntry = 0
        for c in stride(from: 0, to: groupCounts.count, by: chunk) {
            var w = IndexByteWriter()
            w.varint(firstEntry)
            for g in c..<min(groupCounts.count, c + chunk) {
                w.varint(groupCounts[g])
                w.bytes.append(groupTokenCounts[g])
                if hasRank {
                    // The group's best rank, so ranking groups never reads their entries.
                    let ranks = order[firstEntry..<firstEntry + groupCounts[g]].compactMap { entries[$0].rank }.filter { !$0.isNaN }
                    w.float32(ranks.max().map { Float($0) } ?? .nan)
                }
                firstEntry += groupCounts[g]
            }
            try insertGroups.bind([.integer(Int64(c / chunk)), .blob(w.bytes)])
            try insertGroups.run()
        }

        // Entries, in group order.
        var extent = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for i in order {
            guard let x = entries[i].longitude, let y = entries[i].latitude, x.isFinite, y.isFinite else { continue }
            extent = (min(extent.minX, x), min(extent.minY, y), max(extent.maxX, x), max(extent.maxY, y))
        }
        if !extent.minX.isFinite { extent = (0, 0, 0, 0) }
        let fidWidth = order.allSatisfy({ (0...Int64(UInt32.max)).contains(entries[$0].fid) }) ? 4 : 8
        let insertEntries = try db.prepare("INSERT INTO entries (chunk, fids, positions, ranks) VALUES (?, ?, ?, ?)")
        for c in stride(from: 0, to: order.count, by: chunk) {
            var fids = IndexByteWriter(), positions = IndexByteWriter(), ranks = IndexByteWriter()
            for i in order[c..<min(order.count, c + chunk)] {
                let e = entries[i]
                fids.fixed(UInt64(bitPattern: e.fid), width: fidWidth)
                if let x = e.longitude, let y = e.latitude, x.isFinite, y.isFinite {
                    positions.uint16(LocatorIndexFormat.quantize(x, extent.minX, extent.maxX))
                    positions.uint16(LocatorIndexFormat.quantize(y, extent.minY, extent.maxY))
                } else {
                    positions.uint16(LocatorIndexFormat.noPosition)
                    positions.uint16(LocatorIndexFormat.noPosition)
                }
                if hasRank { ranks.float32(e.rank.map { Float($0) } ?? .nan) }
            }
            try insertEntries.bind([.integer(Int64(c / chunk)), .blob(fids.bytes), .blob(positions.bytes), hasRank ? .blob(ranks.bytes) : .null])
            try insertEntries.run()
        }

        let meta: [(String, SQLiteValue)] = [
            ("format", .text(LocatorIndexFormat.name)), ("version", .integer(Int64(LocatorIndexFormat.version))),
            ("entries", .integer(Int64(order.count))), ("groups", .integer(Int64(groupCounts.count))),
            ("words", .integer(Int64(words))), ("numbers", .integer(Int64(numbers))),
            ("fid_width", .integer(Int64(fidWidth))), ("has_rank", .integer(hasRank ? 1 : 0)),
            ("extent", .text([extent.minX, extent.minY, extent.maxX, extent.maxY].map { "\($0)" }.joined(separator: ","))),
            ("skipped", .integer(Int64(skipped))),
        ]
        let insertMeta = try db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)")
        for (k, v) in meta {
            try insertMeta.bind([.text(k), v])
            try insertMeta.run()
        }
        try db.execute("COMMIT")
        try db.close()
        guard rename(temporary, path) == 0 else {
            throw LocatorError(kind: .io(errno: errno), path: path, message: "cannot write the index: " + FileSystem.errorMessage())
        }
        ok = true
        return LocatorIndexSummary(entries: order.count, groups: groupCounts.count, words: words, numbers: numbers, skipped: skipped, textBytes: textBytes)
    }
}
