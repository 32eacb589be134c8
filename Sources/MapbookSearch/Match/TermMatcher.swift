/// How a query token matched a term.
public enum MatchKind: Int, Sendable, Comparable, CustomStringConvertible {
    case exact = 0
    /// The term starts with the token (the user is typing it).
    case prefix = 1
    /// Within the typo budget.
    case fuzzy = 2

    public static func < (a: MatchKind, b: MatchKind) -> Bool { a.rawValue < b.rawValue }

    public var description: String { ["exact", "prefix", "fuzzy"][rawValue] }
}

/// The quality of a token's match: the kind, then the number of edits.
struct TokenQuality: Comparable {
    var kind: MatchKind
    var edits: Int

    static func < (a: TokenQuality, b: TokenQuality) -> Bool { (a.kind, a.edits) < (b.kind, b.edits) }
}

/// Finds the terms of a sorted vocabulary that a query token matches: equal, starting with
/// it (when prefixes are allowed), or within its typo budget.
///
/// Typos are found by walking the sorted terms as a trie (shared prefixes are ranges of the
/// sorted array, found by binary search) while computing the optimal-string-alignment
/// distance (Levenshtein plus transpositions of neighbours) one row per character, and
/// leaving a branch as soon as no row can come back under the budget: the work grows with
/// the budget and the token, not with the vocabulary. Generic over the terms' storage: the
/// index's flat `WordList`, or arrays in tests.
enum TermMatcher {
    /// Indexes into `terms` with how each matched; at most one result per term, the best.
    static func match<Terms: SortedTerms>(_ token: SearchToken, in terms: Terms, prefix: Bool) -> [(term: Int, quality: TokenQuality)] {
        let q = token.scalars
        guard !q.isEmpty else { return [] }
        var best: [Int: TokenQuality] = [:]
        // Exact and prefix: one range of the sorted terms.
        let range = prefixRange(q, in: terms, depth: 0, lo: 0, hi: terms.count)
        for i in range {
            let isExact = terms.length(i) == q.count
            if isExact { best[i] = TokenQuality(kind: .exact, edits: 0) } else if prefix { best[i] = TokenQuality(kind: .prefix, edits: 0) }
        }
        let budget = token.editBudget
        if budget > 0 {
            // One row of distances per depth, reused by every branch at that depth: row 0 is
            // the empty prefix's. No branch writes a row deeper than the longest term, nor
            // past the token's length plus the budget (a row's least distance is at least its
            // depth less the token's length), so a long term in the index costs nothing here.
            let width = q.count + 1
            let depths = min(terms.longest, q.count + budget + 1) + 2
            withUnsafeTemporaryAllocation(of: Int.self, capacity: depths * width) { rows in
                for j in 0..<width { rows[j] = j }
                q.withUnsafeBufferPointer { q in
                    walk(q, terms: terms, budget: budget, prefix: prefix, depth: 0, lo: 0, hi: terms.count, rows: rows.baseAddress!, depths: depths, previousChar: nil, best: &best)
                }
            }
        }
        return best.map { ($0.key, $0.value) }.sorted { ($0.quality, $0.term) < ($1.quality, $1.term) }
    }

    /// The terms in [lo, hi) (sharing `depth` scalars) that start with `q`.
    static func prefixRange<Terms: SortedTerms>(_ q: [UInt32], in terms: Terms, depth: Int, lo: Int, hi: Int) -> Range<Int> {
        var lo = lo, hi = hi
        for d in depth..<q.count {
            let c = q[d]
            lo = lowerBound(terms, d, c, lo, hi)
            hi = upperBound(terms, d, c, lo, hi)
            if lo >= hi { return lo..<lo }
        }
        return lo..<hi
    }

    /// The scalar at `depth` of a term, or nil when the term is that short (sorts first).
    @inline(__always)
    static func scalar<Terms: SortedTerms>(_ terms: Terms, _ i: Int, _ depth: Int) -> UInt32? {
        depth < terms.length(i) ? terms.scalar(i, depth) : nil
    }

