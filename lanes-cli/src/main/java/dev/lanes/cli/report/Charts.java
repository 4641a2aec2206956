package dev.lanes.cli.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntBiFunction;

/**
 * Inline SVG charts for the HTML report: latency histogram, throughput over time, lane depth heat map. Each chart has a
 * title and a label on each axis.
 */
final class Charts {
    private static final int WIDTH = 960;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    /** Above the plot: the chart's title. */
    private static final int TOP = 34;

    private static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;
    private static final int HISTOGRAM_HEIGHT = 280;
    private static final int HISTOGRAM_PLOT = HISTOGRAM_HEIGHT - TOP - 40;
    private static final int THROUGHPUT_HEIGHT = 260;
    private static final int THROUGHPUT_PLOT = THROUGHPUT_HEIGHT - TOP - 40;
    /** Heat maps: the series' names on the left, then the cells. */
    private static final int LABEL_WIDTH = 260;

    private static final int HEAT_WIDTH = WIDTH - LABEL_WIDTH - RIGHT;
    private static final int ROW_HEIGHT = 18;
    private static final String BLUE = "#4e79a7";
    private static final int BUCKETS_PER_DECADE = 10;
    private static final int MAX_COLUMNS = 240;

    private Charts() {}

    /** A marker line on the latency axis, e.g. "p99" at 1,234 us. */
    record Marker(String label, double micros) {}

    /** Bars over log-spaced latency buckets (10 per decade), counts on a linear axis, with percentile markers. */
    static String latencyHistogram(Report.Distribution nanos, List<Marker> markers) {
        if (nanos.totalCount() == 0) {
            return "<p>No latency was recorded.</p>";
        }
        Buckets buckets = Buckets.of(nanos);
        Svg svg = new Svg(WIDTH, HISTOGRAM_HEIGHT, "Latency histogram");
        svg.title("Latency histogram: messages per latency bucket, all stages (10 buckets per decade)");
        double axisTop = yAxis(svg, buckets.top(), HISTOGRAM_PLOT, "messages");
        bars(svg, buckets, axisTop);
        decadeAxis(svg, buckets);
        markers.forEach(marker -> marker(svg, buckets, marker, markers.indexOf(marker)));
        return svg.toString();
    }

    private static void bars(Svg svg, Buckets buckets, double axisTop) {
        double barWidth = buckets.width();
        for (int i = 0; i < buckets.counts.length; i++) {
            double h = buckets.counts[i] / axisTop * HISTOGRAM_PLOT;
            String tooltip = String.format(
                    Locale.ROOT,
                    "%s - %s us: %,d",
                    TextReport.micros(buckets.lowMicros(i)),
                    TextReport.micros(buckets.lowMicros(i + 1)),
                    buckets.counts[i]);
            svg.rect(LEFT + i * barWidth + 0.5, TOP + HISTOGRAM_PLOT - h, Math.max(1, barWidth - 1), h, BLUE, tooltip);
        }
    }

    private static void decadeAxis(Svg svg, Buckets buckets) {
        double axisY = TOP + HISTOGRAM_PLOT;
        for (int k = (int) Math.ceil(buckets.first / (double) BUCKETS_PER_DECADE);
                k * BUCKETS_PER_DECADE <= buckets.last;
                k++) {
            double x = buckets.x(k * BUCKETS_PER_DECADE);
            svg.line(x, axisY, x, axisY + 5, "#888", false);
            svg.text(x, axisY + 18, "middle", decade(k));
        }
        svg.text(LEFT + PLOT_WIDTH / 2.0, HISTOGRAM_HEIGHT - 4, "middle", "end-to-end latency (log scale)");
    }

    private static void marker(Svg svg, Buckets buckets, Marker marker, int index) {
        if (marker.micros() <= 0) {
            return;
        }
        double x = buckets.x(BUCKETS_PER_DECADE * Math.log10(marker.micros()));
        x = Math.max(LEFT, Math.min(LEFT + PLOT_WIDTH, x));
        svg.line(x, TOP, x, TOP + HISTOGRAM_PLOT, "#e15759", true);
        boolean nearRight = x > LEFT + PLOT_WIDTH * 0.8;
        svg.text(
                nearRight ? x - 3 : x + 3,
                TOP + 10 + 13 * index,
                nearRight ? "end" : "start",
                marker.label() + " " + TextReport.micros(marker.micros()) + " us");
    }

