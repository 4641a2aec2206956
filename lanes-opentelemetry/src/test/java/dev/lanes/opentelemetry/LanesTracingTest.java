package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where a send's trace starts (the caller's current span, or a {@code traceparent} the caller put in the headers) and
 * how a failed command is recorded (the lane's and the send's spans with status {@code ERROR} and the exception).
 */
class LanesTracingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter))
            .build();
    private final OpenTelemetrySdk openTelemetry =
            OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    private final Tracer caller = openTelemetry.getTracer("caller");
    private final Lanes lanes = Lanes.builder()
            .aggregate(Bank.definition())
            .tracing(LanesTracing.of(openTelemetry))
            .build()
            .start();
    private final AggregateId account = Bank.account("acc-" + UUID.randomUUID());

    @AfterEach
    void stop() {
        lanes.stop();
        provider.close();
    }

    @Test
    void aSendWithinTheCallersSpanIsItsChild() {
        Span request = caller.spanBuilder("POST /accounts")
                .setSpanKind(SpanKind.SERVER)
                .startSpan();
        try (Scope ignored = request.makeCurrent()) {
            lanes.gateway()
                    .send(account, new OpenAccount("Ada"), WaitStage.PROCESSED)
                    .block(TIMEOUT);
        } finally {
            request.end();
        }

        SpanData send = awaitSpan("send bank.account");
        assertThat(send.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
        assertThat(send.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
        assertThat(awaitSpan("process bank.account").getParentSpanId()).isEqualTo(send.getSpanId());
    }

    @Test
    void theLanesParentIsTheSendAsARemoteParentAsTheHeaderNamesIt() {
        lanes.gateway()
                .send(account, new OpenAccount("Ada"), WaitStage.PROCESSED)
                .block(TIMEOUT);

        SpanData send = awaitSpan("send bank.account");
        SpanData lane = awaitSpan("process bank.account");
        assertThat(lane.getParentSpanContext().getSpanId()).isEqualTo(send.getSpanId());
        assertThat(lane.getParentSpanContext().getTraceId()).isEqualTo(send.getTraceId());
        assertThat(lane.getParentSpanContext().isRemote())
                .as("the parent the command's traceparent header names, whether or not it was parsed")
                .isTrue();
    }

    @Test
    void aTraceparentTheCallerSetIsTheSendsParent() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String parentId = "00f067aa0ba902b7";
        CommandMessage open = new CommandMessage(
                "open-" + account.id(),
                account,
                "open-" + account.id(),
                new OpenAccount("Ada"),
                Instant.now(),
                Map.of(MessageTracing.TRACEPARENT, "00-" + traceId + "-" + parentId + "-01"));

        lanes.gateway().send(open, WaitStage.PROCESSED).block(TIMEOUT);

        SpanData send = awaitSpan("send bank.account");
        assertThat(send.getTraceId()).isEqualTo(traceId);
        assertThat(send.getParentSpanId()).isEqualTo(parentId);
    }

    @Test
    void aFailedCommandEndsItsLaneAndItsSendWithStatusErrorAndTheException() {
        assertThatThrownBy(() -> lanes.gateway()
                        .send(account, new Deposit(10), WaitStage.PROCESSED)
                        .block(TIMEOUT))
                .isInstanceOf(RuntimeException.class);

        SpanData lane = awaitSpan("process bank.account");
        SpanData send = awaitSpan("send bank.account");
        for (SpanData span : List.of(lane, send)) {
            assertThat(span.getStatus().getStatusCode()).as(span.getName()).isEqualTo(StatusCode.ERROR);
            assertThat(span.getEvents())
                    .as(span.getName())
                    .anySatisfy(event -> assertThat(event.getName()).isEqualTo("exception"));
        }
        assertThat(lane.getEvents())
                .as("the lane failed in its decision: no step after the load")
                .noneSatisfy(event -> assertThat(event.getName()).isEqualTo("decide"));
    }

    private SpanData awaitSpan(String name) {
        Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> exporter.getFinishedSpanItems().stream()
                        .anyMatch(span -> span.getName().equals(name)));
        return exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
