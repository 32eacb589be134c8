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
    /// What is wrong with the archive or the destination, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The destination exists and is a file, or a folder that is not empty.
        case destinationNotUsable
        /// More entries than `ExtractionLimits.maximumEntryCount`.
        case tooManyEntries
        /// An absolute name, a drive letter, a `..` component, a backslash or a control character.
        case unsafeName
        /// A symbolic link, device, FIFO or socket.
        case notARegularFile
        /// An encrypted entry.
        case encrypted
        /// A compression method other than stored or deflated.
        case unsupportedCompression
        /// Two entries that would be written to the same file, or a file where a folder must be.
        case nameClash
        /// An entry or the whole archive expands past the ratio limit.
        case zipBomb
        /// The entries together expand past `ExtractionLimits.maximumTotalSize`.
        case tooLarge
        /// An entry's local header or data placement is wrong (`ZipArchive.layoutProblems()`).
        case layout(ZipArchive.LayoutProblem)
        /// An entry's data cannot be read or inflated, or its file cannot be written.
        case archive(ArchiveError.Kind)
        /// An entry holds fewer or more bytes than the central directory says.
        case sizeMismatch
        /// An entry's data fails its CRC-32 check.
        case crcMismatch
        /// The operating system refused to create a folder or file, or to move one into place.
        case io
    }

    /// One reason the archive was not extracted.
    public struct Problem: Sendable, CustomStringConvertible {
        public var kind: Kind
        public var message: String
        public var description: String { message }

        public init(_ kind: Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }
    }

    public var path: String
    /// Every problem found before anything was written, or the one failure that stopped extraction.
    public var problems: [Problem]

    /// The first problem's kind: the only one when extraction failed part way.
    public var kind: Kind { problems[0].kind }

    public init(path: String, problems: [Problem]) {
        precondition(!problems.isEmpty, "an extraction error needs a problem")
        self.path = path
        self.problems = problems
    }

    init(path: String, _ kind: Kind, _ message: String) {
        self.init(path: path, problems: [Problem(kind, message)])
    }

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
/// nothing outside the target, and nothing at all when it refuses. A signed package whose
/// signature or entries do not check out is refused before anything is written.
public enum SafeExtractor {
    public static func extract(archivePath: String, to destination: String, limits: ExtractionLimits = ExtractionLimits()) throws -> ExtractionSummary {
        let archive = try ZipArchive(path: archivePath)
        var target = destination
        while target.count > 1 && target.hasSuffix("/") { target.removeLast() }
        let plan = try preflight(archive, destination: target, limits: limits)
        // A signed package is unpacked only when what its signature vouches for holds: the
        // signature over the manifest, and every entry against the manifest's digests.
        if archive.entries.contains(where: { PackageSignature.isSignatureEntry($0.name) }) {
            try MobileMapPackage(archive: archive).verifyEntries()
        }

        // Stage inside the target, so nothing is ever written outside it; a target that did
        // not exist is created here and removed again on failure.
        var created = false
        var info = stat()
        if lstat(target, &info) != 0 {
            guard mkdir(target, 0o777 & ~currentUmask()) == 0 else {
                throw ExtractionError(path: archivePath, .io, "cannot create '\(target)': \(FileSystem.errorMessage())")
            }
            created = true
        }
        var template = Array("\(target)/.mapbook-extract-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let message = FileSystem.errorMessage()
            if created { rmdir(target) }
            throw ExtractionError(path: archivePath, .io, "cannot create a temporary folder in '\(target)': \(message)")
        }
        let staging = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var moved: [String] = []
        do {
            let summary = try write(plan, from: archive, into: staging, archivePath: archivePath)
            // Everything is verified: move the top-level items into place.
            for name in FileSystem.names(in: staging) {
                guard rename(staging + "/" + name, target + "/" + name) == 0 else {
                    throw ExtractionError(path: archivePath, .io, "cannot move '\(name)' into '\(target)': \(FileSystem.errorMessage())")
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
        var problems: [ExtractionError.Problem] = []
        var info = stat()
        if lstat(destination, &info) == 0 {
            if (info.st_mode & S_IFMT) != S_IFDIR {
                problems.append(ExtractionError.Problem(.destinationNotUsable, "'\(destination)' exists and is not a folder"))
            } else if !isEmptyDirectory(destination) {
                problems.append(ExtractionError.Problem(.destinationNotUsable, "'\(destination)' exists and is not empty; extract into a new or empty folder"))
            }
        }
        if archive.entries.count > limits.maximumEntryCount {
            problems.append(ExtractionError.Problem(.tooManyEntries, "it has \(archive.entries.count) entries, more than the \(limits.maximumEntryCount) allowed"))
        }
        var total: Int64 = 0
        var files: [String: String] = [:]
        var directories = Set<String>()
        var plan = Plan(directories: [], files: [])
        for entry in archive.entries {
            let label = "entry '\(entry.name)'"
            if let problem = EntryName.problem(entry.name) {
                problems.append(ExtractionError.Problem(.unsafeName, "\(label): \(problem)"))
                continue
            }
            if entry.isSymbolicLink {
                problems.append(ExtractionError.Problem(.notARegularFile, "\(label) is a symbolic link"))
                continue
            }
            if entry.isSpecialFile {
                problems.append(ExtractionError.Problem(.notARegularFile, "\(label) is a device, FIFO or socket"))
                continue
            }
            if entry.isEncrypted {
                problems.append(ExtractionError.Problem(.encrypted, "\(label) is encrypted"))
                continue
            }
            if case .other(let m) = entry.method {
                problems.append(ExtractionError.Problem(.unsupportedCompression, "\(label) uses compression method \(m), which is not supported"))
                continue
            }
            let name = EntryName.normalized(entry.name)
            if name.isEmpty { continue }
            let components = name.split(separator: "/").map(String.init)
            // Every parent folder of this entry must not also be a file.
            for depth in 1..<max(components.count, 1) {
                let dir = components[0..<depth].joined(separator: "/")
                if let other = files[dir] {
                    problems.append(ExtractionError.Problem(.nameClash, "\(label) needs '\(dir)' to be a folder, but entry '\(other)' is a file there"))
                }
                if directories.insert(dir).inserted { plan.directories.append(dir) }
            }
            if entry.isDirectory {
                if let other = files[name] {
                    problems.append(ExtractionError.Problem(.nameClash, "\(label) is a folder, but entry '\(other)' is a file of the same name"))
                }
                if directories.insert(name).inserted { plan.directories.append(name) }
                continue
            }
            if let other = files[name] {
                problems.append(ExtractionError.Problem(.nameClash, other == entry.name ? "\(label) occurs more than once" : "\(label) and entry '\(other)' name the same file"))
                continue
            }
            if directories.contains(name) {
                problems.append(ExtractionError.Problem(.nameClash, "\(label) is a file, but other entries need a folder of that name"))
            }
            files[name] = entry.name
            let ratio = Double(entry.uncompressedSize) / Double(max(entry.compressedSize, 1))
            if entry.method == .deflated, entry.uncompressedSize > 1 << 20, ratio > limits.maximumCompressionRatio {
                problems.append(ExtractionError.Problem(.zipBomb, "\(label) expands \(Int(ratio.rounded())) times (\(entry.compressedSize) to \(entry.uncompressedSize) bytes), past the limit of \(Int(limits.maximumCompressionRatio)): a ZIP bomb?"))
            }
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            total = overflow ? .max : sum
            plan.files.append(entry)
        }
        if total > limits.maximumTotalSize {
            problems.append(ExtractionError.Problem(.tooLarge, "it expands to \(total) bytes, more than the \(limits.maximumTotalSize) allowed"))
        }
        // Overlapping entries share compressed bytes, which a per-entry ratio cannot see.
        let overall = Double(total) / Double(max(archive.range.length, 1))
        if total > 1 << 20, overall > limits.maximumCompressionRatio {
            problems.append(ExtractionError.Problem(.zipBomb, "it expands \(Int(min(overall, 1e15))) times in all (\(archive.range.length) to \(total) bytes), past the limit of \(Int(limits.maximumCompressionRatio)): a ZIP bomb?"))
        }
        for (entry, kind, message) in archive.layoutProblems() {
            problems.append(ExtractionError.Problem(.layout(kind), "entry '\(entry.name)': \(message)"))
        }
        if !problems.isEmpty {
            throw ExtractionError(path: archive.displayPath, problems: problems)
        }
        return plan
    }

    static func write(_ plan: Plan, from archive: ZipArchive, into root: String, archivePath: String) throws -> ExtractionSummary {
        let mask = currentUmask()
        for dir in plan.directories {
            let code = FileSystem.makeDirectory(root + "/" + dir, mode: 0o777 & ~mask)
            guard code == 0 else {
                throw ExtractionError(path: archivePath, .io, "cannot create folder '\(dir)': \(FileSystem.errorMessage(code))")
            }
        }
        var bytes: Int64 = 0
        for entry in plan.files {
            let name = EntryName.normalized(entry.name)
            let target = root + "/" + name
            // O_EXCL and O_NOFOLLOW: never write through anything that was not created here.
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666 & ~mask)
            guard fd >= 0 else {
                throw ExtractionError(path: archivePath, .io, "cannot create '\(name)': \(FileSystem.errorMessage())")
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
                // Reading the entry and writing the chunk both throw only archive errors.
                let error = ArchiveError(error, operation: "read entry", path: archivePath)
                throw ExtractionError(path: archivePath, .archive(error.kind), "entry '\(entry.name)': \(error)")
            }
            if written != entry.uncompressedSize {
                throw ExtractionError(path: archivePath, .sizeMismatch, "entry '\(entry.name)' holds \(written) bytes, the central directory says \(entry.uncompressedSize) (truncated?)")
            }
            if crc.value != entry.crc32 {
                throw ExtractionError(path: archivePath, .crcMismatch, "entry '\(entry.name)' fails its CRC-32 check: the data is damaged")
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
