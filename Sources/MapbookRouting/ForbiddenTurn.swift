/// A turn no route takes: arriving at a node by one arc and leaving it by another. Arcs are
/// edges travelled one way: `edge * 2` along the edge's points, `edge * 2 + 1` against them.
public struct ForbiddenTurn: Sendable, Hashable, Comparable {
    public var from: Int32
    public var to: Int32

    public init(from: Int32, to: Int32) {
        self.from = from
        self.to = to
    }

    public static func < (a: ForbiddenTurn, b: ForbiddenTurn) -> Bool { (a.from, a.to) < (b.from, b.to) }
}

/// The forbidden turns as searches read them, in memory or in place from a network file:
/// the arcs that arrive with a turn forbidden after them (sorted; each gets a copy of the
/// node it arrives at), and the turns, as (copy, arc) pairs, sorted.
public protocol TurnTable {
    var copyCount: Int { get }
    /// The arc copy `i` stands for.
    func copyArc(_ i: Int) -> Int32
    var turnCount: Int { get }
    func turn(_ i: Int) -> (copy: Int32, to: Int32)
}

extension TurnTable {
    /// The copy for arriving by `arc`, if turns are forbidden after it.
    public func copy(arriving arc: Int32) -> Int32? {
        let i = Self.firstIndex(count: copyCount) { copyArc($0) >= arc }
        return i < copyCount && copyArc(i) == arc ? Int32(i) : nil
    }

    /// Whether leaving by `arc` is forbidden after arriving by copy `copy`'s arc.
    public func forbids(copy: Int32, to arc: Int32) -> Bool {
        let i = Self.firstIndex(count: turnCount) { turn($0) >= (copy, arc) }
        return i < turnCount && turn(i) == (copy, arc)
    }

    /// The first of `0..<count` where `atOrPast` holds (it holds from there on): a binary search.
    static func firstIndex(count: Int, _ atOrPast: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if atOrPast(mid) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

/// The forbidden turns of a network in memory, made from its sorted list.
public struct TurnList: TurnTable, Sendable {
    public let copies: [Int32]
    public let turns: [(copy: Int32, to: Int32)]

    public init(_ forbidden: [ForbiddenTurn]) {
        let sorted = Array(Set(forbidden)).sorted()
        var copies: [Int32] = []
        for t in sorted where copies.last != t.from { copies.append(t.from) }
        self.copies = copies
        var index = 0
        turns = sorted.map { t in
            while copies[index] != t.from { index += 1 }
            return (Int32(index), t.to)
        }
    }

    public var copyCount: Int { copies.count }
    public func copyArc(_ i: Int) -> Int32 { copies[i] }
    public var turnCount: Int { turns.count }
    public func turn(_ i: Int) -> (copy: Int32, to: Int32) { turns[i] }
}
