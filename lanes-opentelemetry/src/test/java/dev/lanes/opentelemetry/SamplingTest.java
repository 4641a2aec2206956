package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a sampler decides on, and what an unsampled trace still carries: the messaging attributes and the command's
 * type are given at the span's start, where samplers and span processors' {@code onStart} see them (the others only to
 * a recording span), and an unsampled send's context still reaches the events its
 * lane stores, so a trace the caller did not sample stays unsampled downstream.
 */
class SamplingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ConcurrentMap<String, Map<String, String>> seen = new ConcurrentHashMap<>();
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .setSampler(new Sampler() {
                private final Sampler delegate = Sampler.parentBased(Sampler.alwaysOn());

                @Override
                public SamplingResult shouldSample(
                        Context parent,
                        String traceId,
                        String name,
                        SpanKind kind,
                        Attributes attributes,
                        List<LinkData> links) {
                    seen.putIfAbsent(name, named(attributes)); // the SDK goes on to fill the same map
                    return delegate.shouldSample(parent, traceId, name, kind, attributes, links);
                }

                @Override
                public String getDescription() {
                    return "recording " + delegate.getDescription();
                }
            })
            .addSpanProcessor(SimpleSpanProcessor.create(exporter))
            .build();
    private final EventStore store = EventStores.inMemory();
    private final Lanes lanes = Lanes.builder()
            .aggregate(Bank.definition())
            .eventStore(store)
            .tracing(LanesTracing.of(
                    OpenTelemetrySdk.builder().setTracerProvider(provider).build()))
            .build()
            .start();
    private final AggregateId account = Bank.account("acc-" + UUID.randomUUID());

    @AfterEach
    void stop() {
        lanes.stop();
        provider.close();
    }

    @Test
    void aSamplerSeesTheMessagingAttributesAtTheSpansStart() {
        lanes.gateway()
                .send(account, new OpenAccount("Ada"), WaitStage.PROCESSED)
                .block(TIMEOUT);

        assertThat(attributes("send bank.account"))
                .isEqualTo(Map.of(
                        "messaging.system", "lanes",
                        "messaging.operation.type", "send",
                        "messaging.operation.name", "send",
                        "messaging.destination.name", "bank.account",
                        "lanes.command.type", "OpenAccount"));
        assertThat(attributes("process bank.account"))
                .isEqualTo(Map.of(
                        "messaging.system", "lanes",
                        "messaging.operation.type", "process",
                        "messaging.operation.name", "process",
                        "messaging.destination.name", "bank.account",
                        "lanes.command.type", "OpenAccount"));
    }

    @Test
    void anUnsampledSendStillCarriesItsTraceToTheStoredEvents() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String callerSpan = "00f067aa0ba902b7";
        CommandMessage open = new CommandMessage(
                "open-" + account.id(),
                account,
                "open-" + account.id(),
                new OpenAccount("Ada"),
                Instant.now(),
                Map.of(MessageTracing.TRACEPARENT, "00-" + traceId + "-" + callerSpan + "-00"));

        lanes.gateway().send(open, WaitStage.PROCESSED).block(TIMEOUT);

        DomainEventStream opened =
                Objects.requireNonNull(store.load(account, 1).blockFirst(TIMEOUT), "the opening's events");
        String traceparent = opened.headers().get(MessageTracing.TRACEPARENT);
        assertThat(traceparent)
                .as("the lane's context, in the caller's trace, not sampled")
                .startsWith("00-" + traceId + "-")
                .endsWith("-00")
                .doesNotContain(callerSpan);
        assertThat(exporter.getFinishedSpanItems()).as("nothing sampled").isEmpty();
    }

    private Map<String, String> attributes(String span) {
        return Objects.requireNonNull(seen.get(span), () -> "no sampling of " + span + ": " + seen);
    }

    private static Map<String, String> named(Attributes attributes) {
        Map<String, String> named = new java.util.HashMap<>();
        attributes.forEach((key, value) -> named.put(key.getKey(), String.valueOf(value)));
        return named;
    }
}
