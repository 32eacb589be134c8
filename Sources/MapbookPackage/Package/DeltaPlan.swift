import MapbookSupport

/// How to build a new version of a package from the one held: the new file's bytes, in order,
/// each run either copied from the old file or fetched (issue 35, docs/PORTAL.md "Updates by
/// delta").
///
/// An entry whose SHA-256 the old package has (under any name) is copied whole. A changed entry
/// is built from an entry held by the portal's patches (`PatchIndex`) when a chain of them
/// leads there and costs fewer bytes than the alternative: with block hashes, comparing it
/// 4 KiB block by block with the old entry of the same name (a database's unchanged pages are
/// copied). Everything else (headers, the directory, changed blocks and small changed entries)
/// is fetched. Fetches a few kilobytes apart become one, so a handful of changed pages costs a
/// handful of requests.
public struct DeltaPlan: Sendable, Equatable {
    public enum Run: Sendable, Equatable {
        /// `length` bytes from `oldOffset` of the old file.
        case copy(oldOffset: Int64, length: Int64)
        /// `length` bytes from `offset` of the new file, fetched.
        case fetch(offset: Int64, length: Int64)
        /// An entry's data, built by patches from an entry held.
        case patch(PatchedEntry)

        public var length: Int64 {
            switch self {
            case .copy(_, let length), .fetch(_, let length): return length
            case .patch(let entry): return entry.size
            }
        }
    }

    /// A changed entry built from one held: the patches applied in order to the held entry's
    /// bytes give the new entry's, which are checked against its hash (a failure fetches
    /// `offset..<offset + size` of the new file instead).
    public struct PatchedEntry: Sendable, Equatable {
        public var name: String
        public var offset: Int64
        public var size: Int64
        public var sha256: String
        /// The held entry's data in the old file.
        public var oldOffset: Int64
        public var oldSize: Int64
        public var chain: [PatchIndex.Patch]

        public var patchBytes: Int64 { chain.reduce(0) { $0 + $1.size } }
    }

    /// In the new file's order, covering it exactly once.
    public var runs: [Run]
    public var fileBytes: Int64

    /// Copies shorter than this between two fetches are fetched instead: a request costs more
    /// than a few kilobytes.
    public static let mergeGap: Int64 = 16 << 10

    /// The bytes the plan fetches: ranges and patches.
    public var fetchedBytes: Int64 {
        runs.reduce(0) {
            switch $1 {
            case .fetch(_, let n): return $0 + n
            case .patch(let entry): return $0 + entry.patchBytes
            case .copy: return $0
            }
        }
    }
    public var requests: Int {
        runs.reduce(0) {
            switch $1 {
            case .fetch: return $0 + 1
            case .patch(let entry): return $0 + entry.chain.count
            case .copy: return $0
            }
        }
    }

    public init(new: PackageLayout, old: PackageLayout, patches: PatchIndex = PatchIndex()) {
        fileBytes = new.size
        var runs: [Run] = []
        func fetch(_ from: Int64, _ to: Int64) {
            guard to > from else { return }
            if case .fetch(let offset, let length)? = runs.last, offset + length == from {
                runs[runs.count - 1] = .fetch(offset: offset, length: length + to - from)
            } else {
                runs.append(.fetch(offset: from, length: to - from))
            }
        }
        func copy(_ oldOffset: Int64, _ length: Int64) {
            guard length > 0 else { return }
            if case .copy(let offset, let n)? = runs.last, offset + n == oldOffset {
                runs[runs.count - 1] = .copy(oldOffset: offset, length: n + length)
            } else {
                runs.append(.copy(oldOffset: oldOffset, length: length))
            }
        }
        var bySHA: [String: PackageLayout.Entry] = [:]
        for e in old.entries where bySHA[e.sha256] == nil { bySHA[e.sha256] = e }
        let byName = Dictionary(old.entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let held = Set(bySHA.keys)
        var position: Int64 = 0
        for e in new.entries {
            fetch(position, e.dataOffset)
            defer { position = e.dataOffset + e.size }
            if let same = bySHA[e.sha256], same.size == e.size {
                copy(same.dataOffset, e.size)
                continue
            }
            if let chain = patches.chain(to: e.sha256, from: held), let first = chain.first, let source = bySHA[first.from], source.size == first.fromSize,
                chain.last?.toSize == e.size, chain.reduce(0, { $0 + $1.size }) < Self.blockCost(e, before: byName[e.name])
            {
                runs.append(.patch(PatchedEntry(name: e.name, offset: e.dataOffset, size: e.size, sha256: e.sha256, oldOffset: source.dataOffset, oldSize: source.size, chain: chain)))
            } else if !e.blocks.isEmpty, let before = byName[e.name], !before.blocks.isEmpty {
                let block = Int64(PackageLayout.blockSize)
                var oldBlocks: [UInt64: Int64] = [:]
                for (j, h) in before.blocks.enumerated() where Int64(j + 1) * block <= before.size && oldBlocks[h] == nil {
                    oldBlocks[h] = Int64(j)
                }
                for (i, h) in e.blocks.enumerated() {
                    let start = Int64(i) * block, length = min(block, e.size - start)
                    // Only whole blocks are matched: a short last block is fetched.
                    if length == block, let j = oldBlocks[h] {
                        copy(before.dataOffset + j * block, length)
                    } else {
                        fetch(e.dataOffset + start, e.dataOffset + start + length)
                    }
                }
            } else {
                fetch(e.dataOffset, e.dataOffset + e.size)
            }
        }
        fetch(position, new.size)
        self.runs = Self.merged(runs)
    }

    /// What fetching a changed entry costs without patches: its changed whole blocks when
    /// both versions have block hashes, else all of it.
    public static func blockCost(_ e: PackageLayout.Entry, before: PackageLayout.Entry?) -> Int64 {
        guard !e.blocks.isEmpty, let before, !before.blocks.isEmpty else { return e.size }
        let block = Int64(PackageLayout.blockSize)
        let held = Set(before.blocks.enumerated().filter { Int64($0.offset + 1) * block <= before.size }.map(\.element))
        var cost: Int64 = 0
        for (i, h) in e.blocks.enumerated() {
            let start = Int64(i) * block, length = min(block, e.size - start)
            if length < block || !held.contains(h) { cost += length }
        }
        return cost
    }

    /// Short copies between fetches folded into one fetch.
    static func merged(_ runs: [Run]) -> [Run] {
        var out: [Run] = []
        for run in runs {
            if case .fetch(_, let length) = run, out.count >= 2, case .copy(_, let gap) = out[out.count - 1], gap < mergeGap,
                case .fetch(let start, let before) = out[out.count - 2]
            {
                out.removeLast(2)
                out.append(.fetch(offset: start, length: before + gap + length))
                continue
            }
            out.append(run)
        }
        return out
    }
}
