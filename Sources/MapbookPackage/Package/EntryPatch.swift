import CZstd
import MapbookSupport

/// A changed entry of a package as a patch from the entry it was in the version before
/// (updates by delta, docs/PORTAL.md "Updates by delta"): a Zstandard frame compressed with
/// the old entry's bytes as its prefix, which is what `zstd --patch-from=OLD NEW` writes, so
/// `zstd -d --long=31 --patch-from=OLD PATCH` applies one too.
///
/// A byte-level patch finds whatever the new entry shares with the old, wherever it moved: a
/// database's changed rows inside their pages, a map's text that shifts, a tile bundle's
/// unchanged tiles. The portal makes them when a version arrives; a device applies them to
/// the entries it holds and checks the result's SHA-256 before using it.
public enum EntryPatch {
    /// Zstandard's largest window on 64-bit machines: old and new entry together must fit.
    static let largestWindowLog: Int32 = 31

    /// The patch giving `new` from `old`; nil when it would be larger than `limit` bytes (not
    /// worth fetching) or the two are too large for one window.
    ///
    /// The corresponding C functions are `ZSTD_CCtx_refPrefix` and `ZSTD_compressStream2`.
    public static func make(from old: UnsafeRawBufferPointer, to new: UnsafeRawBufferPointer, limit: Int, path: String) throws(ArchiveError) -> [UInt8]? {
        let span = UInt64(old.count) + UInt64(new.count)
        guard span < (UInt64(1) << largestWindowLog) else { return nil }
        var windowLog: Int32 = 10
        while UInt64(1) << UInt64(windowLog) < span { windowLog += 1 }
        guard let context = ZSTD_createCCtx() else { throw ArchiveError(kind: .tooLarge, operation: "patch", path: path, message: "no memory for a patch") }
        defer { ZSTD_freeCCtx(context) }
        // The strongest level for entries of a few megabytes (a second or two); a faster one
        // with long-distance matching for large databases and bundles, as zstd's own
        // --patch-from does.
        let large = new.count > 32 << 20
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, large ? 9 : 19)
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        if large { ZSTD_CCtx_setParameter(context, ZSTD_c_enableLongDistanceMatching, 1) }
        ZSTD_CCtx_setPledgedSrcSize(context, UInt64(new.count))
        ZSTD_CCtx_refPrefix(context, old.baseAddress, old.count)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var input = ZSTD_inBuffer(src: new.baseAddress, size: new.count, pos: 0)
        while true {
            let (remaining, written) = chunk.withUnsafeMutableBytes { buffer in
                var out = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                let r = ZSTD_compressStream2(context, &out, &input, ZSTD_e_end)
                return (r, out.pos)
            }
            if ZSTD_isError(remaining) != 0 {
                throw ArchiveError(kind: .damaged, operation: "patch", path: path, message: "Zstandard failed: " + String(cString: ZSTD_getErrorName(remaining)))
            }
            output += chunk[0..<written]
            if output.count > limit { return nil }
            if remaining == 0 { return output }
        }
    }

    /// Applies `patch` to `old`, handing the new entry's bytes to `write` in order; refused
    /// (`.damaged`) when the patch is not one Zstandard frame, does not fit `old`, or gives
    /// other than `size` bytes. The caller checks the bytes' hash.
    ///
    /// The corresponding C functions are `ZSTD_DCtx_refPrefix` and `ZSTD_decompressStream`.
    public static func apply(
        _ patch: UnsafeRawBufferPointer, to old: UnsafeRawBufferPointer, size: Int64, path: String, _ write: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        func refused(_ why: String) -> ArchiveError { ArchiveError(kind: .damaged, operation: "patch", path: path, message: why) }
        guard let context = ZSTD_createDCtx() else { throw refused("no memory to apply a patch") }
        defer { ZSTD_freeDCtx(context) }
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, largestWindowLog)
        ZSTD_DCtx_refPrefix(context, old.baseAddress, old.count)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var input = ZSTD_inBuffer(src: patch.baseAddress, size: patch.count, pos: 0)
        var produced: Int64 = 0
        while true {
            let (result, written) = chunk.withUnsafeMutableBytes { buffer in
                var out = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                let r = ZSTD_decompressStream(context, &out, &input)
                return (r, out.pos)
            }
            if ZSTD_isError(result) != 0 { throw refused("the patch is damaged: " + String(cString: ZSTD_getErrorName(result))) }
            produced += Int64(written)
            guard produced <= size else { throw refused("the patch gives more than the entry's \(size) bytes") }
            if written > 0 { try chunk.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[0..<written])) } }
            if result == 0 {
                // One frame, nothing after it, exactly the entry's size.
                guard input.pos == input.size else { throw refused("the patch has bytes after its frame") }
                guard produced == size else { throw refused("the patch gives \(produced) of the entry's \(size) bytes") }
                return
            }
            if input.pos == input.size && written < chunk.count { throw refused("the patch ends inside its frame (truncated?)") }
        }
    }
}
