import Foundation

/// How a person runs this executable from their shell, so that the commands rederive suggests run
/// as printed.
///
/// After `swift run rederive demo` there is no `rederive` on the PATH: the suggestions then start
/// with the built binary's path, `.build/debug/rederive`.
package enum Invocation {
    /// The command for the running process.
    package static var current: String {
        let arguments = CommandLine.arguments
        return command(
            invokedAs: arguments.first ?? "rederive",
            searchPath: ProcessInfo.processInfo.environment["PATH"],
            currentDirectory: FileManager.default.currentDirectoryPath
        )
    }

    /// The command that runs the executable that was started as `invokedAs` (its `argv[0]`):
    /// - its bare name when the search path finds that same file (or the shell found it there);
    /// - otherwise its path, relative to `currentDirectory` when it lies below it, with the build
    ///   directory's short symlink (`.build/debug/rederive` rather than `.build/<triple>/debug/rederive`);
    /// - quoted for the shell when it needs to be.
    package static func command(invokedAs: String, searchPath: String?, currentDirectory: String) -> String {
        let name = (invokedAs as NSString).lastPathComponent
        guard invokedAs.contains("/") else { return quoted(name) }
        let absolute = invokedAs.hasPrefix("/") ? invokedAs : (currentDirectory as NSString).appendingPathComponent(invokedAs)
        let file = resolved(absolute)
        let onPath = (searchPath ?? "").split(separator: ":").contains { directory in
            let candidate = (String(directory) as NSString).appendingPathComponent(name)
            return FileManager.default.isExecutableFile(atPath: candidate) && resolved(candidate) == file
        }
        if onPath { return quoted(name) }

        let base = resolved(currentDirectory)
        guard file.hasPrefix(base + "/") else { return quoted(shortBuildPath(file)) }
        var relative = String(file.dropFirst(base.count + 1))
        let short = shortBuildPath(file)
        if short.hasPrefix(base + "/") { relative = String(short.dropFirst(base.count + 1)) }
        return quoted(relative.contains("/") ? relative : "./" + relative)
    }

    /// `.build/debug/rederive` for `.build/x86_64-unknown-linux-gnu/debug/rederive`, when the build's
    /// symlink `.build/debug` leads to the same file; the path unchanged otherwise.
    private static func shortBuildPath(_ file: String) -> String {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 4].hasPrefix(".build") else { return file }
        let short = (parts.dropLast(3) + parts.suffix(2)).joined(separator: "/")
        return resolved(short) == file ? short : file
    }

    /// The path with symlinks resolved, or the path itself when that fails.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// A word as the shell reads it: unchanged when it holds only safe characters, single-quoted otherwise.
    package static func quoted(_ word: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@%=,")
        if !word.isEmpty, word.unicodeScalars.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
