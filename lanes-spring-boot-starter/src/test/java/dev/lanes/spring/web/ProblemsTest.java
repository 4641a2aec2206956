package dev.lanes.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.lane.CommandParkedException;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;

/** The problem answers that the endpoint tests do not reach through a running service. */
class ProblemsTest {
    private final Problems problems = new Problems(Duration.ofSeconds(2));

    @Test
    void aCommandParkedBehindItsAggregatesParkedCommandsIsAConflictThatSaysHowItWillRun() {
        AggregateId account = AggregateId.of(NamedAggregate.of("bank", "account"), "a-1");
        CommandMessage command = CommandMessage.of(account, "deposit", "key-1");

        Answer answer = problems.answer(new CommandParkedException("commands:bank.account", command), "key-1", false);

        assertThat(answer.status()).isEqualTo(409);
        assertThat(answer.headers()).doesNotContainKey("Retry-After");
        ProblemDetail problem = (ProblemDetail) answer.body();
        assertThat(problem.getType()).hasToString(Problems.TYPE_PREFIX + "aggregate-parked");
        assertThat(problem.getDetail())
                .contains("lanes parked retry --processor commands:bank.account --aggregate " + account);
        assertThat(problem.getProperties()).containsEntry("parked", true).containsEntry("requestId", "key-1");
    }
}
