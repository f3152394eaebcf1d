import Foundation
import Synchronization

/// Runs one of the maintained media tools ingest relies on (ffprobe and ffmpeg from Debian's `ffmpeg`, pdfinfo,
/// pdftohtml and pdftoppm from `poppler-utils`) on a blocking thread: bounded in time and in what it may print, its
/// arguments passed as a list (no shell), a file's path always after `--` or as a plain argument the tool cannot read
/// as an option (paths are ingest's own temporary names).
enum ExternalTool {
    struct Failed: Error, CustomStringConvertible {
        let tool: String
        let reason: String
        var description: String { "\(tool): \(reason)" }
    }

    /// The tool's standard output. Throws `Failed` when it cannot start (not installed), exits non-zero, runs past
    /// `timeout` seconds (it is killed) or prints more than `maxOutput` bytes.
    static func run(_ tool: String, _ arguments: [String], timeout: Double = 60, maxOutput: Int = 4 << 20) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw Failed(tool: tool, reason: "could not start (install ffmpeg and poppler-utils): \(error)") }
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
        defer { deadline.cancel() }
        // Standard error is drained on its own thread, so that a tool that fills it never blocks on it.
        let errorText = Mutex(Data())
        let drained = DispatchGroup()
        drained.enter()
        DispatchQueue.global().async {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = data.prefix(2_000) }
            drained.leave()
        }
        var data = Data()
        var tooMuch = false
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
            if data.count > maxOutput {
                tooMuch = true
                process.terminate()
                break
            }
        }
        process.waitUntilExit()
        drained.wait()
        if tooMuch { throw Failed(tool: tool, reason: "printed more than \(maxOutput) bytes") }
        if process.terminationReason == .uncaughtSignal { throw Failed(tool: tool, reason: "stopped after \(Int(timeout)) s") }
        guard process.terminationStatus == 0 else {
            let message = errorText.withLock { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failed(tool: tool, reason: "exit \(process.terminationStatus): \(message.prefix(300))")
        }
        return data
    }
}
