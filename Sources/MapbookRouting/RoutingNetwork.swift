import MapbookPackage
import MapbookSupport
import Synchronization

/// A street network read in place from its file (`StreetNetworkFile`): from a package's
/// entry mapped into memory, or from bytes. Nothing is unpacked or loaded whole; what a query
/// touches is read where it lies. Every index read from the file is checked before use, so a
/// damaged file gives `RoutingError.damaged`, never a crash.
public final class RoutingNetwork: @unchecked Sendable {
    let mapped: MappedBytes?
    let owned: UnsafeMutableRawBufferPointer?
    let bytes: UnsafeRawBufferPointer
    public let source: String
    public let nodeCount: Int
    public let edgeCount: Int
    let pointCount: Int
    /// The forbidden turns, and the nodes of the graph searches run on: the network's, then
    /// one copy per arc with turns forbidden after it (`TurnGraph`).
    public private(set) var turns = StoredTurns()
    public private(set) var graphNodeCount = 0
    var sections: [StreetNetworkFile.Section: Range<Int>] = [:]
    let checkedHierarchies = Mutex<[StreetNetwork.Metric: StoredHierarchy]>([:])

    /// Reads the network in `range` (a stored entry of a package), mapped into memory.
    public convenience init(range: ByteRange, source: String) throws(RoutingError) {
        let mapped: MappedBytes
        do { mapped = try range.mapped() } catch { throw RoutingError(kind: .damaged, source: source, message: "cannot map the network: \(error)") }
        try self.init(mapped: mapped, owned: nil, bytes: mapped.bytes, source: source)
    }

