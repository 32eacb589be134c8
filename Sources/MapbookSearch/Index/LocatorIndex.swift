#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// A damaged or foreign locator file: the file (as `package.mmpk[entry]` inside a package)
/// and what is wrong. The package format's error, so callers handle one type.
public typealias LocatorError = PackageFormatError

/// A term found in the index, with how to reach its groups.
struct IndexTerm {
    var token: SearchToken
    var groupCount: Int
    /// The group, when the term has one.
    var single: UInt32?
    /// Where its posting list is: the table's block (an index into the block list of
    /// `words` or `numbers`) and the byte range in that block's postings.
    var isNumber: Bool
    var block: Int
    var range: Range<Int>
    /// A stored union of groups (a short number prefix), read instead of a posting block.
    var union: [UInt8]? = nil
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

    private var wordList: WordList?
    /// The first term of every block of `words` and `numbers`, in order.
    private var wordBlocks: [String] = []
    private var numberBlocks: [String]?
    private var numberBlockTerms: [Int: [IndexTerm]] = [:]
    private var postingBlocks: [Int: [UInt8]] = [:]
    private var entryChunks: [Int: EntryChunk] = [:]
    private let selectNumberTerms: SQLiteStatement
    private let selectPostings: [Bool: SQLiteStatement]

    /// Every group's first entry (and the end), distinct tokens and best rank: loaded on
    /// first use, a few bytes a group.
    private var groupFirst: [Int32] = []
    private var groupTokens: [UInt8] = []
    private var groupRanks: [Float] = []
    /// Each entry chunk's quantised positions (x, y per entry), loaded as distances need them.
    private var positionChunks: [[UInt16]] = []
    private var selectPositions: SQLiteStatement?

    struct EntryChunk {
        var fids: [UInt8]
        var ranks: [UInt8]?
    }

