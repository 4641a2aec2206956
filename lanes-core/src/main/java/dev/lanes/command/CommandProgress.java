package dev.lanes.command;

import dev.lanes.internal.Internal;
import java.util.List;

/**
 * What the command dispatcher reports about one command while its lane handles it, so that a sender is never told
 * something the store contradicts. Obtained when the lane begins handling the command ({@link CommandResults#handling}); then,
 * from that lane only, for each append {@link #beginAppend} followed by {@link #stored} or {@link #appendFailed}.
 */
@Internal
public interface CommandProgress {

    /** For a command no sender waits for on this instance. */
    CommandProgress UNTRACKED = new CommandProgress() {
        @Override
        public boolean beginAppend() {
            return true;
        }

        @Override
        public void appendFailed(boolean definitive) {}

        @Override
        public void stored(int version, List<Object> events) {}

        @Override
        public void storedEarlier(String commandId, int version, List<Object> events) {}
    };

    /**
     * The append is about to be sent to the store. {@code false} when a stop already told the sender that nothing is
     * stored: the append must then not happen.
     */
    boolean beginAppend();

    /**
     * The append failed: {@code definitive} when the store refused it (a conflict, a duplicate: nothing stored), not
     * when its outcome is unknown (a lost connection, a timeout).
     */
    void appendFailed(boolean definitive);

    /** The append succeeded: the command's events are stored at {@code version}. */
    void stored(int version, List<Object> events);

    /**
     * The command's request id was stored earlier, by command {@code commandId} (this one, or an earlier send of the
     * request id): its events at {@code version} are what this command's senders are answered with.
     */
    void storedEarlier(String commandId, int version, List<Object> events);
}