    /// Reads the network in `data` (a copy is kept).
    public convenience init(data: [UInt8], source: String) throws(RoutingError) {
        let owned = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 8)
        data.withUnsafeBytes { owned.copyMemory(from: $0) }
        try self.init(mapped: nil, owned: owned, bytes: UnsafeRawBufferPointer(rebasing: owned[0..<data.count]), source: source)
    }

    private init(mapped: MappedBytes?, owned: UnsafeMutableRawBufferPointer?, bytes: UnsafeRawBufferPointer, source: String) throws(RoutingError) {
        self.mapped = mapped
        self.owned = owned
        self.bytes = bytes
        self.source = source
        func fail(_ kind: RoutingError.Kind, _ message: String) -> RoutingError {
            owned?.deallocate()
            return RoutingError(kind: kind, source: source, message: message)
        }
        guard bytes.count >= StreetNetworkFile.headerBytes, Array(bytes[0..<8]) == StreetNetworkFile.magic else {
            throw fail(.notANetwork, "not a Mapbook street network (no MBNET header)")
        }
        let version = bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard version <= StreetNetworkFile.version else { throw fail(.newerVersion, "the network is version \(version), newer than this mapbook reads (\(StreetNetworkFile.version)); use a newer mapbook") }
        nodeCount = Int(bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        edgeCount = Int(bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        pointCount = Int(bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        let sectionCount = Int(bytes.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        guard sectionCount <= 64, StreetNetworkFile.headerBytes + sectionCount * 24 <= bytes.count else { throw fail(.damaged, "the section directory runs past the end of the file") }
        for i in 0..<sectionCount {
            let at = StreetNetworkFile.headerBytes + i * 24
            let id = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            let offset = bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)
            let length = bytes.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else { throw fail(.damaged, "section \(id) lies past the end of the file") }
            if let section = StreetNetworkFile.Section(rawValue: id) { sections[section] = Int(offset)..<Int(offset + length) }
        }
        let expected: [(StreetNetworkFile.Section, Int)] = [
            (.nodes, nodeCount * StreetNetworkFile.nodeBytes), (.edges, edgeCount * StreetNetworkFile.edgeBytes), (.points, pointCount * StreetNetworkFile.nodeBytes),
        ]
        for (section, size) in expected {
            guard sections[section]?.count == size else { throw fail(.damaged, "the \(section) section is not \(size) bytes") }
        }
        for section in [StreetNetworkFile.Section.names, .classes, .index, .incidence] where sections[section] == nil {
            throw fail(.damaged, "the \(section) section is missing")
        }
        if let range = sections[.turns] {
            guard range.count >= 8 else { throw fail(.damaged, "the turns section is too short") }
            let copies = Int(bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt32.self))
            let count = Int(bytes.loadUnaligned(fromByteOffset: range.lowerBound + 4, as: UInt32.self))
            guard 8 + copies * 4 + count * 8 == range.count, copies <= count else { throw fail(.damaged, "the turns section's size does not match its counts") }
            turns = StoredTurns(bytes: bytes, copies: range.lowerBound + 8, copyCount: copies, turns: range.lowerBound + 8 + copies * 4, turnCount: count)
        }
        graphNodeCount = nodeCount + turns.copyCount
    }

    deinit { owned?.deallocate() }

    // MARK: Reading

    @inline(__always) func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
    @inline(__always) func i32(_ at: Int) -> Int32 { bytes.loadUnaligned(fromByteOffset: at, as: Int32.self) }
    @inline(__always) func f64(_ at: Int) -> Double { bytes.loadUnaligned(fromByteOffset: at, as: Double.self) }

    func damaged(_ message: String) -> RoutingError { RoutingError(kind: .damaged, source: source, message: message) }

    public func node(_ i: Int32) throws(RoutingError) -> StreetNetwork.Node {
        guard i >= 0, Int(i) < nodeCount else { throw damaged("node \(i) does not exist") }
        let at = sections[.nodes]!.lowerBound + Int(i) * StreetNetworkFile.nodeBytes
        return StreetNetwork.Node(lon: f64(at), lat: f64(at + 8))
    }

    public func edge(_ e: Int32) throws(RoutingError) -> StreetNetwork.Edge {
        guard e >= 0, Int(e) < edgeCount else { throw damaged("edge \(e) does not exist") }
        let at = sections[.edges]!.lowerBound + Int(e) * StreetNetworkFile.edgeBytes
        let flags = bytes[at + 30]
        let direction = TravelDirection(rawValue: flags & 3)!
        let edge = StreetNetwork.Edge(
            from: i32(at), to: i32(at + 4), millimetres: u32(at + 8), milliseconds: u32(at + 12), direction: direction,
            name: i32(at + 24), roadClass: Int32(bytes.loadUnaligned(fromByteOffset: at + 28, as: UInt16.self)),
            sourceId: bytes.loadUnaligned(fromByteOffset: at + 32, as: Int64.self),
            firstPoint: i32(at + 16), pointCount: i32(at + 20), roundabout: flags & 4 != 0)
        guard edge.from >= 0, Int(edge.from) < nodeCount, edge.to >= 0, Int(edge.to) < nodeCount, edge.firstPoint >= 0, edge.pointCount >= 2,
            Int(edge.firstPoint) + Int(edge.pointCount) <= pointCount
        else { throw damaged("edge \(e) points outside the network") }
        return edge
    }

    public func shape(_ e: Int32) throws(RoutingError) -> [StreetNetwork.Node] {
        let edge = try edge(e)
        let base = sections[.points]!.lowerBound
        return (Int(edge.firstPoint)..<Int(edge.firstPoint + edge.pointCount)).map { i in
            StreetNetwork.Node(lon: f64(base + i * 16), lat: f64(base + i * 16 + 8))
        }
    }

    /// What the network was built from, if the file says.
    public var builtFrom: StreetNetworkFile.Source? {
        guard let range = sections[.source],
            let json = try? JSONParser.parse(Array(bytes[range])).objectValue,
            let data = json.string("data"), let layer = json.string("layer")
        else { return nil }
        return StreetNetworkFile.Source(data: data, layer: layer, tolerance: json.double("tolerance") ?? 0)
    }

    /// The edges that meet at `node`.
    public func incidentEdges(_ node: Int32) throws(RoutingError) -> [Int32] {
        guard let range = sections[.incidence], node >= 0, Int(node) < nodeCount, range.count >= (nodeCount + 1) * 4 else { throw damaged("node \(node) has no list of edges") }
        let from = Int(u32(range.lowerBound + Int(node) * 4)), to = Int(u32(range.lowerBound + Int(node) * 4 + 4))
        let list = range.lowerBound + (nodeCount + 1) * 4
        guard from <= to, list + to * 4 <= range.upperBound else { throw damaged("node \(node)'s list of edges lies outside the file") }
        return (from..<to).map { i32(list + $0 * 4) }
    }

    public func name(_ i: Int32) -> String { string(.names, i) }
    public func roadClass(_ i: Int32) -> String { string(.classes, i) }

    func string(_ section: StreetNetworkFile.Section, _ i: Int32) -> String {
        guard let range = sections[section], range.count >= 8 else { return "" }
        let count = Int(u32(range.lowerBound))
        guard i >= 0, Int(i) < count, range.lowerBound + 8 + count * 4 <= range.upperBound else { return "" }
        let offsets = range.lowerBound + 4
        let text = offsets + (count + 1) * 4
        let start = Int(u32(offsets + Int(i) * 4)), end = Int(u32(offsets + Int(i) * 4 + 4))
        guard start <= end, text + end <= range.upperBound else { return "" }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(text + start)..<(text + end)]), as: UTF8.self)
    }

    /// The metrics the network has a hierarchy for: what routes on it may minimise.
    public var metrics: [StreetNetwork.Metric] { StreetNetwork.Metric.allCases.filter { sections[.hierarchy($0)] != nil } }

    /// The hierarchy for `metric`, checked enough that a query cannot read outside it. The
    /// check reads every node's arc list once; later routes reuse its result.
    public func hierarchy(_ metric: StreetNetwork.Metric) throws(RoutingError) -> StoredHierarchy {
        if let checked = checkedHierarchies.withLock({ $0[metric] }) { return checked }
        guard let range = sections[.hierarchy(metric)] else {
            throw RoutingError(kind: .noNetwork, source: source, message: "the network has no hierarchy for \(metric == .time ? "time" : "distance") (its project's metrics leave it out); route by \(metric == .time ? "distance" : "time")")
        }
        let hierarchy = try StoredHierarchy(self, range)
        checkedHierarchies.withLock { $0[metric] = hierarchy }
        return hierarchy
    }
}

