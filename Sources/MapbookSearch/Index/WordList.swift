/// An index's letter terms, sorted, in flat arrays: every term's scalars one after another,
/// and what `IndexTerm` says of each in arrays beside them. The typo walk reads the terms as a
/// trie; a term becomes an `IndexTerm` only when a query matches it. Loading them was most of
/// a locator's first query while it made an array (and an `IndexTerm`) per term (issue 36).
struct WordList: SortedTerms {
    private var scalars: [UInt32] = []
    /// Term `i` is `scalars[starts[i]..<starts[i + 1]]`.
    private var starts: [Int32] = [0]
    private var groupCounts: [Int32] = []
    /// The term's one group, or `noGroup` when it has a posting list.
    private var singles: [UInt32] = []
    private var blocks: [Int32] = []
    private var postings: [(lower: Int32, upper: Int32)] = []
    private static let noGroup = UInt32.max

    var count: Int { groupCounts.count }
    private(set) var longest = 0

    init() {}

    @inline(__always)
    func length(_ i: Int) -> Int { Int(starts[i + 1] - starts[i]) }

    @inline(__always)
    func scalar(_ i: Int, _ depth: Int) -> UInt32 { scalars[Int(starts[i]) + depth] }

    /// Term `i`'s scalars.
    private func slice(_ i: Int) -> ArraySlice<UInt32> { scalars[Int(starts[i])..<Int(starts[i + 1])] }

    /// Adds a term after the others: its UTF-8 (ASCII read as it is, the rest decoded), its
    /// groups, its block and where its posting list lies in that block. False when the arrays
    /// would pass 32-bit positions (a damaged count; no real vocabulary comes near).
    mutating func append(utf8 term: UnsafeBufferPointer<UInt8>, groupCount: Int, single: UInt32?, block: Int, postings range: Range<Int>) -> Bool {
        if !term.contains(where: { $0 >= 0x80 }) {
            for byte in term { scalars.append(UInt32(byte)) }
        } else {
            for scalar in String(decoding: term, as: UTF8.self).unicodeScalars { scalars.append(scalar.value) }
        }
        guard scalars.count < Int(Int32.max), block < Int(Int32.max), range.upperBound < Int(Int32.max) else { return false }
        longest = max(longest, scalars.count - Int(starts[starts.count - 1]))
        starts.append(Int32(scalars.count))
        groupCounts.append(Int32(clamping: groupCount))
        singles.append(single ?? Self.noGroup)
        blocks.append(Int32(block))
        postings.append((Int32(range.lowerBound), Int32(range.upperBound)))
        return true
    }

    /// The terms of an index's `word_list` (`LocatorIndexFormat`): `text` every term's UTF-8,
    /// `ends`, `counts` and `groups` one little-endian UInt32 per term. Nil when they do not
    /// fit together or a count or group is out of range (a damaged file).
    init?(text: [UInt8], ends: [UInt8], counts: [UInt8], groups: [UInt8], blockSize: Int, groupCount: Int) {
        let n = ends.count / 4
        guard ends.count == 4 * n, counts.count == 4 * n, groups.count == 4 * n, text.count < Int(Int32.max), blockSize > 0 else { return nil }
        let endWords = Self.words(ends), countWords = Self.words(counts), valueWords = Self.words(groups)
        // Folded terms are mostly ASCII: then a term's scalars are its bytes, widened at once.
        let ascii = !text.contains { $0 >= 0x80 }
        if ascii { scalars = text.map(UInt32.init) } else { scalars.reserveCapacity(text.count) }
        // Filled in one pass below, in place: this load is most of a locator's first query.
        starts = [Int32](repeating: 0, count: n + 1)
        groupCounts = [Int32](repeating: 0, count: n)
        singles = [UInt32](repeating: Self.noGroup, count: n)
        blocks = [Int32](repeating: 0, count: n)
        postings = [(lower: Int32, upper: Int32)](repeating: (0, 0), count: n)
        var start = 0, postingEnd = 0, longest = 0
        for i in 0..<n {
            let end = Int(endWords[i]), termGroups = Int(countWords[i]), value = Int(valueWords[i])
            guard end >= start, end <= text.count, termGroups >= 1, termGroups <= groupCount else { return nil }
            if i % blockSize == 0 { postingEnd = 0 }
            if termGroups == 1 {
                guard value < groupCount else { return nil }
                singles[i] = UInt32(value)
            } else {
                guard value >= postingEnd, value < Int(Int32.max) else { return nil }
                postings[i] = (Int32(postingEnd), Int32(value))
                postingEnd = value
            }
            if !ascii {
                for scalar in String(decoding: text[start..<end], as: UTF8.self).unicodeScalars { scalars.append(scalar.value) }
            }
            starts[i + 1] = Int32(ascii ? end : scalars.count)
            longest = max(longest, Int(starts[i + 1] - starts[i]))
            groupCounts[i] = Int32(termGroups)
            blocks[i] = Int32(i / blockSize)
            start = end
        }
        guard start == text.count else { return nil }
        self.longest = longest
    }

    /// Little-endian UInt32s, read as whole words.
    private static func words(_ bytes: [UInt8]) -> [UInt32] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)) }
        }
    }

    /// Whether every term sorts after the one before it, as the typo walk needs.
    var isStrictlySorted: Bool {
        scalars.withUnsafeBufferPointer { all in
            starts.withUnsafeBufferPointer { starts in
                for i in 1..<max(1, starts.count - 1) {
                    let a = Int(starts[i - 1]), b = Int(starts[i]), c = Int(starts[i + 1])
                    // Equal scalars up to the shorter's length: the shorter (a prefix) sorts first.
                    var k = 0
                    while k < b - a, k < c - b, all[a + k] == all[b + k] { k += 1 }
                    let precedes = k < b - a && k < c - b ? all[a + k] < all[b + k] : b - a < c - b
                    if !precedes { return false }
                }
                return true
            }
        }
    }

    /// Term `i` as the query reads a matched term.
    func term(_ i: Int) -> IndexTerm {
        IndexTerm(
            token: SearchToken(scalars: Array(slice(i)), isNumber: false),
            groupCount: Int(groupCounts[i]), single: singles[i] == Self.noGroup ? nil : singles[i], isNumber: false,
            block: Int(blocks[i]), range: Int(postings[i].lower)..<Int(postings[i].upper))
    }
}
