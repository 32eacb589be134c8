#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// Limits that keep extraction of an untrusted archive bounded.
public struct ExtractionLimits: Sendable {
    /// The most bytes all entries together may expand to.
    public var maximumTotalSize: Int64 = 64 << 30
    /// A deflated entry may expand at most this many times (entries under 1 MiB are exempt).
    public var maximumCompressionRatio: Double = 200
    public var maximumEntryCount = 1_000_000

    public init() {}
}

/// Why an archive was not extracted: every problem found before anything was written, or the
/// failure that stopped extraction (after which everything written was removed).
public struct ExtractionError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problems: [String]

    public var description: String {
        if problems.count == 1 { return "Refusing to extract '\(path)': \(problems[0]); nothing was written" }
        // Twenty reasons are plenty to act on; a hostile archive can produce millions.
        var lines = problems.prefix(20).map { "  - \($0)" }
        if problems.count > 20 { lines.append("  - and \(problems.count - 20) more problems") }
        return "Refusing to extract '\(path)'; nothing was written:\n" + lines.joined(separator: "\n")
    }
}

/// What an extraction wrote.
public struct ExtractionSummary: Sendable {
    public var files: Int
    public var directories: Int
    public var bytes: Int64
}

/// Unpacks a ZIP archive without trusting it.
///
/// Before writing anything it refuses absolute names, `..` components, backslashes, links and
/// special files, encrypted or unknown compression, names that collide, local headers that
/// disagree with the central directory, overlapping entries, and archives past the size or
/// ratio limits (per entry and in all). It then extracts into a fresh hidden folder inside the
/// target, verifying each entry's size and CRC-32 as it goes, and moves the files into place
/// only when everything succeeded; on any failure what it wrote is removed. So it writes
/// nothing outside the target, and nothing at all when it refuses.
public enum SafeExtractor {
    public static func extract(archivePath: String, to destination: String, limits: ExtractionLimits = ExtractionLimits()) throws -> ExtractionSummary {
        let archive = try ZipArchive(path: archivePath)
        var target = destination
        while target.count > 1 && target.hasSuffix("/") { target.removeLast() }
        let plan = try preflight(archive, destination: target, limits: limits)

        // Stage inside the target, so nothing is ever written outside it; a target that did
        // not exist is created here and removed again on failure.
        var created = false
        var info = stat()
        if lstat(target, &info) != 0 {
            guard mkdir(target, 0o777 & ~currentUmask()) == 0 else {
                throw ExtractionError(path: archivePath, problems: ["cannot create '\(target)': \(RandomAccessFile.errnoMessage())"])
            }
            created = true
        }
        var template = Array("\(target)/.mapbook-extract-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let message = RandomAccessFile.errnoMessage()
            if created { rmdir(target) }
            throw ExtractionError(path: archivePath, problems: ["cannot create a temporary folder in '\(target)': \(message)"])
        }
        let staging = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var moved: [String] = []
        do {
            let summary = try write(plan, from: archive, into: staging, archivePath: archivePath)
            // Everything is verified: move the top-level items into place.
            for name in FileSystem.names(in: staging) {
                guard rename(staging + "/" + name, target + "/" + name) == 0 else {
                    throw ExtractionError(path: archivePath, problems: ["cannot move '\(name)' into '\(target)': \(RandomAccessFile.errnoMessage())"])
                }
                moved.append(name)
            }
            rmdir(staging)
            return summary
        } catch {
            FileSystem.removeTree(staging)
            for name in moved { FileSystem.removeTree(target + "/" + name) }
            if created { rmdir(target) }
            throw error
        }
    }

    struct Plan {
        var directories: [String]
        var files: [ZipEntry]
    }