    /** The settled count's rate between consecutive samples, as steps over time. */
    static String throughput(Timeline timeline, String unit) {
        List<Timeline.Sample> samples = timeline.samples();
        if (samples.size() < 2) {
            return "<p>The run was too short to sample its throughput.</p>";
        }
        double[] rates = rates(samples);
        double seconds = lastSeconds(samples);
        Svg svg = new Svg(WIDTH, THROUGHPUT_HEIGHT, "Throughput over time");
        svg.title("Throughput over time: " + unit + " settled per second between samples");
        double top = Math.max(1, Arrays.stream(rates).max().orElse(1));
        double niceTop = yAxis(svg, top, THROUGHPUT_PLOT, unit + "/s");
        timeAxis(svg, seconds, PLOT_WIDTH, TOP + THROUGHPUT_PLOT);
        svg.polygon(steps(samples, rates, seconds, niceTop), BLUE);
        return svg.toString();
    }

    /** Per sample, the rate since the one before (the first is 0). */
    private static double[] rates(List<Timeline.Sample> samples) {
        double[] rates = new double[samples.size()];
        for (int i = 1; i < samples.size(); i++) {
            Timeline.Sample before = samples.get(i - 1);
            Timeline.Sample now = samples.get(i);
            long millis = Math.max(1, now.atMillis() - before.atMillis());
            rates[i] = (now.settled() - before.settled()) * 1000.0 / millis;
        }
        return rates;
    }

    /** The polygon's points: from the baseline, a flat step per sample interval, back to the baseline. */
    private static String steps(List<Timeline.Sample> samples, double[] rates, double seconds, double niceTop) {
        double baseline = TOP + THROUGHPUT_PLOT;
        StringBuilder points = new StringBuilder(point(timeX(samples.get(0), seconds), baseline));
        for (int i = 1; i < samples.size(); i++) {
            double y = baseline - rates[i] / niceTop * THROUGHPUT_PLOT;
            points.append(point(timeX(samples.get(i - 1), seconds), y))
                    .append(point(timeX(samples.get(i), seconds), y));
        }
        return points.append(point(LEFT + PLOT_WIDTH, baseline)).toString().trim();
    }

    private static double timeX(Timeline.Sample sample, double seconds) {
        return LEFT + sample.atMillis() / 1000.0 / seconds * PLOT_WIDTH;
    }

    private static double lastSeconds(List<Timeline.Sample> samples) {
        return Math.max(0.001, samples.get(samples.size() - 1).atMillis() / 1000.0);
    }

    private static String point(double x, double y) {
        return String.format(Locale.ROOT, "%.1f,%.1f ", x, y);
    }

    /**
     * One row per dispatcher, one column per sample (merged by max when there are many), colour by the value (log
     * scale); a tooltip on each cell.
     */
    static String heatMap(Timeline timeline, String what, ToIntBiFunction<Timeline.Sample, Integer> value) {
        List<String> series = timeline.series();
        if (timeline.samples().isEmpty() || series.isEmpty()) {
            return "<p>No lane depth was sampled.</p>";
        }
        Grid grid = Grid.of(timeline, value);
        double axisY = TOP + series.size() * ROW_HEIGHT;
        Svg svg = new Svg(WIDTH, (int) axisY + 76, what + " heat map");
        svg.title(capitalized(what) + " heat map: per dispatcher and aggregate type, over time (log colour scale)");
        svg.verticalText(14, TOP + series.size() * ROW_HEIGHT / 2.0, "dispatcher and aggregate type");
        for (int r = 0; r < series.size(); r++) {
            heatRow(svg, grid, r, series.get(r), what);
        }
        heatTimeAxis(svg, lastSeconds(timeline.samples()), axisY);
        legend(svg, LABEL_WIDTH, axisY + 46, grid.max, what);
        return svg.toString();
    }

    private static void heatRow(Svg svg, Grid grid, int row, String series, String what) {
        double y = TOP + row * ROW_HEIGHT;
        double cellWidth = (double) HEAT_WIDTH / grid.columns();
        svg.text(LABEL_WIDTH - 6, y + ROW_HEIGHT - 5, "end", shorten(series, 36));
        for (int c = 0; c < grid.columns(); c++) {
            int cell = grid.cells[row][c];
            String tooltip = String.format(
                    Locale.ROOT, "%s at %.1f s: %s %,d", series, grid.startMillis[c] / 1000.0, what, cell);
            svg.rect(LABEL_WIDTH + c * cellWidth, y, cellWidth + 0.3, ROW_HEIGHT - 1, colour(cell, grid.max), tooltip);
        }
    }

