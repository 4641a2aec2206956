package dev.lanes.test.logging;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.event.Level;

/** Swaps {@code System.err} for a buffer around each test; see {@link LogCapture}. */
final class StandardErrorCapture implements LogCapture {
    /** slf4j-simple's layout: an optional time (no '['), [thread] LEVEL logger - message. */
    private static final Pattern LOG_LINE = Pattern.compile(
            "(?:[^\\[]*? )?\\[(?<thread>[^\\]]*)\\] (?<level>ERROR|WARN|INFO|DEBUG|TRACE) (?<logger>\\S+) - (?<message>.*)");
    /** How the JVM reports an uncaught exception: not a log line, and not part of the one before it. */
    private static final String UNCAUGHT = "Exception in thread \"";

    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final boolean failOnError;
    private volatile boolean read;
    private @Nullable PrintStream console;

    StandardErrorCapture(boolean failOnError) {
        this.failOnError = failOnError;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        buffer.reset();
        read = false;
        console = System.err;
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        PrintStream restored = console;
        if (restored == null) {
            return;
        }
        System.err.flush();
        System.setErr(restored);
        console = null;
        boolean failed = context.getExecutionException().isPresent();
        List<LogLine> errors = failOnError && !failed
                ? parse(buffer.toString(StandardCharsets.UTF_8)).stream()
                        .filter(line -> line.level() == Level.ERROR)
                        .toList()
                : List.of();
        if (!errors.isEmpty()) {
            replay(restored, context, "it logged at ERROR");
            throw new AssertionError(
                    errors.size() + " line(s) logged at ERROR during the test (printed above), the" + " first by "
                            + errors.get(0).logger() + ": " + errors.get(0).message());
        }
        if (failed || !(read || failOnError)) { // a capture failing on error has asserted on it: no ERROR line
            replay(restored, context, failed ? "the test failed" : "the test did not assert on it");
        }
    }

    private void replay(PrintStream to, ExtensionContext context, String why) {
        String captured = buffer.toString(StandardCharsets.UTF_8);
        if (captured.isEmpty()) {
            return;
        }
        String test = context.getRequiredTestClass().getName() + " " + context.getDisplayName();
        to.println("--- System.err captured during " + test + " (" + why + ") ---");
        to.print(captured);
        to.println("--- end of captured System.err ---");
        to.flush();
    }

    @Override
    public List<LogLine> lines() {
        return parse(text());
    }

    @Override
    public String text() {
        read = true;
        return buffer.toString(StandardCharsets.UTF_8);
    }

    static List<LogLine> parse(String text) {
        List<LogLine> lines = new ArrayList<>();
        @Nullable Matcher current = null;
        StringBuilder details = new StringBuilder();
        for (String row : text.split("\\R")) {
            Matcher header = LOG_LINE.matcher(row);
            boolean startsALine = header.matches();
            if (startsALine || row.startsWith(UNCAUGHT)) {
                add(lines, current, details);
                current = startsALine ? header : null;
                details.setLength(0);
            } else if (current != null) {
                details.append(details.length() == 0 ? "" : "\n").append(row);
            }
        }
        add(lines, current, details);
        return List.copyOf(lines);
    }

    private static void add(List<LogLine> lines, @Nullable Matcher header, CharSequence details) {
        if (header != null) {
            lines.add(new LogLine(
                    Level.valueOf(header.group("level")),
                    header.group("thread"),
                    header.group("logger"),
                    header.group("message"),
                    details.toString()));
        }
    }
}
