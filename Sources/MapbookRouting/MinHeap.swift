/// A binary min-heap of (key, node) pairs for Dijkstra-like searches; a node may be in it
/// more than once, and callers skip the stale entries.
struct MinHeap {
    private var keys: [UInt64] = []
    private var nodes: [Int32] = []

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }
    var minKey: UInt64? { keys.first }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: UInt64, _ node: Int32) {
        keys.append(key)
        nodes.append(node)
        var i = keys.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard keys[parent] > keys[i] else { break }
            keys.swapAt(parent, i)
            nodes.swapAt(parent, i)
            i = parent
        }
    }

    mutating func pop() -> (key: UInt64, node: Int32)? {
        guard let key = keys.first else { return nil }
        let node = nodes[0]
        let lastKey = keys.removeLast(), lastNode = nodes.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            nodes[0] = lastNode
            var i = 0
            let n = keys.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < n, keys[l] < keys[smallest] { smallest = l }
                if r < n, keys[r] < keys[smallest] { smallest = r }
                if smallest == i { break }
                keys.swapAt(i, smallest)
                nodes.swapAt(i, smallest)
                i = smallest
            }
        }
        return (key, node)
    }
}
