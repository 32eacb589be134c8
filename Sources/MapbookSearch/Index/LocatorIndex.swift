import MapbookPackage

/// A damaged or foreign locator file: the file (as `package.mmpk[entry]` inside a package)
/// and what is wrong. The package format's error, so callers handle one type.
public typealias LocatorError = PackageFormatError

/// A term found in the index, with how to reach its groups.
struct IndexTerm {
    var token: SearchToken
    var groupCount: Int
    /// The group, when the term has one.
    var single: UInt32?
    /// Where its posting list is: the table, the block's first term and the byte range.
    var table: String
    var block: String
    var range: Range<Int>
}

/// A locator's search index (`LocatorIndexFormat`), opened read-only, in place.
///
/// Word terms are loaded into memory on first use (typo matching walks them all); number
/// terms, postings, groups and entries are read when a query needs them and kept. Use one
/// instance from one task at a time.
public final class LocatorIndex {
    let database: SQLiteDatabase
    public let path: String
    public let entryCount: Int
    public let groupCount: Int
    public let hasRank: Bool
    let fidWidth: Int
    let extent: (minX: Double, minY: Double, maxX: Double, maxY: Double)

    private var wordTerms: [IndexTerm]?
    private var wordScalars: [[UInt32]] = []
    private var postingBlocks: [String: [UInt8]] = [:]
    private var groupChunks: [Int: GroupChunk] = [:]
    private var entryChunks: [Int: EntryChunk] = [:]
    private let selectNumberBlocks: SQLiteStatement
    private let selectPostings: [String: SQLiteStatement]

    struct GroupChunk {
        var firstEntry: [Int]
        var count: [Int]
        var tokens: [UInt8]
    }

    struct EntryChunk {
        var fids: [UInt8]
        var positions: [UInt8]
        var ranks: [UInt8]?
    }

