/// Disjoint sets of `0..<count` (path halving): which nodes a tolerance joins, which parts of
/// a network are connected. The smallest member of a set stands for it, so the result does
/// not depend on the order of the joins.
public struct UnionFind: Sendable {
    private var parent: [Int]

    public init(count: Int) {
        parent = Array(0..<count)
    }

    /// The member that stands for `i`'s set.
    public mutating func root(_ i: Int) -> Int {
        var i = i
        while parent[i] != i {
            parent[i] = parent[parent[i]]
            i = parent[i]
        }
        return i
    }

    public mutating func join(_ a: Int, _ b: Int) {
        let x = root(a), y = root(b)
        if x != y { parent[max(x, y)] = min(x, y) }
    }
}
