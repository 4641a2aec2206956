package dev.lanes.cli.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** Prints the text report and writes the requested files. */
public final class ReportOutput {

    private ReportOutput() {}

    /**
     * Prints the text report, then writes the JSON and HTML reports to the files given (null: not asked for).
     *
     * @return whether every invariant passed and every file asked for was written
     */
    public static boolean emit(
            Report report, @Nullable Path json, @Nullable Path html, PrintWriter out, PrintWriter err) {
        return emit(report, null, json, html, out, err);
    }

    /** As {@link #emit(Report, Path, Path, PrintWriter, PrintWriter)}, the HTML page with a traced request's waterfall. */
    public static boolean emit(
            Report report,
            @Nullable Waterfall waterfall,
            @Nullable Path json,
            @Nullable Path html,
            PrintWriter out,
            PrintWriter err) {
        out.print(TextReport.render(report));
        out.flush();
        boolean jsonWritten = json == null || write(json, JsonReport.render(report), "JSON", out, err);
        boolean htmlWritten = html == null || write(html, HtmlReport.render(report, waterfall), "HTML", out, err);
        return report.passed() && jsonWritten && htmlWritten;
    }

    private static boolean write(Path file, String content, String what, PrintWriter out, PrintWriter err) {
        try {
            Files.writeString(file, content, StandardCharsets.UTF_8);
            out.println(what + " report: " + file.toAbsolutePath());
            out.flush();
            return true;
        } catch (IOException e) {
            err.println("Could not write the " + what + " report to " + file + ": " + e);
            err.flush();
            return false;
        }
    }
}
