package dev.lanes.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StripedRecorderTest {
    private static final int WRITERS = 4;
    private static final int VALUES_PER_WRITER = 100_000;

    @Test
    void readersRacingTheWritersCountEveryValueExactlyOnce() throws Exception {
        StripedRecorder recorder = new StripedRecorder();
        ExecutorService threads = Executors.newFixedThreadPool(WRITERS + 1);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                long value = (w + 1) * 1_000L;
                writers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < VALUES_PER_WRITER; i++) {
                        recorder.record(value);
                    }
                    return null;
                }));
            }
            AtomicBoolean writing = new AtomicBoolean(true);
            Future<Long> intervals = threads.submit(() -> {
                long counted = 0;
                int reads = 0;
                while (writing.get() || reads == 0) {
                    counted += recorder.takeInterval().getTotalCount();
                    recorder.total(); // a second reader of the same folds
                    reads++;
                }
                return counted;
            });
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(30, TimeUnit.SECONDS);
            }
            writing.set(false);
            long counted = intervals.get(30, TimeUnit.SECONDS)
                    + recorder.takeInterval().getTotalCount();

            Histogram total = recorder.total();
            assertThat(counted).isEqualTo((long) WRITERS * VALUES_PER_WRITER);
            assertThat(total.getTotalCount()).isEqualTo((long) WRITERS * VALUES_PER_WRITER);
            for (int w = 0; w < WRITERS; w++) {
                assertThat(total.getCountAtValue((w + 1) * 1_000L)).isEqualTo(VALUES_PER_WRITER);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void resetForgetsWhatCameBeforeIt() {
        StripedRecorder recorder = new StripedRecorder();
        recorder.record(5);
        recorder.record(7);
        recorder.reset();
        recorder.record(11);

        assertThat(recorder.total().getTotalCount()).isEqualTo(1);
        assertThat(recorder.total().getMaxValue()).isEqualTo(11);
        assertThat(recorder.takeInterval().getTotalCount()).isEqualTo(1);
        assertThat(recorder.takeInterval().getTotalCount()).isZero();
        assertThat(recorder.total().getTotalCount()).isEqualTo(1);
    }

    @Test
    void aNegativeValueCountsAsZero() {
        StripedRecorder recorder = new StripedRecorder();
        recorder.record(-3);

        assertThat(recorder.total().getCountAtValue(0)).isEqualTo(1);
    }
}
