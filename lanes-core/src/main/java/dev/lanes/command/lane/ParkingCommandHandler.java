package dev.lanes.command.lane;

import dev.lanes.command.CommandResults;
import dev.lanes.command.LaneReports;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.HandlerTimeoutException;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.exchange.ParkingFailure;
import dev.lanes.messaging.CommandMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The lane handler of one aggregate type's commands when a {@link CommandParking} is wired: a command whose aggregate
 * has parked commands is parked behind them without running (its sender is answered with {@link
 * CommandParkedException}); any other runs through the {@link AggregateProcessor}, and when its last attempt (by the
 * lane's {@link RetryPolicy}) fails, the command becomes the head of a new sequence; once it is stored, its sender is
 * answered with the error and the command acknowledged to its bus (while the queue cannot store it, the sender waits,
 * to its deadline at most). A command sent again by a retry of its sequence ({@link
 * CommandParking#RETRY_HEADER}) runs without the check and is never parked again: its sender (the retry) gets the error.
 *
 * <p>Every method runs in the command's lane; see {@link ExchangeHandler}.
 */
final class ParkingCommandHandler implements ExchangeHandler<CommandMessage> {
    private static final Logger log = LoggerFactory.getLogger(ParkingCommandHandler.class);

    private final AggregateProcessor<?> processor;
    private final CommandParking parking;
    private final RetryPolicy retryPolicy;
    private final CommandResults results;

    ParkingCommandHandler(
            AggregateProcessor<?> processor, CommandParking parking, RetryPolicy retryPolicy, CommandResults results) {
        this.processor = processor;
        this.parking = parking;
        this.retryPolicy = retryPolicy;
        this.results = results;
    }

    @Override
    public Mono<Void> handle(MessageExchange<CommandMessage> exchange) {
        AttemptedCommand attempted = (AttemptedCommand) exchange;
        CommandMessage command = attempted.message();
        if (!attempted.untried() || !parking.holds(command)) {
            return attempt(attempted);
        }
        return storing(attempted, parking.parkBehind(command)).flatMap(parked -> {
            if (!parked) {
                return attempt(attempted); // the sequence is gone meanwhile
            }
            attempted.markSetAside();
            processor.forget(command);
            log.info("Parked {} behind the parked commands of its aggregate ({})", command, parking.processor());
            LaneReports.failed(results, command, new CommandParkedException(parking.processor(), command));
            return Mono.empty();
        });
    }

    /** A timed-out attempt ends as a failed one: retried, or parked once the retries are spent. */
    @Override
    public Mono<Void> timedOut(MessageExchange<CommandMessage> exchange, HandlerTimeoutException timeout) {
        return failed((AttemptedCommand) exchange, timeout.attempt(), timeout);
    }

    private Mono<Void> attempt(AttemptedCommand attempted) {
        int attempt = attempted.nextAttempt();
        Mono<Void> handling = processor.handle(attempted);
        if (handling == Mono.<Void>empty()) {
            return handling; // answered at once: the common case assembles nothing more
        }
        return Immediate.then(handling, error -> error == null ? Mono.empty() : failed(attempted, attempt, error));
    }

    /**
     * Left to the lane to retry; or, once the retries are spent, parked, then answered to the sender with the error. A
     * retry's resend is answered and not parked. A queue that cannot park commands leaves the error to the lane, which
     * hands the command to its parking lot.
     */
    private Mono<Void> failed(AttemptedCommand attempted, int attempt, Throwable error) {
        CommandMessage command = attempted.message();
        if (retryPolicy.shouldRetry(attempt, error)) {
            return Mono.error(error);
        }
        processor.forget(command);
        if (command.headers().containsKey(CommandParking.RETRY_HEADER)) {
            log.warn("{} failed again when its parked sequence was retried: {}", command, error.toString());
            LaneReports.failed(results, command, error);
            return Mono.empty();
        }
        return storing(attempted, parking.park(command, error, attempt).thenReturn(true))
                .doOnNext(parked -> {
                    attempted.markSetAside();
                    LaneReports.failed(
                            results, command, error); // once stored: a sender that was answered finds the letter
                    log.warn(
                            "Parked {} in {} after {} attempt(s): {}",
                            command,
                            parking.processor(),
                            attempt,
                            error.toString());
                })
                .then()
                .onErrorMap(ParkingFailure.keeping(error));
    }

    /** While the queue stores the command, the lane's handler timeout does not apply. */
    private static Mono<Boolean> storing(AttemptedCommand attempted, Mono<Boolean> parking) {
        return Mono.defer(() -> {
                    attempted.storing(true);
                    return parking;
                })
                .doFinally(signal -> attempted.storing(false));
    }
}