    /// Opens an index file.
    public convenience init(path: String) throws {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(readOnlyPath: path) } catch { throw LocatorError(kind: .sqlite(error.kind), path: path, message: error.message) }
        try self.init(database: db, path: path)
    }

    /// Opens an index stored in a package, without extracting it.
    public convenience init(range: ByteRange, displayPath: String) throws {
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(range: range, displayPath: displayPath) } catch { throw LocatorError(kind: .sqlite(error.kind), path: displayPath, message: error.message) }
        try self.init(database: db, path: displayPath)
    }

    init(database: SQLiteDatabase, path: String) throws {
        self.database = database
        self.path = path
        func fail(_ kind: LocatorError.Kind, _ message: String) -> LocatorError { LocatorError(kind: kind, path: path, message: message) }
        var meta: [String: SQLiteValue] = [:]
        do {
            guard try database.tableExists("meta") else { throw fail(.wrongFormat, "not a Mapbook locator index (no meta table)") }
            for row in try database.query("SELECT key, value FROM meta") {
                if let k = row[0].text { meta[k] = row[1] }
            }
        } catch let e as SQLiteError {
            throw fail(.sqlite(e.kind), e.message)
        }
        guard meta["format"]?.text == LocatorIndexFormat.name else { throw fail(.wrongFormat, "not a Mapbook locator index (format is '\(meta["format"]?.text ?? "missing")')") }
        guard let version = meta["version"]?.int64, version == Int64(LocatorIndexFormat.version) else {
            throw fail(.unsupportedVersion, "locator index version \(meta["version"]?.text ?? "?") is not supported by this mapbook (it reads version \(LocatorIndexFormat.version)); rebuild the package")
        }
        guard let entries = meta["entries"]?.int64, let groups = meta["groups"]?.int64, entries >= groups, groups >= 0,
            entries < Int64(Int32.max), let width = meta["fid_width"]?.int64, width == 4 || width == 8
        else { throw fail(.damaged, "the index's meta table is damaged") }
        let box = (meta["extent"]?.text ?? "").split(separator: ",").compactMap { Double($0) }
        guard box.count == 4, box.allSatisfy(\.isFinite) else { throw fail(.damaged, "the index's extent is damaged") }
        entryCount = Int(entries)
        groupCount = Int(groups)
        fidWidth = Int(width)
        hasRank = meta["has_rank"]?.int64 == 1
        extent = (box[0], box[1], box[2], box[3])
        do {
            selectNumberTerms = try database.prepare("SELECT terms FROM numbers WHERE first = ?")
            selectPostings = [
                false: try database.prepare("SELECT postings FROM words WHERE first = ?"),
                true: try database.prepare("SELECT postings FROM numbers WHERE first = ?"),
            ]
        } catch {
            throw fail(.sqlite(error.kind), error.message)
        }
    }

    // MARK: - Terms

    /// Every letter term, sorted: loaded once, from `word_list` when the index has it, else
    /// decoded from the blocks of `words`.
    func words() throws -> WordList {
        if let wordList { return wordList }
        var list = WordList()
        do {
            if let flat = try flatWords() {
                list = flat
            } else {
                wordBlocks = try decodeWords(into: &list)
            }
        } catch let e as SQLiteError {
            throw LocatorError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        // The typo walk treats the sorted terms as a trie: out of order or repeated terms
        // (a damaged file) would break it.
        guard list.isStrictlySorted else { throw LocatorError(kind: .damaged, path: path, message: "the words table is damaged (terms out of order)") }
        wordList = list
        return list
    }

    /// The word terms from `word_list`, with every block's first term (for its postings);
    /// nil when the index predates that table.
    private func flatWords() throws -> WordList? {
        guard try database.tableExists("word_list") else { return nil }
        let damaged = LocatorError(kind: .damaged, path: path, message: "the word_list table is damaged")
        let statement = try database.prepare("SELECT text, ends, counts, groups FROM word_list")
        guard try statement.step(), case .blob(let text) = statement.column(0), case .blob(let ends) = statement.column(1),
            case .blob(let counts) = statement.column(2), case .blob(let groups) = statement.column(3),
            let list = WordList(text: text, ends: ends, counts: counts, groups: groups, blockSize: LocatorIndexFormat.blockSize, groupCount: groupCount)
        else { throw damaged }
        wordBlocks = stride(from: 0, to: list.count, by: LocatorIndexFormat.blockSize).map { list.term($0).token.text }
        return list
    }

    /// The word terms decoded from the blocks of `words` (indexes without `word_list`); returns
    /// every block's first term.
    private func decodeWords(into list: inout WordList) throws -> [String] {
        let damaged = LocatorError(kind: .damaged, path: path, message: "a block of the words table is damaged")
        let statement = try database.prepare("SELECT first, terms FROM words ORDER BY first")
        var firsts: [String] = []
        while try statement.step() {
            guard case .text(let first) = statement.column(0), case .blob(let bytes) = statement.column(1) else { throw damaged }
            let block = firsts.count
            try decodeBlock(bytes, table: "words") { term, count, single, range in
                guard list.append(utf8: term, groupCount: count, single: single, block: block, postings: range) else { throw damaged }
            }
            firsts.append(first)
        }
        return firsts
    }

    /// Whether the blocks of `words` (what readers older than `word_list` search) hold the
    /// terms `list` was loaded with: a check, slow, for validation.
    private func checkBlocksAgree(with list: WordList) throws {
        var blocks = WordList()
        let firsts: [String]
        do {
            firsts = try decodeWords(into: &blocks)
        } catch let e as SQLiteError {
            throw LocatorError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        let agree = firsts == wordBlocks && blocks.count == list.count && (0..<list.count).allSatisfy { i in
            let a = blocks.term(i), b = list.term(i)
            return a.token.scalars == b.token.scalars && a.groupCount == b.groupCount && a.single == b.single && a.block == b.block && a.range == b.range
        }
        guard agree else { throw LocatorError(kind: .damaged, path: path, message: "the word_list table and the words table hold different terms") }
    }

    private var numberPrefixTable: Bool?

    /// Whether the index stores number-prefix unions: looked up once, not per query.
    private func hasNumberPrefixes() throws -> Bool {
        if let numberPrefixTable { return numberPrefixTable }
        do {
            let exists = try database.tableExists("number_prefixes")
            numberPrefixTable = exists
            return exists
        } catch {
            throw LocatorError(kind: .sqlite(error.kind), path: path, message: error.message)
        }
    }

    /// The stored union of the groups under a short number prefix, as a term standing for
    /// all the longer ones, or nil when none is stored (few terms there, or an older index).
    func numberPrefixUnion(_ prefix: SearchToken) throws -> IndexTerm? {
        guard prefix.scalars.count <= LocatorIndexFormat.prefixDigits, try hasNumberPrefixes() else { return nil }
        guard case .blob(let bytes)? = try? database.scalar("SELECT postings FROM number_prefixes WHERE prefix = ?", [.text(prefix.text)]) else { return nil }
        var count = 0
        guard Postings.forEach(bytes[...], groupCount: groupCount, { _ in count += 1 }) else {
            throw LocatorError(kind: .damaged, path: path, message: "the stored groups of number prefix '\(prefix.text)' are damaged")
        }
        return IndexTerm(token: prefix, groupCount: count, single: nil, isNumber: true, block: -1, range: 0..<bytes.count, union: bytes)
    }

    /// The number terms that start with `prefix` (all digits), or equal it when `exact`.
    /// Blocks are decoded once and kept.
    func numbers(prefix: SearchToken, exact: Bool) throws -> [IndexTerm] {
        let blocks = try numberBlockList()
        let key = Array(prefix.text.utf8)
        // Digits sort before ':', so every term starting with the prefix is below prefix + ":".
        let end = key + [UInt8(ascii: ":")]
        func firstBlock(atLeast bound: [UInt8]) -> Int {
            var lo = 0, hi = blocks.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Array(blocks[mid].utf8).lexicographicallyPrecedes(bound) { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        // The block holding the prefix may start before it.
        var start = firstBlock(atLeast: key)
        if start == blocks.count || blocks[start].utf8.elementsEqual(key) == false { start = max(0, start - 1) }
        // An exact term sorts before every longer one, so it is in that first block.
        let stop = exact ? min(start + 1, blocks.count) : firstBlock(atLeast: end)
        var out: [IndexTerm] = []
        var b = start
        while b < stop {
            for term in try numberBlock(b) where term.token.scalars.starts(with: prefix.scalars) {
                if !exact || term.token.scalars.count == prefix.scalars.count { out.append(term) }
            }
            b += 1
        }
        return out
    }

    /// The first term of every block of the numbers table, read once.
    private func numberBlockList() throws -> [String] {
        if let numberBlocks { return numberBlocks }
        do {
            let list = try database.query("SELECT first FROM numbers ORDER BY first").compactMap { $0[0].text }
            numberBlocks = list
            return list
        } catch {
            throw LocatorError(kind: .sqlite(error.kind), path: path, message: error.message)
        }
    }

    private func numberBlock(_ b: Int) throws -> [IndexTerm] {
        if let cached = numberBlockTerms[b] { return cached }
        guard let first = numberBlocks?[b] else { return [] }
        var out: [IndexTerm] = []
        do {
            try selectNumberTerms.bind([.text(first)])
            defer { selectNumberTerms.reset() }
            guard try selectNumberTerms.step(), case .blob(let bytes) = selectNumberTerms.column(0) else {
                throw LocatorError(kind: .damaged, path: path, message: "a block of the numbers table is damaged")
            }
            try decodeBlock(bytes, table: "numbers") { term, count, single, range in
                let scalars = String(decoding: term, as: UTF8.self).unicodeScalars.map(\.value)
                out.append(IndexTerm(token: SearchToken(scalars: scalars, isNumber: true), groupCount: count, single: single, isNumber: true, block: b, range: range))
            }
        } catch let e as SQLiteError {
            throw LocatorError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        numberBlockTerms[b] = out
        return out
    }

    /// Decodes a block of front-coded terms (the length shared with the term before, the rest,
    /// the group count, then the one group or the posting list's length), calling `body` with
    /// each term's UTF-8 (one buffer, changed for the next term), its group count, its one group
    /// and where its posting list lies in the block's postings.
    private func decodeBlock(
        _ bytes: [UInt8], table: String, _ body: (_ term: UnsafeBufferPointer<UInt8>, _ groupCount: Int, _ single: UInt32?, _ postings: Range<Int>) throws -> Void
    ) throws {
        var r = IndexByteReader(bytes)
        var term: [UInt8] = []
        var postingOffset = 0
        func damaged() -> LocatorError { LocatorError(kind: .damaged, path: path, message: "a block of the \(table) table is damaged") }
        while !r.atEnd {
            guard let shared = r.int(), let length = r.int(), shared <= term.count, let rest = r.take(length),
                let count = r.int(), count >= 1, count <= groupCount
            else { throw damaged() }
            term.removeLast(term.count - shared)
            term.append(contentsOf: rest)
            if count == 1 {
                guard let g = r.varint(), g < UInt64(groupCount) else { throw damaged() }
                try term.withUnsafeBufferPointer { try body($0, 1, UInt32(g), 0..<0) }
            } else {
                guard let n = r.int(), n <= Int(Int32.max) else { throw damaged() }
                try term.withUnsafeBufferPointer { try body($0, count, nil, postingOffset..<postingOffset + n) }
                postingOffset += n
            }
        }
    }

    /// Calls `body` with every group of `term`.
    func forEachGroup(of term: IndexTerm, _ body: (UInt32) -> Void) throws {
        if let g = term.single {
            body(g)
            return
        }
        if let union = term.union {
            guard Postings.forEach(union[...], groupCount: groupCount, body) else {
                throw LocatorError(kind: .damaged, path: path, message: "the stored groups of number prefix '\(term.token.text)' are damaged")
            }
            return
        }
        let key = term.block * 2 + (term.isNumber ? 1 : 0)
        var bytes = postingBlocks[key]
        if bytes == nil {
            let statement = selectPostings[term.isNumber]!
            let first = term.isNumber ? numberBlocks?[term.block] : (wordBlocks.indices.contains(term.block) ? wordBlocks[term.block] : nil)
            do {
                try statement.bind([.text(first ?? "")])
                if try statement.step(), case .blob(let b) = statement.column(0) { bytes = b }
                statement.reset()
            } catch {
                throw LocatorError(kind: .sqlite(error.kind), path: path, message: error.message)
            }
            postingBlocks[key] = bytes ?? []
        }
        guard let bytes, term.range.upperBound <= bytes.count,
            Postings.forEach(bytes[term.range], groupCount: groupCount, body)
        else { throw LocatorError(kind: .damaged, path: path, message: "the posting list of '\(term.token.text)' is damaged") }
    }

    // MARK: - Groups and entries

    /// Reads the groups table into flat arrays, checking that it accounts for every entry.
    private func loadGroups() throws {
        guard groupFirst.isEmpty else { return }
        func fail(_ c: Int) -> LocatorError { LocatorError(kind: .damaged, path: path, message: "group chunk \(c) is damaged") }
        var first: [Int32] = [], tokens: [UInt8] = [], ranks: [Float] = []
        first.reserveCapacity(groupCount + 1)
        tokens.reserveCapacity(groupCount)
        if hasRank { ranks.reserveCapacity(groupCount) }
        var entry = 0
        do {
            let statement = try database.prepare("SELECT chunk, data FROM groups ORDER BY chunk")
            var expected = 0
            while try statement.step() {
                guard statement.column(0).int64 == Int64(expected), case .blob(let bytes) = statement.column(1) else { throw fail(expected) }
                var r = IndexByteReader(bytes)
                guard r.int() == entry else { throw fail(expected) }
                let n = min(LocatorIndexFormat.chunkSize, groupCount - expected * LocatorIndexFormat.chunkSize)
                for _ in 0..<max(0, n) {
                    guard let count = r.int(), count >= 1, let t = r.byte(), entry + count <= entryCount else { throw fail(expected) }
                    first.append(Int32(entry))
                    tokens.append(t)
                    if hasRank {
                        guard let bits = r.take(4) else { throw fail(expected) }
                        ranks.append(Float(bitPattern: bits.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
                    }
                    entry += count
                }
                expected += 1
            }
        } catch let e as SQLiteError {
            throw LocatorError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        guard first.count == groupCount, entry == entryCount else {
            throw LocatorError(kind: .damaged, path: path, message: "the groups table is damaged: it covers \(first.count) of \(groupCount) groups and \(entry) of \(entryCount) entries")
        }
        first.append(Int32(entry))
        groupFirst = first
        groupTokens = tokens
        groupRanks = ranks
    }

    /// The groups as flat arrays (read once), for loops over thousands of candidates.
    struct GroupTable {
        /// Where each group's entries start, and one more: the entry count.
        let first: [Int32]
        /// Each group's number of distinct tokens.
        let tokens: [UInt8]
        /// Each group's best rank (NaN: none); empty without a rank field.
        let ranks: [Float]

        @inline(__always)
        func rank(_ g: Int) -> Float? {
            guard g < ranks.count else { return nil }
            let r = ranks[g]
            return r.isNaN ? nil : r
        }
    }

    func groupTable() throws -> GroupTable {
        try loadGroups()
        return GroupTable(first: groupFirst, tokens: groupTokens, ranks: groupRanks)
    }

    /// The entries of a group and its number of distinct tokens.
    func group(_ g: UInt32) throws -> (entries: Range<Int>, tokens: Int) {
        try loadGroups()
        let i = Int(g)
        guard i < groupCount else { throw LocatorError(kind: .damaged, path: path, message: "group \(g) is missing") }
        return (Int(groupFirst[i])..<Int(groupFirst[i + 1]), Int(groupTokens[i]))
    }

    /// The best rank among a group's features (nil without a rank field or a rank).
    func groupRank(_ g: UInt32) throws -> Double? {
        try loadGroups()
        guard hasRank, Int(g) < groupRanks.count else { return nil }
        let r = groupRanks[Int(g)]
        return r.isNaN ? nil : Double(r)
    }

    private func entryChunk(_ c: Int) throws -> EntryChunk {
        if let chunk = entryChunks[c] { return chunk }
        func fail() -> LocatorError { LocatorError(kind: .damaged, path: path, message: "entry chunk \(c) is damaged") }
        guard let row = try? database.query("SELECT fids, ranks FROM entries WHERE chunk = ?", [.integer(Int64(c))]).first,
            case .blob(let fids) = row[0]
        else { throw fail() }
        let n = min(LocatorIndexFormat.chunkSize, entryCount - c * LocatorIndexFormat.chunkSize)
        var ranks: [UInt8]?
        if case .blob(let r) = row[1] { ranks = r }
        guard fids.count == n * fidWidth, !hasRank || ranks?.count == n * 4 else { throw fail() }
        let chunk = EntryChunk(fids: fids, ranks: hasRank ? ranks : nil)
        entryChunks[c] = chunk
        return chunk
    }

    /// The quantised positions (x, y per entry) of entry chunk `c`, read when first needed:
    /// a query measures distances to the few entries that can still make its list.
    fileprivate func positionChunk(_ c: Int) throws -> [UInt16] {
        if positionChunks.isEmpty {
            positionChunks = Array(repeating: [], count: (entryCount + LocatorIndexFormat.chunkSize - 1) / LocatorIndexFormat.chunkSize)
        }
        guard positionChunks.indices.contains(c) else { throw LocatorError(kind: .damaged, path: path, message: "entry chunk \(c) is missing") }
        if !positionChunks[c].isEmpty { return positionChunks[c] }
        let n = min(LocatorIndexFormat.chunkSize, entryCount - c * LocatorIndexFormat.chunkSize)
        var table: [UInt16] = []
        do {
            if selectPositions == nil { selectPositions = try database.prepare("SELECT positions FROM entries WHERE chunk = ?") }
            let statement = selectPositions!
            try statement.bind([.integer(Int64(c))])
            defer { statement.reset() }
            guard try statement.step(), case .blob(let bytes) = statement.column(0), bytes.count == 4 * n else {
                throw LocatorError(kind: .damaged, path: path, message: "entry chunk \(c) is damaged")
            }
            table = bytes.withUnsafeBytes { raw in (0..<2 * n).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) } }
        } catch let e as SQLiteError {
            throw LocatorError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        positionChunks[c] = table
        return table
    }

    /// Reads entries' quantised positions, keeping the chunk read last: a query visits its
    /// candidates in entry order, so most reads stay in one chunk (a broad prefix measures
    /// distances to tens of thousands of tied groups).
    struct PositionReader {
        let index: LocatorIndex
        private var chunk = -1
        private var positions: [UInt16] = []

        init(_ index: LocatorIndex) { self.index = index }

        /// Entry `e`'s position; nil when it has no location.
        @inline(__always)
        mutating func position(_ e: Int) throws -> (x: UInt16, y: UInt16)? {
            guard e >= 0, e < index.entryCount else { throw LocatorError(kind: .damaged, path: index.path, message: "entry \(e) is missing") }
            let c = e / LocatorIndexFormat.chunkSize
            if c != chunk {
                positions = try index.positionChunk(c)
                chunk = c
            }
            let k = 2 * (e - c * LocatorIndexFormat.chunkSize)
            let x = positions[k], y = positions[k + 1]
            return x == LocatorIndexFormat.noPosition && y == LocatorIndexFormat.noPosition ? nil : (x, y)
        }

        /// The least squared distance from `meter`'s place to the entries that have a location.
        mutating func nearest(_ entries: Range<Int>, _ meter: DistanceMeter) throws -> Double? {
            var nearest: Double?
            for e in entries {
                // NaN (no place to measure from) is never nearer: no distance, as before.
                if let p = try position(e) {
                    let d = meter.squared(p.x, p.y)
                    if d < (nearest ?? .infinity) { nearest = d }
                }
            }
            return nearest
        }
    }

    /// Measures distances from one place to entries, on the quantised positions: metres,
    /// flat around the place (exact enough to order results by nearness).
    struct DistanceMeter {
        let x0: Double, y0: Double, sx: Double, sy: Double

        init(near: (longitude: Double, latitude: Double), extent: (minX: Double, minY: Double, maxX: Double, maxY: Double)) {
            let metres = 111_194.93
            let stepX = (extent.maxX - extent.minX) / 65534, stepY = (extent.maxY - extent.minY) / 65534
            sx = stepX * metres * cos(near.latitude * .pi / 180)
            sy = stepY * metres
            x0 = stepX > 0 ? (near.longitude - extent.minX) / stepX : 0
            y0 = stepY > 0 ? (near.latitude - extent.minY) / stepY : 0
        }

        /// The squared distance to a quantised position.
        @inline(__always)
        func squared(_ qx: UInt16, _ qy: UInt16) -> Double {
            let dx = (Double(qx) - x0) * sx, dy = (Double(qy) - y0) * sy
            return dx * dx + dy * dy
        }
    }

    func distanceMeter(near: (longitude: Double, latitude: Double)) -> DistanceMeter {
        DistanceMeter(near: near, extent: extent)
    }

    /// An entry's rank (nil without a rank field or a value).
    func entryRank(_ e: Int) throws -> Double? {
        let c = try entryChunk(e / LocatorIndexFormat.chunkSize)
        guard let ranks = c.ranks, let bits = FixedWidth.read(ranks, at: e % LocatorIndexFormat.chunkSize, width: 4) else { return nil }
        let f = Float(bitPattern: UInt32(bits))
        return f.isNaN ? nil : Double(f)
    }

    /// An entry's feature id (without reading positions or ranks).
    func fid(_ e: Int) throws -> Int64 {
        let c = try entryChunk(e / LocatorIndexFormat.chunkSize)
        return Int64(bitPattern: FixedWidth.read(c.fids, at: e % LocatorIndexFormat.chunkSize, width: fidWidth) ?? 0)
    }

    /// An entry's feature id, approximate location (WGS84) and rank.
    func entry(_ e: Int) throws -> (fid: Int64, longitude: Double?, latitude: Double?, rank: Double?) {
        let c = try entryChunk(e / LocatorIndexFormat.chunkSize)
        let i = e % LocatorIndexFormat.chunkSize
        let fid = Int64(bitPattern: FixedWidth.read(c.fids, at: i, width: fidWidth) ?? 0)
        var lon: Double?, lat: Double?
        var reader = PositionReader(self)
        if let p = try reader.position(e) {
            lon = LocatorIndexFormat.dequantize(p.x, extent.minX, extent.maxX)
            lat = LocatorIndexFormat.dequantize(p.y, extent.minY, extent.maxY)
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
        for e in 0..<entryCount { fids.append(try fid(e)) }
        var ranges: [Range<Int>] = []
        for g in 0..<groupCount { ranges.append(try group(UInt32(g)).entries) }
        var terms = [[String]](repeating: [], count: groupCount)
        let words = try words()
        try checkBlocksAgree(with: words)
        var all = (0..<words.count).map(words.term)
        for b in try numberBlockList().indices { all += try numberBlock(b) }
        for term in all {
            let text = term.token.text
            try forEachGroup(of: term) { terms[Int($0)].append(text) }
        }
        return (fids, ranges, terms)
    }
}
