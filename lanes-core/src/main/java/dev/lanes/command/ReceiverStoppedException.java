package dev.lanes.command;

/**
 * A bus refused a command because the receiver of its type stopped taking new commands (the runtime is stopping).
 * {@link CommandResults} answers the sender as stopped, nothing stored.
 */
final class ReceiverStoppedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ReceiverStoppedException(String message) {
        super(message);
    }
}
