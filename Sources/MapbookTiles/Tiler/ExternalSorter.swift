/// Sorts more fixed-size records than memory may hold, as tippecanoe and planetiler do:
/// records gather in a buffer of at most `memory` bytes; a full buffer is sorted and written to
/// a temporary file as a run, and reading merges the runs. Input that fits one buffer never
/// touches the disk.
///
/// The order must be total (ties broken by a unique field), so the output is the same however
/// the input falls into runs.
final class ExternalSorter<Element: BitwiseCopyable> {
    private let runCapacity: Int
    private let directory: String
    private let precedes: (Element, Element) -> Bool
    private var buffer: [Element] = []
    private var bufferSorted = false
    private var file: TilerWorkFile?
    /// Start and element count of each run in the file.
    private var runs: [(start: Int64, count: Int)] = []

    /// `memory` bytes of buffer; runs are written in `directory`.
    init(memory: Int, directory: String, by precedes: @escaping (Element, Element) -> Bool) {
        runCapacity = max(memory / MemoryLayout<Element>.stride, 64)
        self.directory = directory
        self.precedes = precedes
    }

    /// Whether the records went to the disk (more than one buffer's worth).
    var spilled: Bool { !runs.isEmpty }

    func append(_ element: Element) throws {
        if buffer.count >= runCapacity { try spill() }
        // The whole run at once: growing by doubling would overshoot the memory by up to
        // half again, and the pages are only touched as records arrive.
        if buffer.isEmpty { buffer.reserveCapacity(runCapacity) }
        buffer.append(element)
        bufferSorted = false
    }

    /// Forgets every record, keeping the settings.
    func removeAll() {
        buffer = []
        runs = []
        file = nil
    }

    private func spill() throws {
        guard !buffer.isEmpty else { return }
        buffer.sort(by: precedes)
        if file == nil { file = try TilerWorkFile(in: directory, purpose: "sort") }
        let start = file!.size
        try buffer.withUnsafeBytes { bytes in try file!.append(bytes) }
        runs.append((start, buffer.count))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with every record in order. May be called again, with the same result.
    func forEach(_ body: (Element) throws -> Void) throws {
        if runs.isEmpty {
            if !bufferSorted {
                buffer.sort(by: precedes)
                bufferSorted = true
            }
            for element in buffer { try body(element) }
            return
        }
        try spill()
        buffer = []
        try merge(body)
    }

    /// A k-way merge: each run is read a chunk at a time; a binary heap of the runs keyed by
    /// their current record picks the next.
    private func merge(_ body: (Element) throws -> Void) throws {
        let size = MemoryLayout<Element>.stride
        let chunk = max(runCapacity / runs.count, 256)
        var chunks = [[Element]](repeating: [], count: runs.count)
        var positions = [Int](repeating: 0, count: runs.count)  // next record of each run to load
        var cursors = [Int](repeating: 0, count: runs.count)  // next record within its chunk
        func load(_ r: Int) throws -> Bool {
            let n = min(chunk, runs[r].count - positions[r])
            guard n > 0 else { return false }
            chunks[r] = try [Element](unsafeUninitializedCapacity: n) { pointer, initialized in
                try file!.read(into: UnsafeMutableRawBufferPointer(pointer), at: runs[r].start + Int64(positions[r] * size))
                initialized = n
            }
            positions[r] += n
            cursors[r] = 0
            return true
        }
        var heap: [Int] = []
        func less(_ a: Int, _ b: Int) -> Bool {
            let x = chunks[a][cursors[a]], y = chunks[b][cursors[b]]
            return precedes(x, y) || (!precedes(y, x) && a < b)
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < heap.count, less(heap[l], heap[smallest]) { smallest = l }
                if r < heap.count, less(heap[r], heap[smallest]) { smallest = r }
                if smallest == i { return }
                heap.swapAt(i, smallest)
                i = smallest
            }
        }
        for r in runs.indices where try load(r) { heap.append(r) }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let r = heap.first {
            try body(chunks[r][cursors[r]])
            cursors[r] += 1
            if cursors[r] == chunks[r].count, !(try load(r)) {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