    private static void heatTimeAxis(Svg svg, double seconds, double axisY) {
        for (double t : ticks(seconds)) {
            double x = LABEL_WIDTH + t / seconds * HEAT_WIDTH;
            svg.line(x, axisY, x, axisY + 5, "#888", false);
            svg.text(x, axisY + 18, "middle", seconds(t));
        }
        svg.text(LABEL_WIDTH + HEAT_WIDTH / 2.0, axisY + 34, "middle", "time since the load started");
    }

    /** Latency counts in log-spaced buckets, {@code first} to {@code last} in tenths of a decade of microseconds. */
    private static final class Buckets {
        final int first;
        final int last;
        final long[] counts;

        private Buckets(int first, int last) {
            this.first = first;
            this.last = last;
            this.counts = new long[Math.max(1, last - first)];
        }

        static Buckets of(Report.Distribution nanos) {
            double minMicros = Math.max(0.1, nanos.minNonZeroNanos() / 1000.0);
            double maxMicros = Math.max(minMicros * 1.01, nanos.maxNanos() / 1000.0);
            Buckets buckets = new Buckets((int) Math.floor(BUCKETS_PER_DECADE * Math.log10(minMicros)), (int)
                    Math.ceil(BUCKETS_PER_DECADE * Math.log10(maxMicros)));
            for (Report.Distribution.Value value : nanos.values()) {
                double micros = Math.max(minMicros, value.nanos() / 1000.0);
                int bucket = (int) Math.floor(BUCKETS_PER_DECADE * Math.log10(micros)) - buckets.first;
                buckets.counts[Math.min(buckets.counts.length - 1, Math.max(0, bucket))] += value.count();
            }
            return buckets;
        }

        double top() {
            return Math.max(1, Arrays.stream(counts).max().orElse(1));
        }

        double width() {
            return (double) PLOT_WIDTH / counts.length;
        }

        /** Where {@code tenths} (tenths of a decade of microseconds) falls on the x axis. */
        double x(double tenths) {
            return LEFT + (tenths - first) * width();
        }

        double lowMicros(int bucket) {
            return Math.pow(10, (first + bucket) / (double) BUCKETS_PER_DECADE);
        }
    }

    /** A heat map's cells: per series and column, the largest value of the samples the column merges. */
    private static final class Grid {
        final int[][] cells;
        final long[] startMillis;
        int max;

        private Grid(int rows, int columns) {
            this.cells = new int[rows][columns];
            this.startMillis = new long[columns];
        }

        static Grid of(Timeline timeline, ToIntBiFunction<Timeline.Sample, Integer> value) {
            List<Timeline.Sample> samples = timeline.samples();
            int columns = Math.min(MAX_COLUMNS, samples.size());
            Grid grid = new Grid(timeline.series().size(), columns);
            for (int c = 0; c < columns; c++) {
                int from = c * samples.size() / columns;
                int to = Math.max(from + 1, (c + 1) * samples.size() / columns);
                grid.startMillis[c] = samples.get(from).atMillis();
                grid.merge(c, samples.subList(from, to), value);
            }
            return grid;
        }

        private void merge(int column, List<Timeline.Sample> samples, ToIntBiFunction<Timeline.Sample, Integer> value) {
            for (int r = 0; r < cells.length; r++) {
                for (Timeline.Sample sample : samples) {
                    cells[r][column] = Math.max(cells[r][column], value.applyAsInt(sample, r));
                }
                max = Math.max(max, cells[r][column]);
            }
        }

        int columns() {
            return startMillis.length;
        }
    }

    private static void legend(Svg svg, double x, double y, int max, String what) {
        int steps = 10;
        for (int i = 0; i <= steps; i++) {
            int v = (int) Math.round(max * Math.pow((double) i / steps, 2));
            svg.rect(x + i * 22, y, 21, 12, colour(v, max), String.format(Locale.ROOT, "%,d", v));
        }
        svg.text(x + (steps + 1) * 22 + 6, y + 10, "start", String.format(Locale.ROOT, "%s: 0 .. %,d", what, max));
    }

