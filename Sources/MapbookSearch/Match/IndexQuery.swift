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
    private var scratch = Scratch()

    /// Below this many candidates, a token this many times broader is checked on the text.
    static let verifyCandidates = 256
    static let verifyRatio = 16

    init(index: LocatorIndex) {
        self.index = index
    }

    /// A candidate group and how the tokens so far matched it: small, since a broad prefix
    /// makes a hundred thousand of them.
    struct Accumulator {
        var group: UInt32
        /// The worst way a token matched.
        var worst: MatchKind
        /// Edits over all tokens.
        var edits: UInt8
        /// Tokens that matched as prefixes.
        var prefixes: UInt8

        init(group: UInt32, _ quality: TokenQuality) {
            self.group = group
            worst = .exact
            edits = 0
            prefixes = 0
            add(quality)
        }

        @inline(__always)
        mutating func add(_ quality: TokenQuality) {
            worst = max(worst, quality.kind)
            edits = edits &+ UInt8(min(quality.edits, 8))
            if quality.kind == .prefix { prefixes = prefixes &+ 1 }
        }
    }

    /// A query token's terms, best match first, and how many groups they reach.
    struct Plan {
        var token: QueryToken
        var terms: [(IndexTerm, TokenQuality)]
        var cost: Int
    }

    /// Buffers kept from one query to the next: arrays of a hundred thousand candidates,
    /// made fresh for each query, cost more in page faults than the query itself.
    private struct Scratch {
        /// Per group: the step that last kept it, and its place in `candidates`.
        var stamp: [UInt32] = []
        var slot: [Int32] = []
        var epoch: UInt32 = 0
        var candidates: [Accumulator] = []
        var scores: [UInt8] = []
    }

    /// The matched groups, best first: score, then rank, then distance, then group order.
    /// `text` gives a group's search text (for checking broad tokens on few candidates).
    func run(_ tokens: [QueryToken], near: (longitude: Double, latitude: Double)?, limit: Int, text: (UInt32) throws -> String?) throws -> [GroupMatch] {
        guard !tokens.isEmpty, limit > 0, index.groupCount > 0 else { return [] }
        var unique: [QueryToken] = []
        for t in tokens where !unique.contains(t) { unique.append(t) }
        var plans: [Plan] = []
        for t in unique {
            let plan = try self.plan(t)
            if plan.terms.isEmpty { return [] }
            plans.append(plan)
        }
        plans.sort { $0.cost < $1.cost }

        var s = Scratch()
        swap(&s, &scratch)
        defer {
            s.candidates.removeAll(keepingCapacity: true)
            s.scores.removeAll(keepingCapacity: true)
            swap(&s, &scratch)
        }
        if s.stamp.count != index.groupCount {
            s.stamp = [UInt32](repeating: 0, count: index.groupCount)
            s.slot = [Int32](repeating: 0, count: index.groupCount)
        }
        for (step, plan) in plans.enumerated() {
            if step > 0, s.candidates.count <= Self.verifyCandidates, plan.cost > Self.verifyRatio * s.candidates.count {
                s.candidates = try verify(s.candidates, against: plans[step...].map(\.token), text: text)
                break
            }
            s.epoch &+= 1
            if s.epoch == 0 {
                for i in s.stamp.indices { s.stamp[i] = 0 }
                s.epoch = 1
            }
            if step == 0 { try seed(plan, &s) } else { try narrow(plan, &s) }
            if s.candidates.isEmpty { return [] }
        }
        if s.candidates.isEmpty { return [] }
        return try best(&s, queryTokens: unique.count, near: near, limit: limit)
    }

    /// A token's terms: numbers by their prefix (or the stored union of a short one), words
    /// by the term matcher.
    private func plan(_ t: QueryToken) throws -> Plan {
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
            for (i, quality) in TermMatcher.match(t.token, in: words, prefix: t.allowsPrefix) {
                terms.append((words.term(i), quality))
            }
        }
        return Plan(token: t, terms: terms, cost: terms.reduce(0) { $0 + $1.0.groupCount })
    }

    /// The first token's groups become the candidates; a group reached by several terms keeps
    /// the first (best) one.
    private func seed(_ plan: Plan, _ s: inout Scratch) throws {
        let current = s.epoch
        s.candidates.reserveCapacity(min(plan.cost, index.groupCount))
        try s.stamp.withUnsafeMutableBufferPointer { stamp in
            try s.slot.withUnsafeMutableBufferPointer { slot in
                for (term, quality) in plan.terms {
                    try index.forEachGroup(of: term) { g in
                        let gi = Int(g)
                        if stamp[gi] != current {
                            stamp[gi] = current
                            slot[gi] = Int32(s.candidates.count)
                            s.candidates.append(Accumulator(group: g, quality))
                        }
                    }
                }
            }
        }
    }

    /// Keeps the candidates that this token matches too.
    private func narrow(_ plan: Plan, _ s: inout Scratch) throws {
        let current = s.epoch, alive = current &- 1
        try s.stamp.withUnsafeMutableBufferPointer { stamp in
            try s.slot.withUnsafeMutableBufferPointer { slot in
                try s.candidates.withUnsafeMutableBufferPointer { candidates in
                    for (term, quality) in plan.terms {
                        try index.forEachGroup(of: term) { g in
                            let gi = Int(g)
                            if stamp[gi] == alive {
                                stamp[gi] = current
                                candidates[Int(slot[gi])].add(quality)
                            }
                        }
                    }
                }
                var kept = 0
                for i in s.candidates.indices where stamp[Int(s.candidates[i].group)] == current {
                    let c = s.candidates[i]
                    s.candidates[kept] = c
                    slot[Int(c.group)] = Int32(kept)
                    kept += 1
                }
                s.candidates.removeLast(s.candidates.count - kept)
            }
        }
    }

    /// The first `limit` candidates. Every candidate is scored; rank is read and distance
    /// measured only for those that can still make the list.
    private func best(_ s: inout Scratch, queryTokens: Int, near: (longitude: Double, latitude: Double)?, limit: Int) throws -> [GroupMatch] {
        let table = try index.groupTable()
        var perScore = [Int](repeating: 0, count: 101)
        for c in s.candidates {
            let score = Self.score(c, queryTokens: queryTokens, groupTokens: Int(table.tokens[Int(c.group)]))
            s.scores.append(score)
            perScore[Int(score)] += 1
        }
        // The lowest score that can make the list.
        var cutoff = 100, above = 0
        while cutoff > 0, above + perScore[cutoff] < limit {
            above += perScore[cutoff]
            cutoff -= 1
        }
        // At the cutoff score, only ranks as good as the one that fills the list matter.
        var threshold = -Float.infinity
        let needed = limit - above
        if index.hasRank, needed > 0, needed <= perScore[cutoff] {
            var ranks: [Float] = []
            ranks.reserveCapacity(needed + 1)
            for (i, c) in s.candidates.enumerated() where Int(s.scores[i]) == cutoff {
                let r = table.rank(Int(c.group)) ?? -.infinity
                if ranks.count == needed, r <= ranks[needed - 1] { continue }
                ranks.insert(r, at: ranks.firstIndex { r > $0 } ?? ranks.count)
                if ranks.count > needed { ranks.removeLast() }
            }
            threshold = ranks[needed - 1]
        }
        let meter = near.map { index.distanceMeter(near: $0) }
        var positions = LocatorIndex.PositionReader(index)
        // The first `limit` by `before` (a total order: the group breaks every tie), kept
        // sorted as they come rather than sorting every contender: a broad prefix ties
        // thousands of groups on score.
        var top: [GroupMatch] = []
        top.reserveCapacity(limit + 1)
        for (i, c) in s.candidates.enumerated() {
            let score = Int(s.scores[i])
            guard score >= cutoff else { continue }
            let g = Int(c.group)
            let rank = table.rank(g)
            if score == cutoff, (rank ?? -.infinity) < threshold { continue }
            var m = GroupMatch(group: c.group, score: Double(score), kind: c.worst, edits: Int(c.edits), rank: rank.map(Double.init), distance: nil)
            if top.count == limit {
                // Not even at distance zero would it make the list.
                var hope = m
                hope.distance = 0
                if !Self.before(hope, top[limit - 1]) { continue }
            }
            if let meter, let nearest = try positions.nearest(Int(table.first[g])..<Int(table.first[g + 1]), meter) {
                m.distance = nearest.squareRoot()
            }
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
    static func score(_ c: Accumulator, queryTokens: Int, groupTokens: Int) -> UInt8 {
        let extra = min(8, max(0, groupTokens - queryTokens))
        switch c.worst {
        case .exact: return UInt8(extra == 0 ? 100 : 98 - extra)
        case .prefix: return UInt8(88 - extra - min(4, max(0, Int(c.prefixes) - 1)))
        case .fuzzy: return UInt8(max(40, 78 - 4 * (Int(c.edits) - 1) - extra))
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
                c.add(quality)
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
            } else if t.token.editBudget > 0, let d = editDistance(q, o.scalars, prefix: t.allowsPrefix, budget: t.token.editBudget) {
                quality = TokenQuality(kind: .fuzzy, edits: d)
            }
            if let quality, best == nil || quality < best! { best = quality }
        }
        return best
    }

    /// The optimal-string-alignment distance (Levenshtein with transpositions of neighbours)
    /// from `q` to `b`, or with `prefix` to the nearest prefix of `b`; nil when over `budget`.
    /// One row per character of `q` on the stack, stopping when a whole row is over budget
    /// (row minima never decrease): this runs for every token of every verified candidate.
    static func editDistance(_ q: [UInt32], _ b: [UInt32], prefix: Bool, budget: Int) -> Int? {
        let n = prefix ? min(b.count, q.count + budget) : b.count
        if !prefix, abs(q.count - n) > budget { return nil }
        if q.isEmpty { return prefix ? 0 : n }
        let width = n + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * width) { rows -> Int? in
            var twoBack = 0, back = width, current = 2 * width
            for j in 0...n { rows[back + j] = j }
            for i in 1...q.count {
                rows[current] = i
                var least = i
                if n > 0 {
                    for j in 1...n {
                        let cost = q[i - 1] == b[j - 1] ? 0 : 1
                        var v = min(rows[back + j] + 1, rows[current + j - 1] + 1, rows[back + j - 1] + cost)
                        if i > 1, j > 1, q[i - 1] == b[j - 2], q[i - 2] == b[j - 1] { v = min(v, rows[twoBack + j - 2] + 1) }
                        rows[current + j] = v
                        least = min(least, v)
                    }
                }
                if least > budget { return nil }
                (twoBack, back, current) = (back, current, twoBack)
            }
            var d = rows[back + n]
            if prefix {
                for j in min(max(0, q.count - budget), n)...n { d = min(d, rows[back + j]) }
            }
            return d <= budget ? d : nil
        }
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
