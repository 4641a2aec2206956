package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

/** The snippet of docs/guides/dead-letters.md, compiled and run as written there. */
class ReadmeDeadLettersTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    /** The parking and the retry are logged as the sequencer's warnings, nothing else. */
    @AfterEach
    void onlyTheSequencersWarningsAreLogged() {
        assertThat(logs.lines())
                .allSatisfy(line -> assertThat(line.level() + " " + line.logger())
                        .as(line.message())
                        .isEqualTo("WARN dev.lanes.processing.deadletter.DeadLetterSequencer"));
    }

    @Test
    void theReadmesDeadLetterHandlingParksRetriesInOrderAndReleasesTheSequence() {
        AtomicBoolean mailServerDown = new AtomicBoolean(true);
        List<Integer> mailed = new CopyOnWriteArrayList<>();
        EventProcessor statements = EventProcessor.builder("Statements", ProcessorKind.HANDLER)
                .on(
                        Bank.ACCOUNT,
                        Deposited.class,
                        (deposited, context) -> Mono.fromRunnable(() -> {
                            if (mailServerDown.get()) {
                                throw new IllegalStateException("mail server down");
                            }
                            mailed.add(context.version());
                        }))
                .build();
        // --- docs/guides/dead-letters.md snippet: from here
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .processor(statements)
                .eventSettings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.DEFAULT.withMaxRetries(2)))
                .deadLetterQueue(DeadLetterQueues.inMemory()) // or PostgresDeadLetterQueue.open(dataSource)
                .build()
                .start()) {
            lanes.gateway()
                    .send(Bank.account("acc-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                    .block();
            lanes.gateway()
                    .send(Bank.account("acc-1"), new Deposit(100), WaitStage.PROCESSED)
                    .block(); // v2: Statements fails 3 times, then parks it: the head of a sequence
            lanes.gateway()
                    .send(Bank.account("acc-1"), new Deposit(50), WaitStage.PROCESSED)
                    .block(); // v3: parked behind v2 for Statements; other processors handle it

            DeadLetters deadLetters = lanes.deadLetters();
            // --- docs/guides/dead-letters.md snippet: pause (the test waits for the parking, which is asynchronous)
            await().atMost(TIMEOUT)
                    .until(() -> deadLetters
                                    .list("Statements", Bank.account("acc-1"))
                                    .block(TIMEOUT)
                                    .size()
                            == 2);
            mailServerDown.set(false);
            // --- docs/guides/dead-letters.md snippet: resume
            List<DeadLetter> parked =
                    deadLetters.list("Statements", Bank.account("acc-1")).block(); // v2 (with its reason), v3
            RetryOutcome outcome = deadLetters
                    .retry("Statements", Bank.account("acc-1"))
                    .block(); // after the fix: v2, then v3, in the lane
            // deadLetters.skip("Statements", Bank.account("acc-1")) drops the head instead, then delivers the rest
            // --- docs/guides/dead-letters.md snippet: to here (and the closing brace); the assertions are the test's
            assertThat(parked)
                    .extracting(DeadLetter::reason)
                    .containsExactly(
                            "java.lang.IllegalStateException: mail server down",
                            "parked behind the head of its sequence");
            assertThat(outcome.delivered()).isEqualTo(2);
            assertThat(outcome.released()).isTrue();
            assertThat(mailed).containsExactly(2, 3);
        }
    }
}
