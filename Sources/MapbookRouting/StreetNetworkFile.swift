import MapbookSupport

/// The network's file in a package (`<p>/network/<name>.mnet`, docs/FORMAT.md): a header, a
/// directory of sections, and the sections, each a flat little-endian array a reader uses in
/// place: nodes, edges, edge shapes, names, classes, the edge index and one contraction
/// hierarchy per metric.
public enum StreetNetworkFile {
    static let magic: [UInt8] = Array("MBNET\0\r\n".utf8)
    static let version: UInt32 = 2
    static let headerBytes = 32

    enum Section: UInt32, CaseIterable {
        case nodes = 1, edges, points, names, classes, index, incidence, source, turns
        case timeHierarchy = 16, distanceHierarchy

        static func hierarchy(_ metric: StreetNetwork.Metric) -> Section { metric == .time ? .timeHierarchy : .distanceHierarchy }
    }

    static let nodeBytes = 16
    static let edgeBytes = 40
    static let arcBytes = 16
    static let boxBytes = 32

    /// The file's bytes for `network` and its hierarchies.
    /// What the network was built from, for `validate` to compare: the layer (a table of the
    /// package's GeoPackage, relative to the network's folder) and the tolerance.
    public struct Source: Sendable, Equatable {
        public var data: String
        public var layer: String
        public var tolerance: Double

        public init(data: String, layer: String, tolerance: Double) {
            self.data = data
            self.layer = layer
            self.tolerance = tolerance
        }
    }

    public static func encode(_ network: StreetNetwork, hierarchies: [ContractionHierarchy], source: Source? = nil) -> [UInt8] {
        var sections: [(Section, [UInt8])] = []
        var b: [UInt8] = []
        func double(_ d: Double, _ out: inout [UInt8]) { out.appendLittleEndian(d.bitPattern) }

        for node in network.nodes { double(node.lon, &b); double(node.lat, &b) }
        sections.append((.nodes, b))
        b = []
        for edge in network.edges {
            b.appendLittleEndian(edge.from)
            b.appendLittleEndian(edge.to)
            b.appendLittleEndian(edge.millimetres)
            b.appendLittleEndian(edge.milliseconds)
            b.appendLittleEndian(edge.firstPoint)
            b.appendLittleEndian(edge.pointCount)
            b.appendLittleEndian(edge.name)
            b.appendLittleEndian(UInt16(truncatingIfNeeded: edge.roadClass))
            b.append(flags(edge))
            b.append(0)
            b.appendLittleEndian(edge.sourceId)
        }
        sections.append((.edges, b))
        b = []
        for p in network.points { double(p.lon, &b); double(p.lat, &b) }
        sections.append((.points, b))
        sections.append((.names, strings(network.names)))
        sections.append((.classes, strings(network.classes)))

        let (boxes, entries, levelEnds) = EdgeIndex.build(network)
        b = []
        b.appendLittleEndian(UInt32(levelEnds.count))
        b.appendLittleEndian(UInt32(boxes.count))
        for end in levelEnds { b.appendLittleEndian(end) }
        for box in boxes { double(box.minX, &b); double(box.minY, &b); double(box.maxX, &b); double(box.maxY, &b) }
        for entry in entries { b.appendLittleEndian(entry) }
        sections.append((.index, b))

        // Per node, the edges that meet there (starts, nodes + 1; then the edges): what
        // directions count exits and side streets by.
        var incident = [[Int32]](repeating: [], count: network.nodes.count)
        for (e, edge) in network.edges.enumerated() {
            incident[Int(edge.from)].append(Int32(e))
            if edge.to != edge.from { incident[Int(edge.to)].append(Int32(e)) }
        }
        b = []
        var start: UInt32 = 0
        b.appendLittleEndian(start)
        for list in incident {
            start += UInt32(list.count)
            b.appendLittleEndian(start)
        }
        for list in incident { for e in list { b.appendLittleEndian(e) } }
        sections.append((.incidence, b))

        if let source {
            let json: JSONValue = .object(["data": .string(source.data), "layer": .string(source.layer), "tolerance": .double(source.tolerance)])
            sections.append((.source, JSONWriter.bytes(json)))
        }

        // Forbidden turns (version 2): copy count, turn count, the arcs with copies (sorted),
        // then (copy, arc) per turn (sorted). The hierarchies' nodes are the network's and
        // then the copies.
        let turns = TurnList(network.forbiddenTurns)
        b = []
        b.appendLittleEndian(UInt32(turns.copyCount))
        b.appendLittleEndian(UInt32(turns.turnCount))
        for arc in turns.copies { b.appendLittleEndian(arc) }
        for t in turns.turns { b.appendLittleEndian(t.copy); b.appendLittleEndian(t.to) }
        sections.append((.turns, b))

        for hierarchy in hierarchies { sections.append((Section.hierarchy(hierarchy.metric), encode(hierarchy, nodes: hierarchy.rank.count))) }

        var out = magic
        out.appendLittleEndian(version)
        out.appendLittleEndian(UInt32(network.nodes.count))
        out.appendLittleEndian(UInt32(network.edges.count))
        out.appendLittleEndian(UInt32(network.points.count))
        out.appendLittleEndian(UInt32(sections.count))
        out.appendLittleEndian(UInt32(0))
        // The directory: id, offset, length; sections start on 8-byte boundaries.
        var offset = UInt64(headerBytes + sections.count * 24)
        var directory: [UInt8] = []
        for (section, bytes) in sections {
            offset = (offset + 7) / 8 * 8
            directory.appendLittleEndian(section.rawValue)
            directory.appendLittleEndian(UInt32(0))
            directory.appendLittleEndian(offset)
            directory.appendLittleEndian(UInt64(bytes.count))
            offset += UInt64(bytes.count)
        }
        out += directory
        for (_, bytes) in sections {
            while out.count % 8 != 0 { out.append(0) }
            out += bytes
        }
        return out
    }