    /// First index in [lo, hi) whose scalar at `depth` is >= c (shorter terms count as less).
    static func lowerBound<Terms: SortedTerms>(_ terms: Terms, _ depth: Int, _ c: UInt32, _ lo: Int, _ hi: Int) -> Int {
        var lo = lo, hi = hi
        while lo < hi {
            let mid = (lo + hi) / 2
            if let s = scalar(terms, mid, depth), s >= c { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// First index in [lo, hi) whose scalar at `depth` is > c.
    static func upperBound<Terms: SortedTerms>(_ terms: Terms, _ depth: Int, _ c: UInt32, _ lo: Int, _ hi: Int) -> Int {
        var lo = lo, hi = hi
        while lo < hi {
            let mid = (lo + hi) / 2
            if let s = scalar(terms, mid, depth), s > c { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// `accepted`: with prefixes allowed, the least distance between the token and a prefix
    /// of the path so far, once it is within the budget; every term below then matches.
    /// `rows` holds a row per depth: this depth's is the previous character's distances, the
    /// one before it the character before that's (for transpositions).
    private static func walk<Terms: SortedTerms>(
        _ q: UnsafeBufferPointer<UInt32>, terms: Terms, budget: Int, prefix: Bool, depth: Int, lo: Int, hi: Int,
        rows: UnsafeMutablePointer<Int>, depths: Int, previousChar: UInt32?, accepted: Int? = nil, best: inout [Int: TokenQuality]
    ) {
        let width = q.count + 1
        let previous = rows + depth * width
        let beforePrevious: UnsafeMutablePointer<Int>? = depth > 0 ? rows + (depth - 1) * width : nil
        var accepted = accepted
        if prefix, depth > 0, previous[q.count] <= budget { accepted = min(accepted ?? Int.max, previous[q.count]) }
        var i = lo
        // A term that ends here sorts first in its range.
        if i < hi, terms.length(i) == depth {
            let d = min(accepted ?? Int.max, previous[q.count])
            if depth > 0, d <= budget { record(i, edits: d, kind: .fuzzy, &best) }
            i += 1
        }
        var previousMin = Int.max, beforeMin = Int.max - 1
        for j in 0..<width { previousMin = min(previousMin, previous[j]) }
        if let beforePrevious { for j in 0..<width { beforeMin = min(beforeMin, beforePrevious[j]) } }
        // No deeper row can come under this: the rest matches (prefixes) or nothing does.
        if let accepted, min(previousMin, beforeMin + 1) >= accepted {
            for j in i..<hi { record(j, edits: accepted, kind: .fuzzy, &best) }
            return
        }
        // The bound above, kept: never a row past the buffer.
        guard depth + 1 < depths else { return }
        let row = previous + width
        // No scalar is UInt32.max: at depth 0 nothing comes before.
        let pc = previousChar ?? UInt32.max
        while i < hi {
            let c = terms.scalar(i, depth)
            let end = upperBound(terms, depth, c, i, hi)
            row[0] = depth + 1
            var rowMin = row[0]
            for j in 1...q.count {
                let cost = q[j - 1] == c ? 0 : 1
                var v = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                // `c` and the character before it, swapped against the token's.
                if j > 1, c == q[j - 2], pc == q[j - 1], let beforePrevious { v = min(v, beforePrevious[j - 2] + 1) }
                row[j] = v
                rowMin = min(rowMin, v)
            }
            // A transposition in the next row can reach back to `previous`, one edit dearer.
            let next = min(rowMin, previousMin + 1)
            if next <= budget || accepted != nil {
                walk(q, terms: terms, budget: budget, prefix: prefix, depth: depth + 1, lo: i, hi: end, rows: rows, depths: depths, previousChar: c, accepted: accepted, best: &best)
            }
            i = end
        }
    }

    private static func record(_ i: Int, edits: Int, kind: MatchKind, _ best: inout [Int: TokenQuality]) {
        let quality = TokenQuality(kind: edits == 0 ? .prefix : kind, edits: edits)
        if let old = best[i], old <= quality { return }
        best[i] = quality
    }
}

/// Sorted terms as the matcher reads them: how many, each one's length and its scalars.
protocol SortedTerms {
    var count: Int { get }
    /// The length of the longest term.
    var longest: Int { get }
    func length(_ i: Int) -> Int
    func scalar(_ i: Int, _ depth: Int) -> UInt32
}

extension Array: SortedTerms where Element == [UInt32] {
    var longest: Int { lazy.map(\.count).max() ?? 0 }
    func length(_ i: Int) -> Int { self[i].count }
    func scalar(_ i: Int, _ depth: Int) -> UInt32 { self[i][depth] }
}
