#if canImport(Glibc)
import Glibc
#endif

/// A query token and whether it may match as the start of a term.
struct QueryToken: Hashable {
    var token: SearchToken
    var allowsPrefix: Bool
}

/// A group that matched every query token, with what decides its place.
struct GroupMatch {
    var group: UInt32
    var score: Double
    /// The worst way a token matched.
    var kind: MatchKind
    var edits: Int
    /// The best rank among the group's features.
    var rank: Double?
    /// Metres from the preferred location to the nearest of the group's features.
    var distance: Double?
}

/// Runs a query against one index: every query token must match one of a group's terms.
///
/// Tokens are taken from the most selective to the least, and the candidate set shrinks with
/// each; when few candidates remain and the next token is broad (a one-letter prefix matching
/// thousands of terms), the candidates' own text is read and checked instead of walking the
/// broad token's postings.
final class IndexQuery {
    let index: LocatorIndex
    private var stamp: [UInt32] = []
    private var slot: [Int32] = []
    private var epoch: UInt32 = 0

    /// Below this many candidates, a token this many times broader is checked on the text.
    static let verifyCandidates = 256
    static let verifyRatio = 16

    init(index: LocatorIndex) {
        self.index = index
    }

    struct Accumulator {
        var group: UInt32
        var worst: TokenQuality
        var edits: Int
        var prefixes: Int
    }

    /// The matched groups, best first: score, then rank, then distance, then group order.
    /// `text` gives a group's search text (for checking broad tokens on few candidates).
    func run(_ tokens: [QueryToken], near: (longitude: Double, latitude: Double)?, limit: Int, text: (UInt32) throws -> String?) throws -> [GroupMatch] {
        guard !tokens.isEmpty, limit > 0, index.groupCount > 0 else { return [] }
        var unique: [QueryToken] = []
        for t in tokens where !unique.contains(t) { unique.append(t) }

        // Each token's terms, best match first, and how many groups they reach.
        var plans: [(token: QueryToken, terms: [(IndexTerm, TokenQuality)], cost: Int)] = []
        for t in unique {
            var terms: [(IndexTerm, TokenQuality)] = []
            if t.token.isNumber {
                if t.allowsPrefix, let union = try index.numberPrefixUnion(t.token) {
                    // A short typed number: the exact term (if any) first, then the stored
                    // union of every term under it, which the exact groups have already taken.
                    for term in try index.numbers(prefix: t.token, exact: true) { terms.append((term, TokenQuality(kind: .exact, edits: 0))) }
                    terms.append((union, TokenQuality(kind: .prefix, edits: 0)))
                } else {
                    try appendNumbers(t, into: &terms)
                }
            } else {
                let words = try index.words()
                for (i, quality) in TermMatcher.match(t.token, in: try index.wordKeys(), prefix: t.allowsPrefix) {
                    terms.append((words[i], quality))
                }
            }
            if terms.isEmpty { return [] }
            plans.append((t, terms, terms.reduce(0) { $0 + $1.0.groupCount }))
        }
        plans.sort { $0.cost < $1.cost }

        if stamp.count != index.groupCount {
            stamp = [UInt32](repeating: 0, count: index.groupCount)
            slot = [Int32](repeating: 0, count: index.groupCount)
        }
        var candidates: [Accumulator] = []
        for (step, plan) in plans.enumerated() {
            if step > 0, candidates.count <= Self.verifyCandidates, plan.cost > Self.verifyRatio * candidates.count {
                candidates = try verify(candidates, against: plans[step...].map(\.token), text: text)
                break
            }
            epoch &+= 1
            if epoch == 0 {
                for i in stamp.indices { stamp[i] = 0 }
                epoch = 1
            }
            let current = epoch
            if step == 0 {
                for (term, quality) in plan.terms {
                    try index.forEachGroup(of: term) { g in
                        let gi = Int(g)
                        if stamp[gi] != current {
                            stamp[gi] = current
                            slot[gi] = Int32(candidates.count)
                            candidates.append(Accumulator(group: g, worst: quality, edits: quality.edits, prefixes: quality.kind == .prefix ? 1 : 0))
                        }
                    }
                }
            } else {
                let alive = current &- 1
                for (term, quality) in plan.terms {
                    try index.forEachGroup(of: term) { g in
                        let gi = Int(g)
                        if stamp[gi] == alive {
                            stamp[gi] = current
                            let s = Int(slot[gi])
                            candidates[s].worst = max(candidates[s].worst, quality)
                            candidates[s].edits += quality.edits
                            if quality.kind == .prefix { candidates[s].prefixes += 1 }
                        }
                    }
                }
                candidates.removeAll { stamp[Int($0.group)] != current }
                for (i, c) in candidates.enumerated() { slot[Int(c.group)] = Int32(i) }
            }
            if candidates.isEmpty { return [] }
        }
        if candidates.isEmpty { return [] }

        // Score every candidate and take its group's best rank; distances are measured only
        // where score and rank tie within reach of the first `limit`.
        var matches: [GroupMatch] = []
        matches.reserveCapacity(candidates.count)
        var perScore = [Int](repeating: 0, count: 101)
        for c in candidates {
            let tokens = try index.group(c.group).tokens
            let score = Self.score(c, queryTokens: unique.count, groupTokens: tokens)
            perScore[Int(score)] += 1
            matches.append(GroupMatch(group: c.group, score: score, kind: c.worst.kind, edits: c.edits, rank: try index.groupRank(c.group), distance: nil))
        }
        var cutoff = 100, above = 0
        while cutoff > 0, above + perScore[cutoff] < limit {
            above += perScore[cutoff]
            cutoff -= 1
        }
        var contenders = matches.filter { $0.score >= Double(cutoff) }
        if index.hasRank {
            // In the cutoff score, only ranks as good as the one that fills the list matter.
            let tied = contenders.filter { $0.score == Double(cutoff) }.map { $0.rank ?? -.infinity }.sorted(by: >)
            let needed = limit - above
            if needed > 0, needed <= tied.count {
                let threshold = tied[needed - 1]
                contenders.removeAll { $0.score == Double(cutoff) && ($0.rank ?? -.infinity) < threshold }
            }
        }
        if let near {
            let meter = index.distanceMeter(near: near)
            let table = try index.positions()
            for i in contenders.indices {
                var best = Double.infinity
                for e in try index.group(contenders[i].group).entries {
                    if let d = meter.squared(table, e), d < best { best = d }
                }
                if best.isFinite { contenders[i].distance = best.squareRoot() }
            }
        }
        // The first `limit` by `before` (a total order: the group breaks every tie), kept
        // sorted as they come rather than sorting every contender: a broad prefix ties
        // thousands of groups on score.
        var top: [GroupMatch] = []
        top.reserveCapacity(limit + 1)
        for m in contenders {
            if top.count == limit, !Self.before(m, top[limit - 1]) { continue }
            top.insert(m, at: top.firstIndex { Self.before(m, $0) } ?? top.count)
            if top.count > limit { top.removeLast() }
        }
        return top
    }

