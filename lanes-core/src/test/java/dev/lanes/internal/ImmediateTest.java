package dev.lanes.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.test.logging.LogCapture;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

class ImmediateTest {
    /** Reactor logs the JVM-fatal error it lets through at WARN: captured, and checked below. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Test
    void anImmediateMonoRunsOnTheCallersThreadBeforeWhatFollowsAndBeforeTheCallReturns() {
        List<String> order = new ArrayList<>();
        Thread caller = Thread.currentThread();
        Mono<String> next = Mono.just("next");

        Mono<String> after =
                Immediate.then(Mono.fromRunnable(() -> order.add("ran on " + Thread.currentThread())), e -> {
                    order.add("ended " + e + " on " + Thread.currentThread());
                    return next;
                });
        order.add("returned");

        assertThat(after)
                .as("what follows is returned as it is, with no operator")
                .isSameAs(next);
        assertThat(order).containsExactly("ran on " + caller, "ended null on " + caller, "returned");
    }

    @Test
    void whatFollowsSeesTheErrorASubscriberWouldSeeUnwrapped() {
        IOException checked = new IOException("refused");
        AtomicReference<@Nullable Throwable> seen = new AtomicReference<>();

        Immediate.then(Mono.error(checked), e -> {
            seen.set(e);
            return Mono.empty();
        });

        assertThat(seen.get()).isSameAs(checked);
        AtomicReference<@Nullable Throwable> failed = new AtomicReference<>();
        Immediate.then(
                Mono.fromCallable(() -> {
                    throw checked;
                }),
                e -> {
                    failed.set(e);
                    return Mono.empty();
                });
        assertThat(failed.get()).isSameAs(checked);
    }

    @Test
    void aJvmFatalErrorIsRethrownToTheCallerAndNothingFollows() {
        AtomicInteger followed = new AtomicInteger();
        Mono<Object> fatal = Mono.fromCallable(() -> {
            throw new InternalError("fatal");
        });

        assertThatThrownBy(() -> Immediate.then(fatal, e -> {
                    followed.incrementAndGet();
                    return Mono.empty();
                }))
                .isInstanceOf(InternalError.class);
        assertThatThrownBy(() -> Immediate.then(
                        fatal,
                        e -> {
                            followed.incrementAndGet();
                            return Mono.empty();
                        },
                        followed::incrementAndGet))
                .isInstanceOf(InternalError.class);
        assertThat(followed).hasValue(0);
        assertThat(logs.text()).contains("throwIfJvmFatal detected a jvm fatal exception");
    }

    @Test
    void theContinuationIsToldWhetherItEndedAtOnceOrRunsOn() {
        Immediate.Continuation<String, Integer, String> says = new Immediate.Continuation<>() {
            @Override
            public String ended(String a, Integer b, @Nullable Throwable error) {
                return "ended " + a + b + " " + error;
            }

            @Override
            public String running(String a, Integer b, Mono<?> running) {
                return "running " + a + b;
            }
        };

        assertThat(Immediate.then(Mono.empty(), "a", 1, says)).isEqualTo("ended a1 null");
        assertThat(Immediate.then(Sinks.empty().asMono(), "a", 2, says)).isEqualTo("running a2");
    }

    @Test
    void aMonoThatIsNotImmediateIsFollowedWhenItEndsAndCancelledWithTheContinuation() {
        Sinks.Empty<Void> handling = Sinks.empty();
        AtomicReference<@Nullable Throwable> seen = new AtomicReference<>();
        AtomicInteger cancelled = new AtomicInteger();
        Mono<String> after = Immediate.then(
                handling.asMono(),
                e -> {
                    seen.set(e);
                    return Mono.just("next");
                },
                cancelled::incrementAndGet);

        assertThat(seen.get()).isNull();
        IllegalStateException failure = new IllegalStateException("later");
        StepVerifier.create(after)
                .then(() -> handling.tryEmitError(failure))
                .expectNext("next")
                .verifyComplete();
        assertThat(seen.get()).isSameAs(failure);
        assertThat(cancelled).hasValue(0);

        Sinks.Empty<Void> hung = Sinks.empty();
        StepVerifier.create(Immediate.then(hung.asMono(), e -> Mono.just("never"), cancelled::incrementAndGet))
                .thenCancel()
                .verify();
        assertThat(cancelled).hasValue(1);
    }
}
