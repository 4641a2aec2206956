package dev.lanes.cli.bank;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.cli.run.Latencies;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** A client that continues inline: an answer that comes during its own send is followed up by the sending loop. */
class BankClientTest {
    private static final int COMMANDS = 50_000;
    private static final BankClient.Mix DEPOSITS = BankClient.Mix.DEPOSITS;

    private final ExecutorService threads = Executors.newSingleThreadExecutor();
    private final Latencies latencies = new Latencies();
    private final BankClient.Timers timers =
            new BankClient.Timers(latencies.stage("SENT"), latencies.stage("PROCESSED"), latencies.stage("PROJECTED"));

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void answersThatComeBeforeTheSendReturnsAreFollowedUpWithoutGrowingTheStack() throws Exception {
        AnswersAtOnce gateway = new AnswersAtOnce();
        Ledger ledger = new Ledger();
        CountDownLatch ended = new CountDownLatch(1);
        BankClient client = new BankClient(
                0,
                DEPOSITS,
                List.of("acct-0"),
                42,
                gateway,
                ledger,
                timers,
                new BankClient.Tickets(COMMANDS, false),
                threads,
                BankClient.Continuation.INLINE);

        client.start(ended::countDown);

        // each send nested in the previous answer would overflow the stack long before the last: the client never ends
        assertThat(ended.await(30, TimeUnit.SECONDS)).as("the client ended").isTrue();
        // the first send's answer starts the loop inside that send; the loop's sends are all one level deeper
        assertThat(gateway.deepestSend.get()).isEqualTo(2);
        assertThat(ledger.answered()).isEqualTo(COMMANDS);
        assertThat(ledger.count(Ledger.Answer.OK)).isEqualTo(COMMANDS);
    }

    @Test
    void answersOnOtherThreadsRacingTheSendingLoopNeverPutASecondCommandOfAClientInFlight() throws Exception {
        ExecutorService answering = Executors.newFixedThreadPool(2);
        try {
            AnswersAnywhere gateway = new AnswersAnywhere(answering);
            Ledger ledger = new Ledger();
            int clients = 8;
            CountDownLatch ended = new CountDownLatch(clients);
            BankClient.Tickets tickets = new BankClient.Tickets(COMMANDS, false);
            for (int id = 0; id < clients; id++) {
                new BankClient(
                                id,
                                DEPOSITS,
                                List.of("acct-" + id), // one account per client: its commands are its own
                                42,
                                gateway,
                                ledger,
                                timers,
                                tickets,
                                threads,
                                BankClient.Continuation.INLINE)
                        .start(ended::countDown);
            }

            assertThat(ended.await(30, TimeUnit.SECONDS))
                    .as("every client ended")
                    .isTrue();
            assertThat(gateway.mostInFlightOfOneClient.get()).isEqualTo(1);
            assertThat(ledger.answered()).isEqualTo(COMMANDS);
        } finally {
            answering.shutdownNow();
        }
    }

    /** A gateway of these tests: every command succeeds, at the stage it waits for; when, the subclass says. */
    private abstract static class SucceedingGateway implements CommandGateway {
        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
            return send(command, waitStage, Duration.ofSeconds(30));
        }

        static CommandResult succeeded(CommandMessage command, WaitStage waitStage) {
            return new CommandResult(
                    command.messageId(), command.requestId(), command.aggregateId(), waitStage, 1, List.of());
        }
    }

    /**
     * A gateway that answers every send before the send returns, as one whose store already holds the request answers
     * a resend; records how deeply its sends were nested.
     */
    private static final class AnswersAtOnce extends SucceedingGateway {
        private final AtomicInteger depth = new AtomicInteger();
        private final AtomicInteger deepestSend = new AtomicInteger();

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
            return Mono.defer(() -> {
                        deepestSend.accumulateAndGet(depth.incrementAndGet(), Math::max);
                        return Mono.just(succeeded(command, waitStage));
                    })
                    .doFinally(signal -> depth.decrementAndGet());
        }
    }

    /**
     * A gateway that answers each send at random before the send returns or later on another thread; counts each
     * client's commands in flight (its account is the client).
     */
    private static final class AnswersAnywhere extends SucceedingGateway {
        private final Scheduler answering;
        private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        private final AtomicInteger mostInFlightOfOneClient = new AtomicInteger();

        AnswersAnywhere(ExecutorService answering) {
            this.answering = Schedulers.fromExecutorService(answering);
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
            return Mono.defer(() -> {
                AtomicInteger client =
                        inFlight.computeIfAbsent(command.aggregateId().id(), id -> new AtomicInteger());
                mostInFlightOfOneClient.accumulateAndGet(client.incrementAndGet(), Math::max);
                Mono<CommandResult> answer = Mono.fromCallable(() -> {
                    client.decrementAndGet();
                    return succeeded(command, waitStage);
                });
                return ThreadLocalRandom.current().nextBoolean() ? answer : answer.subscribeOn(answering);
            });
        }
    }
}
