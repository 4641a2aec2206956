package dev.lanes.test.logging;

import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.slf4j.event.Level;

/**
 * Captures what a test writes to {@code System.err}, for tests that make the code under test fail on purpose and mean
 * to check what it logs.
 *
 * <pre>{@code
 * @RegisterExtension
 * final LogCapture logs = LogCapture.standardError();
 *
 * @Test
 * void aFailingSourceIsLoggedWithItsCause() {
 *     ...
 *     assertThat(logs.lines(Level.ERROR)).singleElement().satisfies(line -> ...);
 * }
 * }</pre>
 *
 * <p>From before each test to after it (its {@code @AfterEach} methods included), {@code System.err} is a buffer:
 * slf4j-simple's log lines (it writes to {@code System.err} unless {@code org.slf4j.simpleLogger.logFile} says
 * otherwise, and looks the stream up for every line unless {@code org.slf4j.simpleLogger.cacheOutputStream} is set),
 * Reactor's dropped errors and the JVM's report of an uncaught exception all go there instead of the console.
 *
 * <p>The capture stays quiet only where it is asserted: after a test that read it ({@link #lines()},
 * {@link #lines(Level)} or {@link #text()}) and passed, nothing is printed. A test that failed, or that never read the
 * capture, gets everything it captured printed to the console after it, so a red build still shows what was logged and
 * registering the capture on a class hides nothing its other tests write.
 *
 * <p>{@code System.err} is one per JVM: the capture is for tests that run one at a time (JUnit's default); output of a
 * thread an earlier test left running lands in the current test's capture. A writer that keeps the stream it found when
 * it was created (java.util.logging's {@code ConsoleHandler}, slf4j-simple with {@code cacheOutputStream}) is not
 * captured, or, if created during a test, keeps writing to that test's capture.
 */
public interface LogCapture extends BeforeEachCallback, AfterEachCallback {

    /** A capture of {@code System.err}, for a {@code @RegisterExtension} field of a test class. */
    static LogCapture standardError() {
        return new StandardErrorCapture(false);
    }

    /**
     * A capture of {@code System.err} that also fails each test that passed but logged a line at ERROR (checked after
     * its {@code @AfterEach} methods; what was captured is printed first): for test classes none of whose tests
     * should log an error. That check is an assertion on the capture: a test that passes it prints nothing.
     */
    static LogCapture standardErrorFailingOnError() {
        return new StandardErrorCapture(true);
    }

    /**
     * The log lines captured so far, oldest first. A line is one slf4j-simple writes with its default layout ({@code
     * [thread] LEVEL logger - message}, after the time if it shows one); what is written after it until the next log
     * line, the stack trace of a logged exception, is its {@link LogLine#details()}.
     */
    List<LogLine> lines();

    /** The log lines captured so far at this level, oldest first. */
    default List<LogLine> lines(Level level) {
        return lines().stream().filter(line -> line.level() == level).toList();
    }

    /** Everything captured so far, as written. */
    String text();
}