    static func currentUmask() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }

    /// Checks every entry and the destination; throws every problem at once.
    static func preflight(_ archive: ZipArchive, destination: String, limits: ExtractionLimits) throws -> Plan {
        var problems: [String] = []
        var info = stat()
        if lstat(destination, &info) == 0 {
            if (info.st_mode & S_IFMT) != S_IFDIR {
                problems.append("'\(destination)' exists and is not a folder")
            } else if !isEmptyDirectory(destination) {
                problems.append("'\(destination)' exists and is not empty; extract into a new or empty folder")
            }
        }
        if archive.entries.count > limits.maximumEntryCount {
            problems.append("it has \(archive.entries.count) entries, more than the \(limits.maximumEntryCount) allowed")
        }
        var total: Int64 = 0
        var files: [String: String] = [:]
        var directories = Set<String>()
        var plan = Plan(directories: [], files: [])
        for entry in archive.entries {
            let label = "entry '\(entry.name)'"
            if let problem = EntryName.problem(entry.name) {
                problems.append("\(label): \(problem)")
                continue
            }
            if entry.isSymbolicLink {
                problems.append("\(label) is a symbolic link")
                continue
            }
            if entry.isSpecialFile {
                problems.append("\(label) is a device, FIFO or socket")
                continue
            }
            if entry.isEncrypted {
                problems.append("\(label) is encrypted")
                continue
            }
            if case .other(let m) = entry.method {
                problems.append("\(label) uses compression method \(m), which is not supported")
                continue
            }
            let name = EntryName.normalized(entry.name)
            if name.isEmpty { continue }
            let components = name.split(separator: "/").map(String.init)
            // Every parent folder of this entry must not also be a file.
            for depth in 1..<max(components.count, 1) {
                let dir = components[0..<depth].joined(separator: "/")
                if let other = files[dir] {
                    problems.append("\(label) needs '\(dir)' to be a folder, but entry '\(other)' is a file there")
                }
                if directories.insert(dir).inserted { plan.directories.append(dir) }
            }
            if entry.isDirectory {
                if let other = files[name] {
                    problems.append("\(label) is a folder, but entry '\(other)' is a file of the same name")
                }
                if directories.insert(name).inserted { plan.directories.append(name) }
                continue
            }
            if let other = files[name] {
                problems.append(other == entry.name ? "\(label) occurs more than once" : "\(label) and entry '\(other)' name the same file")
                continue
            }
            if directories.contains(name) {
                problems.append("\(label) is a file, but other entries need a folder of that name")
            }
            files[name] = entry.name
            let ratio = Double(entry.uncompressedSize) / Double(max(entry.compressedSize, 1))
            if entry.method == .deflated, entry.uncompressedSize > 1 << 20, ratio > limits.maximumCompressionRatio {
                problems.append("\(label) expands \(Int(ratio.rounded())) times (\(entry.compressedSize) to \(entry.uncompressedSize) bytes), past the limit of \(Int(limits.maximumCompressionRatio)): a ZIP bomb?")
            }
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            total = overflow ? .max : sum
            plan.files.append(entry)
        }
        if total > limits.maximumTotalSize {
            problems.append("it expands to \(total) bytes, more than the \(limits.maximumTotalSize) allowed")
        }
        // Overlapping entries share compressed bytes, which a per-entry ratio cannot see.
        let overall = Double(total) / Double(max(archive.range.length, 1))
        if total > 1 << 20, overall > limits.maximumCompressionRatio {
            problems.append("it expands \(Int(min(overall, 1e15))) times in all (\(archive.range.length) to \(total) bytes), past the limit of \(Int(limits.maximumCompressionRatio)): a ZIP bomb?")
        }
        for (entry, _, message) in archive.layoutProblems() {
            problems.append("entry '\(entry.name)': \(message)")
        }
        if !problems.isEmpty {
            throw ExtractionError(path: archive.displayPath, problems: problems)
        }
        return plan
    }

    static func write(_ plan: Plan, from archive: ZipArchive, into root: String, archivePath: String) throws -> ExtractionSummary {
        let mask = currentUmask()
        for dir in plan.directories {
            guard mkdir(root + "/" + dir, 0o777 & ~mask) == 0 || errno == EEXIST else {
                throw ExtractionError(path: archivePath, problems: ["cannot create folder '\(dir)': \(RandomAccessFile.errnoMessage())"])
            }
        }
        var bytes: Int64 = 0
        for entry in plan.files {
            let name = EntryName.normalized(entry.name)
            let target = root + "/" + name
            // O_EXCL and O_NOFOLLOW: never write through anything that was not created here.
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666 & ~mask)
            guard fd >= 0 else {
                throw ExtractionError(path: archivePath, problems: ["cannot create '\(name)': \(RandomAccessFile.errnoMessage())"])
            }
            defer { close(fd) }
            var crc = CRC32()
            var written: Int64 = 0
            do {
                try archive.stream(entry, limit: entry.uncompressedSize) { chunk in
                    crc.update(chunk)
                    try AtomicFile.writeAll(chunk, to: fd, path: target)
                    written += Int64(chunk.count)
                }
            } catch {
                throw ExtractionError(path: archivePath, problems: ["entry '\(entry.name)': \(error)"])
            }
            if written != entry.uncompressedSize {
                throw ExtractionError(path: archivePath, problems: ["entry '\(entry.name)' holds \(written) bytes, the central directory says \(entry.uncompressedSize) (truncated?)"])
            }
            if crc.value != entry.crc32 {
                throw ExtractionError(path: archivePath, problems: ["entry '\(entry.name)' fails its CRC-32 check: the data is damaged"])
            }
            bytes += written
        }
        return ExtractionSummary(files: plan.files.count, directories: plan.directories.count, bytes: bytes)
    }

    static func isEmptyDirectory(_ path: String) -> Bool {
        guard let dir = opendir(path) else { return false }
        closedir(dir)
        return FileSystem.names(in: path).isEmpty
    }

}
