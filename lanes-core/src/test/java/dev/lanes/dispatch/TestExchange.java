package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An exchange that records how the dispatcher settled it: a message {@code <id>#<n>} for the order {@code id}. Shared
 * with lanes-micrometer's tests through lanes-core's test jar, which holds only this class.
 */
public final class TestExchange implements MessageExchange<String> {
    public static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private final AggregateId aggregateId;
    private final String message;
    final CompletableFuture<@Nullable Throwable> settled = new CompletableFuture<>();
    final AtomicInteger settlements = new AtomicInteger();

    TestExchange(String id, String message) {
        this.aggregateId = AggregateId.of(ORDER, id);
        this.message = message;
    }

    public static TestExchange of(String id, int sequence) {
        return new TestExchange(id, id + "#" + sequence);
    }

    @Override
    public String message() {
        return message;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        settlements.incrementAndGet();
        settled.complete(null);
    }

    @Override
    public void reject(Throwable reason) {
        settlements.incrementAndGet();
        settled.complete(reason);
    }

    /** Whether it is settled, either way. */
    public boolean isSettled() {
        return settled.isDone();
    }

    public boolean acknowledged() {
        return settled.isDone() && settled.getNow(null) == null;
    }

    public boolean rejected() {
        return rejection() != null;
    }

    /** The reason it was rejected with; {@code null} while unsettled or when acknowledged. */
    public @Nullable Throwable rejection() {
        return settled.getNow(null);
    }

    @Override
    public String toString() {
        return message;
    }
}