    /// Direction in the low two bits (0 both, 1 with, 2 against, 3 closed), roundabout 4.
    static func flags(_ edge: StreetNetwork.Edge) -> UInt8 {
        edge.direction.rawValue | (edge.roundabout ? 4 : 0)
    }

    /// Count, offsets (count + 1) into the UTF-8 bytes that follow.
    static func strings(_ list: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(UInt32(list.count))
        var offset: UInt32 = 0
        out.appendLittleEndian(offset)
        for s in list {
            offset += UInt32(s.utf8.count)
            out.appendLittleEndian(offset)
        }
        for s in list { out += Array(s.utf8) }
        return out
    }

    /// Arc count; up starts (nodes + 1); down starts (nodes + 1); ranks (nodes); the arcs,
    /// each node's up arcs (target, weight, first, second) and then every node's down arcs
    /// (source, ...), then arcs in no list that shortcuts stand for. Shortcut children are
    /// positions in this arc array.
    static func encode(_ h: ContractionHierarchy, nodes n: Int) -> [UInt8] {
        let upCount = h.upArcs.count
        var position = [Int32](repeating: -1, count: h.arcs.count)
        for (i, id) in h.upArcs.enumerated() { position[Int(id)] = Int32(i) }
        for (i, id) in h.downArcs.enumerated() { position[Int(id)] = Int32(upCount + i) }
        // An arc in no node's list that a shortcut stands for follows the down arcs (a
        // hierarchy built by `CustomizableHierarchy` lists every arc it has).
        var unlisted: [Int32] = []
        for id in 0..<h.arcs.count where position[id] < 0 {
            position[id] = Int32(upCount + h.downArcs.count + unlisted.count)
            unlisted.append(Int32(id))
        }
        var out: [UInt8] = []
        out.appendLittleEndian(UInt32(h.arcs.count))
        out.appendLittleEndian(UInt32(0))
        for v in 0...n { out.appendLittleEndian(UInt32(h.upStart[v])) }
        for v in 0...n { out.appendLittleEndian(UInt32(upCount) + UInt32(h.downStart[v])) }
        for v in 0..<n { out.appendLittleEndian(h.rank[v]) }
        func arc(_ id: Int32, end: Int32) {
            let a = h.arcs[Int(id)]
            out.appendLittleEndian(end)
            out.appendLittleEndian(a.weight)
            if a.isShortcut {
                out.appendLittleEndian(position[Int(a.first)])
                out.appendLittleEndian(position[Int(a.second)])
            } else {
                out.appendLittleEndian(a.first)
                out.appendLittleEndian(Int32(-1))
            }
        }
        for id in h.upArcs { arc(id, end: h.arcs[Int(id)].target) }
        for id in h.downArcs { arc(id, end: h.arcs[Int(id)].source) }
        for id in unlisted { arc(id, end: h.arcs[Int(id)].target) }
        return out
    }
}
