package dev.lanes.command;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.tracing.MessageTracing;
import java.util.List;
import java.util.Objects;

/** The gateway Lanes ships in its core. */
public final class CommandGateways {
    private CommandGateways() {}

    /**
     * A gateway that sends through {@code commandBus} and waits in {@code results}. A request id {@code eventStore}
     * already holds is answered with what it stored; a send of the same message that is in flight here joins it (one
     * dispatch, each sender answered at its own stage); a send of another message of a request id in flight here waits
     * for the first to end; a command that fails to send leaves nothing behind. See {@link CommandGateway} for what
     * every wait ends with.
     *
     * @param commandBus where commands go; an in-memory one must report to the same {@code results}
     * @param eventStore the store the command dispatcher appends to
     * @param results where senders wait: the same as the command dispatcher's
     */
    public static CommandGateway create(CommandBus commandBus, EventStore eventStore, CommandResults results) {
        return create(commandBus, eventStore, results, List.of());
    }

    /**
     * As {@link #create(CommandBus, EventStore, CommandResults)}, running {@code interceptors} in this order on every
     * send before anything else (see {@link DispatchInterceptor}).
     */
    public static CommandGateway create(
            CommandBus commandBus,
            EventStore eventStore,
            CommandResults results,
            List<? extends DispatchInterceptor> interceptors) {
        return new DefaultCommandGateway(commandBus, eventStore, results, List.copyOf(interceptors));
    }

    /**
     * {@code gateway} with every send traced by {@code tracing} ({@link MessageTracing#send}): the trace starts when the
     * send is subscribed, its headers go with the command (before {@code gateway}'s dispatch interceptors run) and it
     * ends with the send's outcome. {@code gateway} itself when {@code tracing} is {@link MessageTracing#NONE}.
     */
    public static CommandGateway traced(CommandGateway gateway, MessageTracing tracing) {
        Objects.requireNonNull(gateway, "gateway");
        return Objects.requireNonNull(tracing, "tracing") == MessageTracing.NONE
                ? gateway
                : new TracedCommandGateway(gateway, tracing);
    }
}
