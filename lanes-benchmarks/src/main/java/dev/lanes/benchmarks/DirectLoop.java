package dev.lanes.benchmarks;

import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.MessageExchange;
import java.util.function.Consumer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * {@link Variant#DIRECT_LOOP}: no dispatcher, no other thread. It requests everything, and each exchange is handled on
 * the thread that emits it: the handler is called, its Mono awaited, the exchange acknowledged, then the next one. With
 * {@link Feed#flux} that is the thread that subscribed, in a plain loop over the messages.
 */
final class DirectLoop<M> implements CoreSubscriber<MessageExchange<M>> {
    private final ExchangeHandler<M> handler;
    private final Consumer<Throwable> failed;

    /** @param failed told if the source fails */
    DirectLoop(ExchangeHandler<M> handler, Consumer<Throwable> failed) {
        this.handler = handler;
        this.failed = failed;
    }

    @Override
    public void onSubscribe(Subscription s) {
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(MessageExchange<M> exchange) {
        try {
            handler.handle(exchange).block();
        } finally {
            exchange.acknowledge();
        }
    }

    @Override
    public void onError(Throwable error) {
        failed.accept(error);
    }

    @Override
    public void onComplete() {}
}
