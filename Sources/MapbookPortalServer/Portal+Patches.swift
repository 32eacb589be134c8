import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Entry patches (updates by delta, docs/PORTAL.md "Updates by delta"): when a new version of a
/// package arrives, however it arrives, each entry that changed gets a patch from the same
/// entry of the version before, kept as an info file of the item and listed in
/// `mapbook/patches.json`. A device holding an older version applies them in a chain; `portal
/// gc` removes those no reporting device needs.
extension Portal {
    /// The version a new one replaces: what its patches start from, and a republish's base.
    struct PreviousVersion: Sendable {
        var version: String
    }

    /// Entries smaller than this are fetched whole: a request costs more than a patch saves.
    static let smallestPatchedEntry: Int64 = 4096

    /// Makes the patches giving `layout`'s changed entries (the new version, at `newPath` on
    /// this machine, the item's `modified` from now `modified`) from `previous`, and adds them
    /// to the item's index. Patches are a saving, not a promise: a failure keeps nothing and
    /// devices fetch the changed blocks instead.
    func makePatches(itemId: String, previous: PreviousVersion, newPath: String, layout: PackageLayout, modified: Int64) async {
        guard let bytes = try? await files.infoBytes(itemId: itemId, path: Self.layoutPath), let value = try? JSONParser.parse(bytes),
            let before = PackageLayout(json: value),
            let stored = try? await files.dataFile(itemId: itemId, version: previous.version),
            let oldFile = try? files.randomAccess(stored)
        else { return }
        let held = Set(before.entries.map(\.sha256))
        let byName = Dictionary(before.entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let changed = layout.entries.compactMap { e -> (PackageLayout.Entry, PackageLayout.Entry)? in
            guard !held.contains(e.sha256), e.size >= Self.smallestPatchedEntry, let old = byName[e.name], old.size > 0 else { return nil }
            return (old, e)
        }
        guard !changed.isEmpty, let newFile = try? RandomAccessFile(path: newPath) else { return }
        var made: [PatchIndex.Patch] = []
        for (var old, new) in changed {
            if let bytes = try? await files.infoBytes(itemId: itemId, path: PackageLayout.blocksPath(old.sha256)) {
                old.blocks = PackageLayout.blocks(bytes, of: old) ?? []
            }
            // A patch is worth keeping only when it costs less than the entry's changed blocks.
            let limit = Int(min(DeltaPlan.blockCost(new, before: old), Int64(Int.max))) - 1
            let (oldOffset, oldSize) = (old.dataOffset, Int(old.size))
            let patch = try? await NIOThreadPool.singleton.runIfActive { () throws -> [UInt8]? in
                let from = try oldFile.map(offset: oldOffset, length: oldSize)
                let to = try newFile.map(offset: new.dataOffset, length: Int(new.size))
                return try from.withUnsafeBytes { from in try to.withUnsafeBytes { to in try EntryPatch.make(from: from, to: to, limit: limit, path: newPath) } }
            }
            guard let patch = patch ?? nil else { continue }
            let entry = PatchIndex.Patch(name: new.name, from: old.sha256, fromSize: old.size, to: new.sha256, toSize: new.size, size: Int64(patch.count), modified: modified)
            guard (try? await files.putInfo(itemId: itemId, path: entry.path, bytes: patch)) != nil else { continue }
            made.append(entry)
        }
        guard !made.isEmpty else { return }
        var index = await patchIndex(itemId)
        let kept = Set(made.map(\.path))
        index.patches = index.patches.filter { !kept.contains($0.path) } + made
        try? await files.putInfo(itemId: itemId, path: PatchIndex.path, bytes: JSONWriter.bytes(index.jsonValue, style: .compact))
    }

    /// Keeps a version's layout: its entries' blocks files first, then the layout naming them.
    /// Like the patches, a saving: a device without them downloads the whole file.
    func storeLayout(_ layout: PackageLayout, itemId: String) async {
        for entry in layout.entries where !entry.blocks.isEmpty {
            guard (try? await files.putInfo(itemId: itemId, path: PackageLayout.blocksPath(entry.sha256), bytes: PackageLayout.blocksBytes(entry))) != nil else { return }
        }
        try? await files.putInfo(itemId: itemId, path: Self.layoutPath, bytes: JSONWriter.bytes(layout.jsonValue, style: .compact))
    }

    /// The item's patch index; empty when it has none.
    func patchIndex(_ itemId: String) async -> PatchIndex {
        guard let bytes = try? await files.infoBytes(itemId: itemId, path: PatchIndex.path), let value = try? JSONParser.parse(bytes),
            let index = PatchIndex(json: value)
        else { return PatchIndex() }
        return index
    }

    /// What `portal gc` did.
    public struct PatchPruning: Sendable, Equatable {
        public var items = 0
        public var patches = 0
        public var bytes: Int64 = 0

        /// What `portal gc` prints.
        public var line: String {
            "removed \(Format.count(patches)) entry patch\(patches == 1 ? "" : "es") (\(Format.bytes(bytes))) of \(Format.count(items, "item")) that every reporting device has gone past"
        }
    }

    /// Removes the patches no device needs: those leading to a version at or before the oldest
    /// version a device reports holding for its item. An item no device reports on keeps its
    /// patches (nobody can say what the field holds).
    public func prunePatches() async throws -> PatchPruning {
        var pruning = PatchPruning()
        for record in try await store.items() {
            let index = await patchIndex(record.item.id)
            guard !index.patches.isEmpty else { continue }
            let reports = try await store.deviceReports(itemId: record.item.id)
            guard let oldest = reports.map(\.heldModified).min() else { continue }
            let gone = index.patches.filter { $0.modified <= oldest }
            guard !gone.isEmpty else { continue }
            let kept = PatchIndex(patches: index.patches.filter { $0.modified > oldest })
            // The index first: a device never reads of a patch that is no longer there.
            try await files.putInfo(itemId: record.item.id, path: PatchIndex.path, bytes: JSONWriter.bytes(kept.jsonValue, style: .compact))
            for patch in gone { await files.removeInfo(itemId: record.item.id, path: patch.path) }
            pruning.items += 1
            pruning.patches += gone.count
            pruning.bytes += gone.reduce(0) { $0 + $1.size }
        }
        return pruning
    }
}
