/// The forbidden turns of a network file, read in place (`StreetNetworkFile`, section 9).
public struct StoredTurns: TurnTable, @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer?
    let copies: Int
    let turns: Int
    public let copyCount: Int
    public let turnCount: Int

    init() {
        bytes = nil
        copies = 0
        turns = 0
        copyCount = 0
        turnCount = 0
    }

    init(bytes: UnsafeRawBufferPointer, copies: Int, copyCount: Int, turns: Int, turnCount: Int) {
        self.bytes = bytes
        self.copies = copies
        self.copyCount = copyCount
        self.turns = turns
        self.turnCount = turnCount
    }

    public func copyArc(_ i: Int) -> Int32 { bytes!.loadUnaligned(fromByteOffset: copies + i * 4, as: Int32.self) }

    public func turn(_ i: Int) -> (copy: Int32, to: Int32) {
        (bytes!.loadUnaligned(fromByteOffset: turns + i * 8, as: Int32.self), bytes!.loadUnaligned(fromByteOffset: turns + i * 8 + 4, as: Int32.self))
    }
}

extension RoutingNetwork {
    /// The network node arc `ref` arrives at, and the one it leaves.
    func arrival(_ ref: Int32) throws(RoutingError) -> Int32 {
        let edge = try edge(ref / 2)
        return ref % 2 == 0 ? edge.to : edge.from
    }

    /// The node of the search graph arc `ref` arrives at: the copy of its node when turns
    /// are forbidden after it (`TurnGraph`).
    public func graphNode(arriving ref: Int32) throws(RoutingError) -> Int32 {
        if let copy = turns.copy(arriving: ref) { return Int32(nodeCount) + copy }
        return try arrival(ref)
    }

    /// The nodes of the search graph that may leave by arc `ref`: its node, and the node's
    /// copies whose arrival does not forbid the turn.
    public func graphNodes(leaving ref: Int32) throws(RoutingError) -> [Int32] {
        let edge = try edge(ref / 2)
        let node = ref % 2 == 0 ? edge.from : edge.to
        var nodes = [node]
        guard turns.copyCount > 0 else { return nodes }
        for e in try incidentEdges(node) {
            let other = try self.edge(e)
            for arriving in [e * 2, e * 2 + 1] where (arriving % 2 == 0 ? other.to : other.from) == node {
                if let copy = turns.copy(arriving: arriving), !turns.forbids(copy: copy, to: ref) { nodes.append(Int32(nodeCount) + copy) }
            }
        }
        return nodes
    }

    /// The network node a node of the search graph stands for.
    public func baseNode(_ v: Int32) throws(RoutingError) -> Int32 {
        guard Int(v) >= nodeCount else { return v }
        let copy = Int(v) - nodeCount
        guard copy < turns.copyCount else { throw damaged("node \(v) does not exist") }
        return try arrival(turns.copyArc(copy))
    }
}
