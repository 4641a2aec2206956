package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * How a group commit tells its callers their outcomes, without a database: after the batch's writer returned and gave
 * its slot back, so that a caller's continuation never holds a writer (and its connection) that the next batch needs.
 */
class GroupCommitOutcomesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Scheduler scheduler = Schedulers.newBoundedElastic(2, 100, "group-commit-test");

    @AfterEach
    void dispose() {
        scheduler.dispose();
    }

    /** One writer, batches of up to 8, no wait. */
    private GroupCommit<String, String> committing(GroupCommit.BatchWriter<String, String> writer) {
        return new GroupCommit<>(
                "Test commit", scheduler, 1, 8, 0, writer, () -> new IllegalStateException("Test commit is closed"));
    }

    private GroupCommit<String, String> upperCasing() {
        return committing(batch -> batch.forEach(pending -> pending.succeed(pending.item.toUpperCase())));
    }

    @Test
    void aCallersContinuationRunsAfterItsBatchGaveItsWriterBackSoTheNextBatchIsWrittenMeanwhile() {
        GroupCommit<String, String> commit = upperCasing();
        CompletableFuture<String> second = new CompletableFuture<>();

        // the first caller's continuation waits for a second batch: with the only writer still held, it never comes
        String both = commit.submit("a")
                .map(first -> {
                    commit.submit("b").subscribe(second::complete, second::completeExceptionally);
                    try {
                        return first + second.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (Exception notWritten) {
                        throw new IllegalStateException("the second batch was not written meanwhile", notWritten);
                    }
                })
                .block(TIMEOUT.plusSeconds(5));

        assertThat(both).isEqualTo("AB");
    }

    @Test
    void anItemTheWriterLeftWithoutAnOutcomeFailsNamingTheCommitAndTheItem() {
        GroupCommit<String, String> commit = committing(batch -> batch.stream()
                .filter(pending -> !pending.item.equals("forgotten"))
                .forEach(pending -> pending.succeed(pending.item)));

        assertThatThrownBy(() -> commit.submit("forgotten").block(TIMEOUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Test commit: the batch's writer returned without an outcome for forgotten");
        assertThat(commit.submit("kept").block(TIMEOUT)).isEqualTo("kept");
    }

    @Test
    void aWriterThatThrowsFailsEveryItemOfItsBatchAndTheNextBatchIsWritten() {
        GroupCommit<String, String> commit = committing(batch -> {
            if (batch.get(0).item.equals("boom")) {
                throw new IllegalArgumentException("writer failed on " + batch.size() + " item(s)");
            }
            batch.forEach(pending -> pending.succeed(pending.item));
        });

        assertThatThrownBy(() -> commit.submit("boom").block(TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("writer failed on 1 item(s)");
        assertThat(commit.submit("after").block(TIMEOUT)).isEqualTo("after");
    }

    @Test
    void theFirstOutcomeAWriterGivesCountsAndAVoidSuccessCompletesEmpty() {
        GroupCommit<String, String> commit = committing(batch -> batch.forEach(pending -> {
            if (pending.item.equals("empty")) {
                pending.succeed();
            } else {
                pending.succeed(pending.item);
            }
            pending.fail(new IllegalStateException("too late"));
        }));

        assertThat(commit.submit("value").block(TIMEOUT)).isEqualTo("value");
        assertThat(commit.submit("empty").blockOptional(TIMEOUT)).isEmpty();
    }

    @Test
    void afterCloseASubmissionFailsWithTheClosedError() {
        GroupCommit<String, String> commit = upperCasing();
        assertThat(commit.submit("open").block(TIMEOUT)).isEqualTo("OPEN");

        commit.close();

        assertThatThrownBy(() -> commit.submit("late").block(TIMEOUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Test commit is closed");
    }

    @Test
    void theSettingsAreCheckedAtConstructionNamingTheCommitAndTheValues() {
        assertThatThrownBy(() -> new GroupCommit<String, String>(
                        "Test commit", scheduler, 0, 8, 0, batch -> {}, () -> new IllegalStateException("closed")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Test commit: group commit needs writers and a batch size of at least 1 and a wait of at"
                        + " least 0: writers 0, batch size 8, wait 0 ns");
    }
}
