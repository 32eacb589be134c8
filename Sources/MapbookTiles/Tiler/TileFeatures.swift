/// One tile's feature records, read from the tiler's feature file into memory of a builder's
/// own. Read, not mapped: a tile's features lie scattered over the file, and mapping them
/// would make every feature cost a page of memory (more with the kernel's fault-around) until
/// the pages were given back.
final class TileFeatures {
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0
    private var starts: [Int] = []

    deinit { storage?.deallocate() }

    /// Reads the records of `assignments`; runs of records next to each other in the file are
    /// read at once.
    func gather(_ assignments: UnsafeBufferPointer<Tiler.Assignment>, from file: TilerWorkFile) throws {
        starts.removeAll(keepingCapacity: true)
        var total = 0
        for a in assignments {
            starts.append(total)
            total += Int(a.length)
        }
        if total > capacity {
            storage?.deallocate()
            capacity = max(total, 2 * capacity, 1 << 16)
            storage = .allocate(byteCount: capacity, alignment: 16)
        }
        guard let storage else { return }
        var i = 0
        while i < assignments.count {
            var end = i + 1
            while end < assignments.count, assignments[end].offset == assignments[end - 1].offset + Int(assignments[end - 1].length) { end += 1 }
            let bytes = starts[end - 1] + Int(assignments[end - 1].length) - starts[i]
            try file.read(into: UnsafeMutableRawBufferPointer(start: storage + starts[i], count: bytes), at: Int64(assignments[i].offset))
            i = end
        }
    }

    /// Gives back the memory of an unusually large tile (more than 64 MiB of records).
    func shrink() {
        guard capacity > 64 << 20 else { return }
        storage?.deallocate()
        storage = nil
        capacity = 0
    }

    /// The record of the `i`th assignment.
    subscript(i: Int) -> TilerRecord { TilerRecord(base: UnsafeRawPointer(storage! + starts[i])) }
}
