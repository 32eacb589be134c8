// Writes a large synthetic vector tile package through VectorTilePackageWriter, then exports it
// to PMTiles, MBTiles and a tile folder, printing the time, output size and peak memory of each
// step. Tiles are pseudo-random (incompressible) bytes behind a gzip magic number, so the
// writers copy them as they are; each is distinct, so PMTiles deduplicates nothing.
//
//   tiles-archive OUTPUT_DIR [TILES=200000] [MEAN_TILE_BYTES=6000]

import MapbookPackage
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: tiles-archive OUTPUT_DIR [TILES] [MEAN_TILE_BYTES]")
    exit(64)
}
let directory = arguments[1]
let tileCount = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
let meanSize = arguments.count > 3 ? Int(arguments[3]) ?? 6000 : 6000

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func peakMiB() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss / 1024
}

/// `x` with `digits` decimals.
func f(_ x: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (x * scale).rounded() / scale
    return "\(r)"
}

func mib(_ bytes: Int64) -> String { f(Double(bytes) / 1_048_576) }

func size(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

// Tiles from zoom 0 down, whole zooms first, then a block of the next zoom: a pyramid as a
// tiler makes for a region.
var coordinates: [TileCoordinate] = []
var z = 0
while coordinates.count < tileCount {
    let side = 1 << z
    outer: for y in 0..<side {
        for x in 0..<side {
            coordinates.append(TileCoordinate(z: z, x: x, y: y))
            if coordinates.count == tileCount { break outer }
        }
    }
    z += 1
}
/// xorshift64*: fast, deterministic, incompressible enough.
struct Noise {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A tile of 64 to 2 x mean bytes behind a gzip magic number.
    mutating func tile(meanSize: Int) -> [UInt8] {
        let n = Int(next() % UInt64(2 * meanSize)) + 64
        var bytes = [UInt8](repeating: 0, count: n)
        for i in stride(from: 0, to: n, by: 8) {
            var v = next()
            for j in i..<min(i + 8, n) {
                bytes[j] = UInt8(truncatingIfNeeded: v)
                v >>= 8
            }
        }
        bytes[0] = 0x1F
        bytes[1] = 0x8B
        return bytes
    }
}
var noise = Noise()

let vtpk = directory + "/bench.vtpk"
var description = VectorTilePackageDescription(
    name: "Benchmark", layers: [VectorLayerInfo(id: "noise", geometry: .polygon)],
    fullExtent: BoundingBox(minX: -WebMercator.halfWorld, minY: -WebMercator.halfWorld, maxX: WebMercator.halfWorld, maxY: WebMercator.halfWorld),
    minLOD: 0, maxLOD: coordinates.last!.z, style: VectorTileStyle(name: "Benchmark", layers: []).json, timestamp: 1_795_305_600)
description.summary = "Synthetic tiles for tools/bench"

do {
    // Shuffled, as a tiler working in parallel would hand them over.
    var order = Array(coordinates.indices)
    for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(noise.next() % UInt64(i + 1))) }
    var start = now()
    let writer = try VectorTilePackageWriter(path: vtpk, description: description)
    var bytes: Int64 = 0
    for i in order {
        let t = noise.tile(meanSize: meanSize)
        bytes += Int64(t.count)
        try writer.addTile(t, at: coordinates[i])
    }
    try writer.finish()
    let summary = writer.summary!
    print("write .vtpk: \(summary.tiles) tiles (zooms 0-\(coordinates.last!.z), \(mib(bytes)) MiB of tiles) in \(f(now() - start, 2)) s; \(summary.bundles) bundles, file \(mib(summary.fileSize)) MiB; peak RSS \(peakMiB()) MiB")

    let reader = try VectorTilePackageReader(path: vtpk)
    for format in TileExportFormat.allCases {
        let out = directory + "/bench." + format.rawValue
        start = now()
        let result = try TileExporter.export(reader, to: out, format: format)
        let written = format == .directory ? "a folder" : "file \(mib(size(out))) MiB"
        print("export \(format.rawValue): \(result.tiles) tiles in \(f(now() - start, 2)) s; \(written); peak RSS \(peakMiB()) MiB")
    }
} catch {
    print("tiles-archive: \(error)")
    exit(1)
}
