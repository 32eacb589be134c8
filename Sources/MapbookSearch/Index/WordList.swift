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
        starts.append(Int32(scalars.count))
        groupCounts.append(Int32(clamping: groupCount))
        singles.append(single ?? Self.noGroup)
        blocks.append(Int32(block))
        postings.append((Int32(range.lowerBound), Int32(range.upperBound)))
        return true
    }

    /// Whether every term sorts after the one before it, as the typo walk needs.
    var isStrictlySorted: Bool {
        (1..<max(1, count)).allSatisfy { slice($0 - 1).lexicographicallyPrecedes(slice($0)) }
    }

    /// Term `i` as the query reads a matched term.
    func term(_ i: Int) -> IndexTerm {
        IndexTerm(
            token: SearchToken(scalars: Array(slice(i)), isNumber: false),
            groupCount: Int(groupCounts[i]), single: singles[i] == Self.noGroup ? nil : singles[i], isNumber: false,
            block: Int(blocks[i]), range: Int(postings[i].lower)..<Int(postings[i].upper))
    }
}