/// A contraction hierarchy as stored in a network file.
public struct StoredHierarchy: HierarchyGraph, Sendable {
    let network: RoutingNetwork
    let upStart: Int
    let downStart: Int
    let ranks: Int
    let arcs: Int
    public let arcCount: Int

    init(_ network: RoutingNetwork, _ range: Range<Int>) throws(RoutingError) {
        self.network = network
        let n = network.graphNodeCount
        guard range.count >= 8 else { throw network.damaged("the hierarchy is empty") }
        arcCount = Int(network.u32(range.lowerBound))
        upStart = range.lowerBound + 8
        downStart = upStart + (n + 1) * 4
        ranks = downStart + (n + 1) * 4
        arcs = ranks + n * 4
        guard arcs + arcCount * StreetNetworkFile.arcBytes == range.upperBound else { throw network.damaged("the hierarchy's size does not match its counts") }
        // Each node's arcs must lie within the arc array, in order: checked once, here.
        var previousUp: UInt32 = 0, previousDown: UInt32 = 0
        for v in 0...n {
            let up = network.u32(upStart + v * 4), down = network.u32(downStart + v * 4)
            guard up >= previousUp, down >= previousDown, Int(up) <= arcCount, Int(down) <= arcCount else { throw network.damaged("the hierarchy's arc lists are out of order") }
            previousUp = up
            previousDown = down
        }
    }

    public func arcs(_ node: Int32, up: Bool) -> Range<Int> {
        guard node >= 0, Int(node) < network.graphNodeCount else { return 0..<0 }
        let at = (up ? upStart : downStart) + Int(node) * 4
        return Int(network.u32(at))..<Int(network.u32(at + 4))
    }

    @inline(__always) public func arc(at position: Int, up: Bool) -> (id: Int32, end: Int32, weight: UInt32) {
        let at = arcs + position * StreetNetworkFile.arcBytes
        let end = network.i32(at)
        // An arc to a node that does not exist is skipped; `validate` reports it.
        return (Int32(position), end >= 0 && Int(end) < network.graphNodeCount ? end : -1, network.u32(at + 4))
    }

    public var nodeCount: Int { network.graphNodeCount }

    /// A node's place in the hierarchy (-1 for a node that does not exist).
    public func rank(_ node: Int32) -> Int32 {
        guard node >= 0, Int(node) < network.graphNodeCount else { return -1 }
        return network.i32(ranks + Int(node) * 4)
    }

    /// An arc's weight, if the arc exists.
    public func arcWeight(_ id: Int32) -> UInt32? {
        guard id >= 0, Int(id) < arcCount else { return nil }
        return network.u32(arcs + Int(id) * StreetNetworkFile.arcBytes + 4)
    }

    public func arcParts(_ id: Int32) -> (first: Int32, second: Int32) {
        guard id >= 0, Int(id) < arcCount else { return (-1, -1) }
        let at = arcs + Int(id) * StreetNetworkFile.arcBytes
        return (network.i32(at + 8), network.i32(at + 12))
    }
}
