package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the auto-configured {@link Lanes} with the application context: starts it when the context starts, stops it
 * gracefully inside Spring's shutdown.
 *
 * <p><b>Phase.</b> {@link #PHASE} is below the embedded web server's phases ({@code WebServerApplicationContext}'s
 * graceful-shutdown phase {@code DEFAULT_PHASE - 1024} and start-stop phase {@code DEFAULT_PHASE - 2048}), and Spring
 * starts lower phases first and stops them last. So Lanes runs before the server takes its first request, and on
 * shutdown the server first finishes the requests it holds (their commands still answered, Lanes still running), stops
 * taking new ones, and only then does Lanes drain: HTTP ingress stops before Lanes drains, and no request meets a
 * stopping runtime. Message listeners in the default phase stop before Lanes too.
 *
 * <p><b>Stop.</b> {@link #stop(Runnable)} begins the runtime's graceful stop and returns; the runtime drains what it
 * admitted and forces what is left at its deadline ({@code lanes.shutdown-timeout}); the callback runs exactly once
 * when the stop ended, whichever way, or, as a safety net, a second past the deadline. Spring waits for it at most
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default), so the auto-configuration refuses to start
 * when {@code lanes.shutdown-timeout} is longer ({@link #requireWithinPhase}): Spring would stop waiting while Lanes
 * still drains, and the JVM could exit mid-drain. There is no restart: a stopped runtime stays stopped.
 *
 * <p><b>Forced stop.</b> A stop that ended forced (the deadline passed with work still open, or a component failed to
 * stop) is logged at WARN with its report, naming both timeouts: commands still in flight were not answered and
 * tracking processors read again what they had not checkpointed. A graceful stop is the runtime's INFO report only.
 *
 * <p><b>Both timeouts together.</b> On SIGTERM Spring first stops the web server's graceful phase (it waits for the
 * requests it holds, at most {@code spring.lifecycle.timeout-per-shutdown-phase}), then this phase: Lanes drains for
 * at most {@code lanes.shutdown-timeout}, which must not exceed the phase timeout. The whole stop can therefore take up
 * to the phase timeout plus Lanes' own; a platform's kill grace period (Kubernetes' {@code
 * terminationGracePeriodSeconds}) should exceed both.
 *
 * <p>Thread-safety: Spring calls start and stop from one thread at a time; the callback runs on the thread that ends
 * the runtime's stop (a Lanes or timer thread).
 */
public final class LanesLifecycle implements SmartLifecycle {
    /** Where Lanes sits among Spring's lifecycle phases: {@code DEFAULT_PHASE - 3072}, below the web server. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 3072;

    /** How long past the runtime's own deadline the stop callback waits at most for the stop to end. */
    static final Duration CALLBACK_MARGIN = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(LanesLifecycle.class);

    private final Lanes lanes;
    private final Duration startTimeout;
    private final Duration shutdownTimeout;
    private final AtomicBoolean running = new AtomicBoolean();

    public LanesLifecycle(Lanes lanes, Duration startTimeout, Duration shutdownTimeout) {
        this.lanes = Objects.requireNonNull(lanes, "lanes");
        this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
    }

    /**
     * The runtime's shutdown timeout, checked against Spring's wait for a lifecycle phase.
     *
     * @throws IllegalArgumentException naming both properties and values when Spring would stop waiting first
     */
    static Duration requireWithinPhase(Duration shutdownTimeout, Duration shutdownPhase) {
        if (shutdownTimeout.compareTo(shutdownPhase) > 0) {
            throw new LanesConfigurationException(
                    "lanes.shutdown-timeout (" + shutdownTimeout + ") must not be longer than"
                            + " spring.lifecycle.timeout-per-shutdown-phase (" + shutdownPhase + "): Spring would stop"
                            + " waiting for Lanes' graceful stop while it still drains; raise the phase timeout or lower"
                            + " Lanes' own",
                    "Set spring.lifecycle.timeout-per-shutdown-phase to at least lanes.shutdown-timeout.");
        }
        return shutdownTimeout;
    }

    /**
     * Starts the runtime and waits until it runs, at most {@code lanes.start-timeout}.
     *
     * @throws IllegalStateException naming the runtime when it was started before (there is no restart) or did not
     *     start in time; a component's start failure unchanged
     */
    @Override
    public void start() {
        lanes.runtime().terminated().subscribe(this::reportForced);
        lanes.start(startTimeout);
        running.set(true);
    }

    private void reportForced(ShutdownReport report) {
        if (!report.graceful()) {
            log.warn(
                    "{} did not stop gracefully within lanes.shutdown-timeout ({}): work still open was cut (senders"
                            + " waiting for it were not answered); raise lanes.shutdown-timeout together with"
                            + " spring.lifecycle.timeout-per-shutdown-phase if the drain needs longer. {}",
                    lanes.runtime(),
                    shutdownTimeout,
                    report);
        }
    }

    /** Stops gracefully and waits for it, at most the shutdown timeout plus a second. */
    @Override
    public void stop() {
        if (running.compareAndSet(true, false)) {
            lanes.stop(shutdownTimeout.plus(CALLBACK_MARGIN));
        }
    }

    /**
     * Begins the graceful stop and returns; {@code callback} runs exactly once when the stop ended (drained, forced at
     * the deadline, or failed: the runtime logs its report either way), or at once when this lifecycle is not running.
     */
    @Override
    public void stop(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        if (!running.compareAndSet(true, false)) {
            callback.run();
            return;
        }
        AtomicBoolean called = new AtomicBoolean();
        Runnable once = () -> {
            if (called.compareAndSet(false, true)) {
                callback.run();
            }
        };
        LanesRuntime runtime = lanes.runtime();
        runtime.shutdown()
                .timeout(shutdownTimeout.plus(CALLBACK_MARGIN))
                .subscribe(
                        report -> once.run(),
                        error -> {
                            log.error("{} did not report its stop within {}", runtime, shutdownTimeout, error);
                            once.run();
                        },
                        once);
    }

    @Override
    public boolean isRunning() {
        return running.get();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public String toString() {
        return "LanesLifecycle[" + lanes.runtime() + ", running=" + running.get() + "]";
    }
}
