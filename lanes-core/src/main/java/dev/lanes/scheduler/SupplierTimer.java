package dev.lanes.scheduler;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The one timer thread of a supplier ({@code <supplier>-timer}, daemon, started with the first pool): it waits out
 * delays (retry backoff, {@code Mono.delay}) and then submits the task to its scheduler's workers, and runs each pool's
 * stall check ({@link WorkerPool#STALL_CHECK}). It never runs user code.
 */
final class SupplierTimer {
    private SupplierTimer() {}

    static ScheduledThreadPoolExecutor create(String supplierName) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, supplierName + "-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return timer;
    }
}