    /** Light grey for zero, then pale yellow to dark red on a log scale. */
    static String colour(int value, int max) {
        if (value <= 0 || max <= 0) {
            return "#f1f1f1";
        }
        double t = Math.log1p(value) / Math.log1p(max);
        int[] from = t < 0.5 ? new int[] {255, 237, 160} : new int[] {253, 141, 60};
        int[] to = t < 0.5 ? new int[] {253, 141, 60} : new int[] {177, 0, 38};
        double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
        return String.format(
                Locale.ROOT,
                "#%02x%02x%02x",
                (int) Math.round(from[0] + (to[0] - from[0]) * u),
                (int) Math.round(from[1] + (to[1] - from[1]) * u),
                (int) Math.round(from[2] + (to[2] - from[2]) * u));
    }

    /** Draws the y axis from 0 to a round number above {@code top}; returns that number. */
    private static double yAxis(Svg svg, double top, int plotHeight, String label) {
        double step = niceStep(top / 4);
        double niceTop = Math.ceil(top / step) * step;
        for (double v = 0; v <= niceTop + step / 2; v += step) {
            double y = TOP + plotHeight - v / niceTop * plotHeight;
            svg.line(LEFT, y, WIDTH - RIGHT, y, "#e5e5e5", false);
            svg.text(LEFT - 6, y + 4, "end", String.format(Locale.ROOT, "%,.0f", v));
        }
        svg.verticalText(14, TOP + plotHeight / 2.0, label);
        return niceTop;
    }

    private static void timeAxis(Svg svg, double seconds, int plotWidth, double axisY) {
        for (double t : ticks(seconds)) {
            double x = LEFT + t / seconds * plotWidth;
            svg.line(x, axisY, x, axisY + 5, "#888", false);
            svg.text(x, axisY + 18, "middle", seconds(t));
        }
        svg.text(LEFT + plotWidth / 2.0, axisY + 34, "middle", "time since the load started");
    }

    private static List<Double> ticks(double seconds) {
        double step = niceStep(seconds / 8);
        List<Double> ticks = new ArrayList<>();
        for (double t = 0; t <= seconds + 1e-9; t += step) {
            ticks.add(t);
        }
        return ticks;
    }

    private static double niceStep(double rough) {
        if (rough <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / magnitude;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static String seconds(double t) {
        return t == Math.rint(t) ? String.format(Locale.ROOT, "%.0f s", t) : String.format(Locale.ROOT, "%.1f s", t);
    }

    private static String decade(int exponent) {
        return switch (exponent) {
            case -1 -> "0.1 us";
            case 0 -> "1 us";
            case 1 -> "10 us";
            case 2 -> "100 us";
            case 3 -> "1 ms";
            case 4 -> "10 ms";
            case 5 -> "100 ms";
            case 6 -> "1 s";
            case 7 -> "10 s";
            default -> "1e" + exponent + " us";
        };
    }

    private static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
    }

    /** A minimal SVG builder; every text goes through {@link Html#escape}. */
    private static final class Svg {
        private final StringBuilder out = new StringBuilder();

        Svg(int width, int height, String title) {
            out.append(String.format(
                    Locale.ROOT,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\""
                            + " role=\"img\" aria-label=\"%s\">",
                    width,
                    height,
                    width,
                    height,
                    Html.escape(title)));
        }

        void rect(double x, double y, double w, double h, String fill, String title) {
            out.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>",
                    x,
                    y,
                    w,
                    h,
                    fill,
                    Html.escape(title)));
        }

        void line(double x1, double y1, double x2, double y2, String stroke, boolean dashed) {
            out.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>",
                    x1,
                    y1,
                    x2,
                    y2,
                    stroke,
                    dashed ? " stroke-dasharray=\"4 3\"" : ""));
        }

        void polygon(String points, String colour) {
            out.append(String.format(
                    Locale.ROOT,
                    "<polygon points=\"%s\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                    points,
                    colour,
                    colour));
        }

        void text(double x, double y, String anchor, String text) {
            out.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
                    x,
                    y,
                    anchor,
                    Html.escape(text)));
        }

        /** The chart's title, above the plot. */
        void title(String text) {
            out.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"18\" class=\"chart-title\">%s</text>", LEFT, Html.escape(text)));
        }

        void verticalText(double x, double y, String text) {
            out.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>",
                    x,
                    y,
                    x,
                    y,
                    Html.escape(text)));
        }

        @Override
        public String toString() {
            return out + "</svg>";
        }
    }
}
