package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** An exchange that records how the dispatcher settled it. */
final class TestExchange implements MessageExchange<String> {
    static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private final AggregateId aggregateId;
    private final String message;
    final CompletableFuture<@Nullable Throwable> settled = new CompletableFuture<>();
    final AtomicInteger settlements = new AtomicInteger();

    TestExchange(String id, String message) {
        this.aggregateId = AggregateId.of(ORDER, id);
        this.message = message;
    }

    static TestExchange of(String id, int sequence) {
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

    boolean acknowledged() {
        return settled.isDone() && settled.getNow(null) == null;
    }

    @Nullable
    Throwable rejection() {
        return settled.getNow(null);
    }

    @Override
    public String toString() {
        return message;
    }
}
