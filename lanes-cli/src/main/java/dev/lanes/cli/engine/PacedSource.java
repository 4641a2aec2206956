package dev.lanes.cli.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * An open-loop source: one producer thread emits message {@code i} of the run when it is due ({@code start + i /
 * rate}), whatever the dispatchers' pace, into one unbounded sink per type. A message's latency counts from when it
 * was due, so a late producer or a backlog before the dispatcher is included (no coordinated omission).
 */
final class PacedSource {
    private static final long MIN_PARK_NANOS = 50_000;

    private final Traffic traffic;
    private final EngineProbe probe;
    private final double intervalNanos;
    private final List<Sinks.Many<BenchMessage>> sinks = new ArrayList<>();
    private final Thread producer;
    private volatile boolean stopped;

    PacedSource(Traffic traffic, EngineProbe probe, int ratePerSecond) {
        this.traffic = traffic;
        this.probe = probe;
        this.intervalNanos = 1e9 / ratePerSecond;
        for (int t = 0; t < traffic.types; t++) {
            sinks.add(Sinks.many().unicast().onBackpressureBuffer());
        }
        this.producer = new Thread(this::produce, "lanes-producer");
        this.producer.setDaemon(true);
    }

    Flux<BenchMessage> flux(int type) {
        return sinks.get(type).asFlux();
    }

    void start() {
        producer.start();
    }

    /** Stops emitting (messages not yet due stay unsent) and waits for the producer thread. */
    void stop() {
        stopped = true;
        try {
            producer.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Emits what is due, then parks until the next is due (at least 50 us: no core is burnt spinning). */
    private void produce() {
        long start = System.nanoTime();
        int types = traffic.types;
        int i = 0;
        while (i < traffic.messages && !stopped) {
            long now = System.nanoTime();
            for (long due = dueAt(start, i); due <= now && i < traffic.messages; due = dueAt(start, ++i)) {
                int type = i % types;
                sinks.get(type).tryEmitNext(traffic.message(type, i / types, due, probe));
            }
            if (i < traffic.messages) {
                LockSupport.parkNanos(Math.max(MIN_PARK_NANOS, dueAt(start, i) - System.nanoTime()));
            }
        }
        sinks.forEach(Sinks.Many::tryEmitComplete);
    }

    private long dueAt(long start, int index) {
        return start + (long) (index * intervalNanos);
    }
}
