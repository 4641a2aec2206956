package dev.lanes.testsupport;

import org.jspecify.annotations.Nullable;

/**
 * One {@link InProcessKafka} broker per test JVM, started on first use and stopped by a shutdown hook: every test class
 * of every module uses topics of its own, so they share it.
 *
 * <p>Thread-safe: the first caller starts the broker, the others wait for it.
 */
public final class TestKafka {
    private static @Nullable InProcessKafka broker;

    private TestKafka() {}

    /** The shared broker's address (starts it on first use). */
    public static synchronized String bootstrapServers() {
        InProcessKafka started = broker;
        if (started == null) {
            started = InProcessKafka.start();
            broker = started;
            Runtime.getRuntime().addShutdownHook(new Thread(TestKafka::stop, "test-kafka-stop"));
        }
        return started.bootstrapServers();
    }

    private static synchronized void stop() {
        try {
            if (broker != null) {
                broker.close();
            }
        } catch (Exception e) {
            // the JVM is exiting
        }
    }
}