    /// A number token's terms: the exact term (at most one) first, then the longer ones (no
    /// sort needed for the thousands a short prefix reaches).
    private func appendNumbers(_ t: QueryToken, into terms: inout [(IndexTerm, TokenQuality)]) throws {
        for term in try index.numbers(prefix: t.token, exact: !t.allowsPrefix) {
            if term.token.scalars.count == t.token.scalars.count {
                terms.insert((term, TokenQuality(kind: .exact, edits: 0)), at: 0)
            } else {
                terms.append((term, TokenQuality(kind: .prefix, edits: 0)))
            }
        }
    }

    /// The order of candidates: score, rank (higher first, none last), distance (nearer first,
    /// none last), then index order.
    static func before(_ a: GroupMatch, _ b: GroupMatch) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.rank != b.rank {
            guard let ra = a.rank else { return false }
            guard let rb = b.rank else { return true }
            return ra > rb
        }
        if a.distance != b.distance {
            guard let da = a.distance else { return false }
            guard let db = b.distance else { return true }
            return da < db
        }
        return a.group < b.group
    }

    /// 100 when every token matched exactly and the feature has no other words; then exact
    /// matches with more words (90-98), prefixes (80-88), typos (40-78).
    static func score(_ c: Accumulator, queryTokens: Int, groupTokens: Int) -> Double {
        let extra = min(8, max(0, groupTokens - queryTokens))
        switch c.worst.kind {
        case .exact: return extra == 0 ? 100 : Double(98 - extra)
        case .prefix: return Double(88 - extra - min(4, max(0, c.prefixes - 1)))
        case .fuzzy: return Double(max(40, 78 - 4 * (c.edits - 1) - extra))
        }
    }

    /// Checks the candidates' text against the remaining tokens.
    private func verify(_ candidates: [Accumulator], against tokens: [QueryToken], text: (UInt32) throws -> String?) throws -> [Accumulator] {
        var out: [Accumulator] = []
        for var c in candidates {
            guard let value = try text(c.group) else { continue }
            let own = SearchText.tokens(value)
            var ok = true
            for t in tokens {
                guard let quality = Self.bestQuality(t, against: own) else {
                    ok = false
                    break
                }
                c.worst = max(c.worst, quality)
                c.edits += quality.edits
                if quality.kind == .prefix { c.prefixes += 1 }
            }
            if ok { out.append(c) }
        }
        return out
    }

    /// How well a query token matches the best of a feature's tokens, by the index's rules.
    static func bestQuality(_ t: QueryToken, against own: [SearchToken]) -> TokenQuality? {
        var best: TokenQuality?
        let q = t.token.scalars
        for o in own where o.isNumber == t.token.isNumber {
            var quality: TokenQuality?
            if o.scalars == q {
                quality = TokenQuality(kind: .exact, edits: 0)
            } else if t.allowsPrefix, o.scalars.starts(with: q) {
                quality = TokenQuality(kind: .prefix, edits: 0)
            } else if t.token.editBudget > 0 {
                let target = t.allowsPrefix ? Array(o.scalars.prefix(q.count + t.token.editBudget)) : o.scalars
                let d = t.allowsPrefix ? prefixDistance(q, target, budget: t.token.editBudget) : distance(q, target)
                if d <= t.token.editBudget { quality = TokenQuality(kind: .fuzzy, edits: d) }
            }
            if let quality, best == nil || quality < best! { best = quality }
        }
        return best
    }

    /// Optimal string alignment distance.
    static func distance(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, rows[i - 2][j - 2] + 1) }
                rows[i][j] = v
            }
        }
        return rows[a.count][b.count]
    }

    /// The least distance between `q` and any prefix of `b`.
    static func prefixDistance(_ q: [UInt32], _ b: [UInt32], budget: Int) -> Int {
        var best = Int.max
        for n in min(max(0, q.count - budget), b.count)...b.count { best = min(best, distance(q, Array(b.prefix(n)))) }
        return best
    }

    /// Metres between two WGS84 points (haversine).
    static func metres(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
        let r = 6_371_008.8
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = p2 - p1, dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}
