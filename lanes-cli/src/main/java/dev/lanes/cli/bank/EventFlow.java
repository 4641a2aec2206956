package dev.lanes.cli.bank;

/**
 * The bounds of the bank's event side.
 *
 * @param busBudget streams each consumer group's route may hold before new commands of its type pause
 * @param perLane streams one event lane may hold before its processor pauses its intake
 * @param perProcessor streams one processor may hold in all
 */
public record EventFlow(int busBudget, int perLane, int perProcessor) {
    public static final EventFlow DEFAULT = new EventFlow(4096, 1024, 16_384);

    public EventFlow {
        if (busBudget <= 0 || perLane <= 0 || perProcessor < perLane) {
            throw new IllegalArgumentException(
                    "EventFlow: the bounds must be positive, the per-lane one at most the per-processor one, but were "
                            + busBudget + ", " + perLane + "/" + perProcessor);
        }
    }

    /** {@code PER_LANE/TOTAL}, as the option takes it. */
    String bounds() {
        return perLane + "/" + perProcessor;
    }
}