    /// Opens an index file.
    public convenience init(path: String) throws {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(readOnlyPath: path) } catch { throw LocatorError(path: path, message: error.message) }
        try self.init(database: db, path: path)
    }

    /// Opens an index stored in a package, without extracting it.
    public convenience init(range: ByteRange, displayPath: String) throws {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(range: range, displayPath: displayPath) } catch { throw LocatorError(path: displayPath, message: error.message) }
        try self.init(database: db, path: displayPath)
    }

    init(database: SQLiteDatabase, path: String) throws {
        self.database = database
        self.path = path
        func fail(_ message: String) -> LocatorError { LocatorError(path: path, message: message) }
        var meta: [String: SQLiteValue] = [:]
        do {
            guard try database.tableExists("meta") else { throw fail("not a Mapbook locator index (no meta table)") }
            for row in try database.query("SELECT key, value FROM meta") {
                if let k = row[0].text { meta[k] = row[1] }
            }
        } catch let e as SQLiteError {
            throw fail(e.message)
        }
        guard meta["format"]?.text == LocatorIndexFormat.name else { throw fail("not a Mapbook locator index (format is '\(meta["format"]?.text ?? "missing")')") }
        guard let version = meta["version"]?.int64, version == Int64(LocatorIndexFormat.version) else {
            throw fail("locator index version \(meta["version"]?.text ?? "?") is not supported by this mapbook (it reads version \(LocatorIndexFormat.version)); rebuild the package")
        }
        guard let entries = meta["entries"]?.int64, let groups = meta["groups"]?.int64, entries >= groups, groups >= 0,
            entries < Int64(Int32.max), let width = meta["fid_width"]?.int64, width == 4 || width == 8
        else { throw fail("the index's meta table is damaged") }
        let box = (meta["extent"]?.text ?? "").split(separator: ",").compactMap { Double($0) }
        guard box.count == 4, box.allSatisfy(\.isFinite) else { throw fail("the index's extent is damaged") }
        entryCount = Int(entries)
        groupCount = Int(groups)
        fidWidth = Int(width)
        hasRank = meta["has_rank"]?.int64 == 1
        extent = (box[0], box[1], box[2], box[3])
        do {
            selectNumberBlocks = try database.prepare(
                "SELECT first, terms, postings FROM numbers WHERE first >= coalesce((SELECT max(first) FROM numbers WHERE first <= ?1), '') AND first < ?2 ORDER BY first")
            selectPostings = [
                "words": try database.prepare("SELECT postings FROM words WHERE first = ?"),
                "numbers": try database.prepare("SELECT postings FROM numbers WHERE first = ?"),
            ]
        } catch {
            throw fail(error.message)
        }
    }

    // MARK: - Terms

    /// Every letter term, sorted: loaded once.
    func words() throws -> [IndexTerm] {
        if let wordTerms { return wordTerms }
        var out: [IndexTerm] = []
        do {
            let statement = try database.prepare("SELECT first, terms FROM words ORDER BY first")
            while try statement.step() {
                guard case .text(let first) = statement.column(0), case .blob(let bytes) = statement.column(1) else {
                    throw LocatorError(path: path, message: "a block of the words table is damaged")
                }
                try decodeBlock(bytes, table: "words", block: first, into: &out)
            }
        } catch let e as SQLiteError {
            throw LocatorError(path: path, message: e.message)
        }
        // The typo walk treats the sorted terms as a trie: out of order or repeated terms
        // (a damaged file) would break it.
        let scalars = out.map(\.token.scalars)
        for i in scalars.indices.dropFirst() where !scalars[i - 1].lexicographicallyPrecedes(scalars[i]) {
            throw LocatorError(path: path, message: "the words table is damaged (terms out of order)")
        }
        wordTerms = out
        wordScalars = scalars
        return out
    }

    /// The letter terms' scalars, in the same order as `words()`.
    func wordKeys() throws -> [[UInt32]] {
        _ = try words()
        return wordScalars
    }

    /// The number terms that start with `prefix` (all digits), or equal it when `exact`.
    func numbers(prefix: SearchToken, exact: Bool) throws -> [IndexTerm] {
        let key = prefix.text
        var out: [IndexTerm] = []
        do {
            // Digits sort before ':', so every term starting with the prefix is below prefix + ":".
            try selectNumberBlocks.bind([.text(key), .text(key + ":")])
            while try selectNumberBlocks.step() {
                guard case .text(let first) = selectNumberBlocks.column(0), case .blob(let bytes) = selectNumberBlocks.column(1) else {
                    throw LocatorError(path: path, message: "a block of the numbers table is damaged")
                }
                var block: [IndexTerm] = []
                try decodeBlock(bytes, table: "numbers", block: first, into: &block)
                for term in block where term.token.scalars.starts(with: prefix.scalars) {
                    if !exact || term.token.scalars.count == prefix.scalars.count { out.append(term) }
                }
            }
            selectNumberBlocks.reset()
        } catch let e as SQLiteError {
            throw LocatorError(path: path, message: e.message)
        }
        return out
    }

    private func decodeBlock(_ bytes: [UInt8], table: String, block: String, into out: inout [IndexTerm]) throws {
        var r = IndexByteReader(bytes)
        var previous: [UInt8] = []
        var postingOffset = 0
        let isNumber = table == "numbers"
        while !r.atEnd {
            guard let shared = r.int(), let length = r.int(), shared <= previous.count, let rest = r.take(length),
                let count = r.int(), count >= 1, count <= groupCount
            else { throw LocatorError(path: path, message: "a block of the \(table) table is damaged") }
            let term = Array(previous[..<shared]) + rest
            var entry = IndexTerm(
                token: SearchToken(scalars: String(decoding: term, as: UTF8.self).unicodeScalars.map(\.value), isNumber: isNumber),
                groupCount: count, single: nil, table: table, block: block, range: 0..<0)
            if count == 1 {
                guard let g = r.varint(), g < UInt64(groupCount) else { throw LocatorError(path: path, message: "a block of the \(table) table is damaged") }
                entry.single = UInt32(g)
            } else {
                guard let n = r.int() else { throw LocatorError(path: path, message: "a block of the \(table) table is damaged") }
                entry.range = postingOffset..<postingOffset + n
                postingOffset += n
            }
            out.append(entry)
            previous = term
        }
    }

    /// Calls `body` with every group of `term`.
    func forEachGroup(of term: IndexTerm, _ body: (UInt32) -> Void) throws {
        if let g = term.single {
            body(g)
            return
        }
        let key = term.table + "\u{0}" + term.block
        var bytes = postingBlocks[key]
        if bytes == nil {
            let statement = selectPostings[term.table]!
            do {
                try statement.bind([.text(term.block)])
                if try statement.step(), case .blob(let b) = statement.column(0) { bytes = b }
                statement.reset()
            } catch {
                throw LocatorError(path: path, message: error.message)
            }
            postingBlocks[key] = bytes ?? []
        }
        guard let bytes, term.range.upperBound <= bytes.count,
            Postings.forEach(bytes[term.range], groupCount: groupCount, body)
        else { throw LocatorError(path: path, message: "the posting list of '\(term.token.text)' is damaged") }
    }

    // MARK: - Groups and entries

    private func groupChunk(_ c: Int) throws -> GroupChunk {
        if let chunk = groupChunks[c] { return chunk }
        func fail() -> LocatorError { LocatorError(path: path, message: "group chunk \(c) is damaged") }
        guard case .blob(let bytes)? = try? database.scalar("SELECT data FROM groups WHERE chunk = ?", [.integer(Int64(c))]) else { throw fail() }
        var r = IndexByteReader(bytes)
        guard var entry = r.int() else { throw fail() }
        let n = min(LocatorIndexFormat.chunkSize, groupCount - c * LocatorIndexFormat.chunkSize)
        var chunk = GroupChunk(firstEntry: [], count: [], tokens: [])
        chunk.firstEntry.reserveCapacity(n)
        for _ in 0..<max(0, n) {
            guard let count = r.int(), count >= 1, let tokens = r.byte(), entry + count <= entryCount else { throw fail() }
            chunk.firstEntry.append(entry)
            chunk.count.append(count)
            chunk.tokens.append(tokens)
            entry += count
        }
        groupChunks[c] = chunk
        return chunk
    }

    /// The entries of a group and its number of distinct tokens.
    func group(_ g: UInt32) throws -> (entries: Range<Int>, tokens: Int) {
        let c = try groupChunk(Int(g) / LocatorIndexFormat.chunkSize)
        let i = Int(g) % LocatorIndexFormat.chunkSize
        guard i < c.count.count else { throw LocatorError(path: path, message: "group \(g) is missing") }
        return (c.firstEntry[i]..<c.firstEntry[i] + c.count[i], Int(c.tokens[i]))
    }

    private func entryChunk(_ c: Int) throws -> EntryChunk {
        if let chunk = entryChunks[c] { return chunk }
        func fail() -> LocatorError { LocatorError(path: path, message: "entry chunk \(c) is damaged") }
        guard let row = try? database.query("SELECT fids, positions, ranks FROM entries WHERE chunk = ?", [.integer(Int64(c))]).first,
            case .blob(let fids) = row[0], case .blob(let positions) = row[1]
        else { throw fail() }
        let n = min(LocatorIndexFormat.chunkSize, entryCount - c * LocatorIndexFormat.chunkSize)
        var ranks: [UInt8]?
        if case .blob(let r) = row[2] { ranks = r }
        guard fids.count == n * fidWidth, positions.count == n * 4, !hasRank || ranks?.count == n * 4 else { throw fail() }
        let chunk = EntryChunk(fids: fids, positions: positions, ranks: hasRank ? ranks : nil)
        entryChunks[c] = chunk
        return chunk
    }

    /// An entry's feature id, approximate location (WGS84) and rank.
    func entry(_ e: Int) throws -> (fid: Int64, longitude: Double?, latitude: Double?, rank: Double?) {
        let c = try entryChunk(e / LocatorIndexFormat.chunkSize)
        let i = e % LocatorIndexFormat.chunkSize
        let fid = Int64(bitPattern: FixedWidth.read(c.fids, at: i, width: fidWidth) ?? 0)
        let qx = UInt16(FixedWidth.read(c.positions, at: 2 * i, width: 2) ?? 0xFFFF)
        let qy = UInt16(FixedWidth.read(c.positions, at: 2 * i + 1, width: 2) ?? 0xFFFF)
        var lon: Double?, lat: Double?
        if qx != LocatorIndexFormat.noPosition || qy != LocatorIndexFormat.noPosition {
            lon = LocatorIndexFormat.dequantize(qx, extent.minX, extent.maxX)
            lat = LocatorIndexFormat.dequantize(qy, extent.minY, extent.maxY)
        }
        var rank: Double?
        if let ranks = c.ranks, let bits = FixedWidth.read(ranks, at: i, width: 4) {
            let f = Float(bitPattern: UInt32(bits))
            if !f.isNaN { rank = Double(f) }
        }
        return (fid, lon, lat, rank)
    }

    /// Every group's tokens and entries' fids: for checking coverage (slow; reads everything).
    public func contents() throws -> (fids: [Int64], groupEntries: [Range<Int>], groupTerms: [[String]]) {
        var fids: [Int64] = []
        fids.reserveCapacity(entryCount)
        for e in 0..<entryCount { fids.append(try entry(e).fid) }
        var ranges: [Range<Int>] = []
        for g in 0..<groupCount { ranges.append(try group(UInt32(g)).entries) }
        var terms = [[String]](repeating: [], count: groupCount)
        var all = try words()
        do {
            let statement = try database.prepare("SELECT first, terms FROM numbers ORDER BY first")
            while try statement.step() {
                guard case .text(let first) = statement.column(0), case .blob(let bytes) = statement.column(1) else {
                    throw LocatorError(path: path, message: "a block of the numbers table is damaged")
                }
                try decodeBlock(bytes, table: "numbers", block: first, into: &all)
            }
        } catch let e as SQLiteError {
            throw LocatorError(path: path, message: e.message)
        }
        for term in all {
            let text = term.token.text
            try forEachGroup(of: term) { terms[Int($0)].append(text) }
        }
        return (fids, ranges, terms)
    }
}
