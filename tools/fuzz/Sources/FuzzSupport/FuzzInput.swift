#if canImport(Glibc)
import Glibc
#endif

/// What the drivers share: turning libFuzzer's bytes into the files and parts the readers take.
public enum FuzzInput {
    /// Splits a multi-file input (a shapefile's .shp, .shx and .dbf) at `separator`; missing
    /// parts are empty. Seeds are the files joined with it (tools/fuzz/seeds.py), so mutations
    /// mostly stay within one file.
    public static let separator = Array("#MAPBOOK-FUZZ#".utf8)

    public static func parts(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0, i = 0
        let s = separator
        while i + s.count <= bytes.count, parts.count < count - 1 {
            if bytes[i] == s[0], Array(bytes[i..<i + s.count]) == s {
                parts.append(Array(bytes[start..<i]))
                i += s.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(Array(bytes[start...]))
        while parts.count < count { parts.append([]) }
        return parts
    }

    /// A folder of this process's own for the files a reader opens, in memory when /dev/shm is.
    public static let folder: String = {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        let path = "\(base)/mapbook-fuzz-\(getpid())"
        mkdir(path, 0o700)
        return path
    }()

    /// Writes `bytes` to `name` in `folder` (replacing it) and returns its path.
    @discardableResult
    public static func write(_ bytes: [UInt8], to name: String) -> String {
        let path = folder + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var done = 0
        bytes.withUnsafeBytes { raw in
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                precondition(n > 0, "cannot write \(path)")
                done += n
            }
        }
        close(fd)
        return path
    }

    /// Removes `name` from `folder`, if it is there.
    public static func remove(_ name: String) {
        unlink(folder + "/" + name)
    }

    /// The input as text, replacing bytes that are not UTF-8 (as a reader of text would).
    public static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// libFuzzer's entry for programs with a `main` of their own, as SwiftPM's executables have.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

extension FuzzInput {
    /// Runs libFuzzer with the program's arguments, calling `body` with each input; does not
    /// return.
    public static func run(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv, body))
    }
}
