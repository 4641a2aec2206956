package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A command sent again while its first send is in flight joins that send: it is dispatched and handled once, and each
 * sender is answered at its own stage. The handler (and, where it matters, the projection) is held until the test
 * releases it, so every send is made while the first is in flight.
 */
class GatewayJoinTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate TILL = NamedAggregate.of("shop", "till");
    private static final AggregateId TILL_1 = AggregateId.of(TILL, "t-1");

    /** Handled by the held handler. */
    record Deposit(int amount) {}

    /** Handled at once: sent after the others, it is handled after any copy of them queued in the lane. */
    record Fence() {}

    record Deposited(int amount) {}

    record Fenced() {}

    private final AtomicInteger deposits = new AtomicInteger();
    private final CountDownLatch depositEntered = new CountDownLatch(1);
    private final Sinks.Empty<Void> releaseDeposit = Sinks.empty();
    private final Sinks.Empty<Void> releaseProjection = Sinks.empty();
    private final List<Lanes> started = new ArrayList<>();

    private AggregateDefinition<Integer> till(boolean failDeposits) {
        return AggregateDefinition.<Integer>builder(TILL, id -> 0)
                .handleAsync(Deposit.class, (balance, deposit) -> {
                    deposits.incrementAndGet();
                    depositEntered.countDown();
                    return releaseDeposit
                            .asMono()
                            .then(
                                    failDeposits
                                            ? Mono.error(new IllegalStateException("till closed"))
                                            : Mono.just(new Deposited(deposit.amount())));
                })
                .handle(Fence.class, (balance, fence) -> List.of(new Fenced()))
                .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                .apply(Fenced.class, (balance, fenced) -> balance)
                .build();
    }

    private Lanes start(boolean failDeposits, boolean heldProjection) {
        Lanes.Builder builder = Lanes.builder().aggregate(till(failDeposits));
        if (heldProjection) {
            builder.processor(EventProcessor.builder("Balances", ProcessorKind.PROJECTION)
                    .on(TILL, Deposited.class, (deposited, context) -> releaseProjection.asMono())
                    .build());
        }
        Lanes lanes = builder.build().start();
        started.add(lanes);
        return lanes;
    }

    @AfterEach
    void stop() {
        releaseDeposit.tryEmitEmpty();
        releaseProjection.tryEmitEmpty();
        started.forEach(Lanes::stop);
    }

    /** Every send of a Deposit made before it was handled any copy of it: the lane handles commands in order. */
    private static void fence(Lanes lanes) {
        lanes.gateway().send(TILL_1, new Fence(), WaitStage.PROCESSED).block(TIMEOUT);
    }

    private void awaitDepositEntered() throws InterruptedException {
        assertThat(depositEntered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as("the deposit's handler runs")
                .isTrue();
    }

    private static CommandResult result(CompletableFuture<CommandResult> outcome) throws Exception {
        return outcome.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void theSameMessageSentAgainWhileInFlightIsHandledOnceAndBothSendersGetItsResult() throws Exception {
        Lanes lanes = start(false, false);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(5), "deposit-1");
        CompletableFuture<CommandResult> first =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        awaitDepositEntered();

        CompletableFuture<CommandResult> second =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        assertThat(second).as("joined a send in flight").isNotDone();
        releaseDeposit.tryEmitEmpty();

        assertThat(result(first).version()).isEqualTo(1);
        assertThat(result(second)).isEqualTo(result(first));
        fence(lanes);
        assertThat(deposits).as("handler runs").hasValue(1);
        assertThat(lanes.commandResults().inFlight()).isZero();
    }

    /** Sixteen senders race to send one message; the handler is held until all of them have sent. */
    @Test
    void manyConcurrentSendsOfOneMessageAreHandledOnce() throws Exception {
        Lanes lanes = start(false, false);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(7), "deposit-race");
        int senders = 16;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(senders);
        try {
            List<CompletableFuture<CompletableFuture<CommandResult>>> sends = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                sends.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                go.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new IllegalStateException(e);
                            }
                            return lanes.gateway()
                                    .send(deposit, WaitStage.PROCESSED)
                                    .toFuture();
                        },
                        threads));
            }
            go.countDown();
            List<CompletableFuture<CommandResult>> outcomes = new ArrayList<>();
            for (CompletableFuture<CompletableFuture<CommandResult>> send : sends) {
                outcomes.add(send.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            }
            assertThat(outcomes).as("all sent while the handler is held").noneMatch(CompletableFuture::isDone);
            releaseDeposit.tryEmitEmpty();

            CommandResult first = result(outcomes.get(0));
            for (CompletableFuture<CommandResult> outcome : outcomes) {
                assertThat(result(outcome)).isEqualTo(first);
            }
            assertThat(first.version()).isEqualTo(1);
            fence(lanes);
            assertThat(deposits).as("handler runs").hasValue(1);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void eachSenderOfTheMessageIsAnsweredAtItsOwnStage() throws Exception {
        Lanes lanes = start(false, true);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(3), "deposit-stages");
        CompletableFuture<CommandResult> processed =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        awaitDepositEntered();

        CompletableFuture<CommandResult> sent =
                lanes.gateway().send(deposit, WaitStage.SENT).toFuture();
        CompletableFuture<CommandResult> projected =
                lanes.gateway().send(deposit, WaitStage.PROJECTED).toFuture();
        assertThat(result(sent).stage()).as("its lane took the command already").isEqualTo(WaitStage.SENT);
        assertThat(processed).isNotDone();

        releaseDeposit.tryEmitEmpty();
        assertThat(result(processed).stage()).isEqualTo(WaitStage.PROCESSED);
        assertThat(projected).as("the projection is held").isNotDone();

        releaseProjection.tryEmitEmpty();
        assertThat(result(projected).stage()).isEqualTo(WaitStage.PROJECTED);
        assertThat(result(projected).version()).isEqualTo(1);
        fence(lanes);
        assertThat(deposits).as("handler runs").hasValue(1);
    }

    @Test
    void theHandlersFailureReachesEverySenderOfTheMessageAndItIsHandledOnce() throws Exception {
        Lanes lanes = start(true, false);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(5), "deposit-failing");
        CompletableFuture<CommandResult> first =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        awaitDepositEntered();
        CompletableFuture<CommandResult> second =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();

        releaseDeposit.tryEmitEmpty();

        for (CompletableFuture<CommandResult> outcome : List.of(first, second)) {
            assertThat(outcome)
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOf(IllegalStateException.class)
                    .withMessage("till closed");
        }
        fence(lanes);
        assertThat(deposits).as("handler runs").hasValue(1);
    }

    /** Once the first send ended, the same message sent again is answered from the store, as any resend is. */
    @Test
    void theSameMessageSentAgainAfterItWasProcessedIsAnsweredFromTheStore() throws Exception {
        Lanes lanes = start(false, false);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(5), "deposit-done");
        CompletableFuture<CommandResult> first =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        releaseDeposit.tryEmitEmpty();
        CommandResult processed = result(first);
        assertThat(lanes.commandResults().inFlight()).isZero();

        CommandResult again = lanes.gateway().send(deposit, WaitStage.PROJECTED).block(TIMEOUT);

        assertThat(again).as("the stored result, stage PROCESSED").isEqualTo(processed);
        fence(lanes);
        assertThat(deposits).as("handler runs").hasValue(1);
    }

    /**
     * Another message under a request id in flight is not joined (it may carry another command): it waits for the
     * first send to end, then the store answers it with what the request id stored (the first message's id, stage
     * {@code PROCESSED}).
     */
    @Test
    void anotherMessageOfARequestIdInFlightWaitsForItAndIsAnsweredFromTheStore() throws Exception {
        Lanes lanes = start(false, false);
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(5), "deposit-retried");
        CommandMessage retry = CommandMessage.of(TILL_1, new Deposit(5), "deposit-retried");
        CompletableFuture<CommandResult> first =
                lanes.gateway().send(deposit, WaitStage.PROCESSED).toFuture();
        awaitDepositEntered();
        CompletableFuture<CommandResult> second =
                lanes.gateway().send(retry, WaitStage.PROJECTED).toFuture();
        assertThat(second).isNotDone();

        releaseDeposit.tryEmitEmpty();

        assertThat(result(second)).isEqualTo(result(first));
        assertThat(result(second).commandId()).isEqualTo(deposit.messageId());
        fence(lanes);
        assertThat(deposits).as("handler runs").hasValue(1);
    }
}
