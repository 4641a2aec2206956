package dev.lanes.cli.bank;

import dev.lanes.examples.bank.AccountEvent;
import dev.lanes.examples.bank.Bank;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.publisher.Mono;

/**
 * An event handler that checks what a processor sees: every account's streams in version order, 1, 2, 3..., none
 * skipped or repeated.
 */
final class OrderAudit {
    static final String NAME = "OrderAudit";

    private final ConcurrentHashMap<String, Integer> lastVersion = new ConcurrentHashMap<>();
    private final LongAdder violations = new LongAdder();
    private final LongAdder streams = new LongAdder();

    EventProcessor processor() {
        return EventProcessor.builder(NAME, ProcessorKind.HANDLER)
                .on(
                        Bank.ACCOUNT,
                        AccountEvent.class,
                        (event, context) -> Mono.fromRunnable(() -> {
                            if (context.event().sequence() != 1) {
                                return; // one check per stream
                            }
                            streams.increment();
                            lastVersion.compute(context.aggregateId().id(), (id, last) -> {
                                int previous = last == null ? 0 : last;
                                if (context.version() != previous + 1) {
                                    violations.increment();
                                }
                                return Math.max(previous, context.version());
                            });
                        }))
                .build();
    }

    long violations() {
        return violations.sum();
    }

    long streams() {
        return streams.sum();
    }
}
