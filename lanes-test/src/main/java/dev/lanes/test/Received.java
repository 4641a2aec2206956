package dev.lanes.test;

import dev.lanes.dispatch.MessageExchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * A receiver for the bus contracts: takes every exchange (unbounded demand once {@link #request requested}), records
 * it, and settles it as {@code settle} says: acknowledged unless it returns false, then rejected with {@link
 * #REJECTED}.
 *
 * @param <M> the message type
 */
final class Received<M> extends BaseSubscriber<MessageExchange<M>> {
    static final IllegalStateException REJECTED = new IllegalStateException("rejected by the contract's receiver");

    final List<MessageExchange<M>> exchanges = new CopyOnWriteArrayList<>();
    private final Predicate<MessageExchange<M>> settle;
    private final boolean demandAtOnce;

    private Received(Predicate<MessageExchange<M>> settle, boolean demandAtOnce) {
        this.settle = settle;
        this.demandAtOnce = demandAtOnce;
    }

    /** Acknowledges everything, with unbounded demand from the start. */
    static <M> Received<M> acknowledging() {
        return new Received<>(exchange -> true, true);
    }

    /** Settles by {@code settle}, with unbounded demand from the start. */
    static <M> Received<M> settling(Predicate<MessageExchange<M>> settle) {
        return new Received<>(settle, true);
    }

    /** Acknowledges everything, but requests nothing until {@link #requestAll()}. */
    static <M> Received<M> withoutDemand() {
        return new Received<>(exchange -> true, false);
    }

    void requestAll() {
        requestUnbounded();
    }

    List<M> messages() {
        return exchanges.stream().map(MessageExchange::message).toList();
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        if (demandAtOnce) {
            subscription.request(Long.MAX_VALUE);
        }
    }

    @Override
    protected void hookOnNext(MessageExchange<M> exchange) {
        exchanges.add(exchange);
        if (settle.test(exchange)) {
            exchange.acknowledge();
        } else {
            exchange.reject(REJECTED);
        }
    }
}
