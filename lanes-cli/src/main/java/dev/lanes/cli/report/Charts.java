package dev.lanes.cli.report;

import java.util.ArrayList;
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
        double minMicros = Math.max(0.1, nanos.minNonZeroNanos() / 1000.0);
        double maxMicros = Math.max(minMicros * 1.01, nanos.maxNanos() / 1000.0);
        int first = (int) Math.floor(BUCKETS_PER_DECADE * Math.log10(minMicros));
        int last = (int) Math.ceil(BUCKETS_PER_DECADE * Math.log10(maxMicros));
        long[] counts = new long[Math.max(1, last - first)];
        for (Report.Distribution.Value value : nanos.values()) {
            double micros = Math.max(minMicros, value.nanos() / 1000.0);
            int bucket = (int) Math.floor(BUCKETS_PER_DECADE * Math.log10(micros)) - first;
            counts[Math.min(counts.length - 1, Math.max(0, bucket))] += value.count();
        }
        long top = 1;
        for (long count : counts) {
            top = Math.max(top, count);
        }
        int height = 280;
        int bottom = 40;
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = height - TOP - bottom;
        double barWidth = (double) plotWidth / counts.length;
        Svg svg = new Svg(WIDTH, height, "Latency histogram");
        svg.title("Latency histogram: messages per latency bucket, all stages (10 buckets per decade)");
        double axisTop = yAxis(svg, (double) top, plotHeight, "messages");
        for (int i = 0; i < counts.length; i++) {
            double h = counts[i] / axisTop * plotHeight;
            double lo = Math.pow(10, (first + i) / (double) BUCKETS_PER_DECADE);
            double hi = Math.pow(10, (first + i + 1) / (double) BUCKETS_PER_DECADE);
            svg.rect(
                    LEFT + i * barWidth + 0.5,
                    TOP + plotHeight - h,
                    Math.max(1, barWidth - 1),
                    h,
                    "#4e79a7",
                    String.format(
                            Locale.ROOT, "%s - %s us: %,d", TextReport.micros(lo), TextReport.micros(hi), counts[i]));
        }
        for (int k = (int) Math.ceil(first / (double) BUCKETS_PER_DECADE); k * BUCKETS_PER_DECADE <= last; k++) {
            double x = LEFT + (k * BUCKETS_PER_DECADE - first) * barWidth;
            svg.line(x, TOP + plotHeight, x, TOP + plotHeight + 5, "#888", false);
            svg.text(x, TOP + plotHeight + 18, "middle", decade(k));
        }
        svg.text(LEFT + plotWidth / 2.0, height - 4, "middle", "end-to-end latency (log scale)");
        for (Marker marker : markers) {
            if (marker.micros() <= 0) {
                continue;
            }
            double x = LEFT + (BUCKETS_PER_DECADE * Math.log10(marker.micros()) - first) * barWidth;
            x = Math.max(LEFT, Math.min(LEFT + plotWidth, x));
            svg.line(x, TOP, x, TOP + plotHeight, "#e15759", true);
            boolean nearRight = x > LEFT + plotWidth * 0.8;
            svg.text(
                    nearRight ? x - 3 : x + 3,
                    TOP + 10 + 13 * markers.indexOf(marker),
                    nearRight ? "end" : "start",
                    marker.label() + " " + TextReport.micros(marker.micros()) + " us");
        }
        return svg.toString();
    }

    /** The settled count's rate between consecutive samples, as steps over time. */
    static String throughput(Timeline timeline, String unit) {
        List<Timeline.Sample> samples = timeline.samples();
        if (samples.size() < 2) {
            return "<p>The run was too short to sample its throughput.</p>";
        }
        double top = 1;
        double[] rates = new double[samples.size()];
        for (int i = 1; i < samples.size(); i++) {
            Timeline.Sample before = samples.get(i - 1);
            Timeline.Sample now = samples.get(i);
            long millis = Math.max(1, now.atMillis() - before.atMillis());
            rates[i] = (now.settled() - before.settled()) * 1000.0 / millis;
            top = Math.max(top, rates[i]);
        }
        double seconds = Math.max(0.001, samples.get(samples.size() - 1).atMillis() / 1000.0);
        int height = 260;
        int bottom = 40;
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = height - TOP - bottom;
        Svg svg = new Svg(WIDTH, height, "Throughput over time");
        svg.title("Throughput over time: " + unit + " settled per second between samples");
        double niceTop = yAxis(svg, top, plotHeight, unit + "/s");
        timeAxis(svg, seconds, plotWidth, TOP + plotHeight);
        double baseline = TOP + plotHeight;
        StringBuilder points = new StringBuilder();
        points.append(point(LEFT + samples.get(0).atMillis() / 1000.0 / seconds * plotWidth, baseline));
        for (int i = 1; i < samples.size(); i++) {
            double from = LEFT + samples.get(i - 1).atMillis() / 1000.0 / seconds * plotWidth;
            double to = LEFT + samples.get(i).atMillis() / 1000.0 / seconds * plotWidth;
            double y = baseline - rates[i] / niceTop * plotHeight;
            points.append(point(from, y)).append(point(to, y));
        }
        points.append(point(LEFT + plotWidth, baseline));
        svg.polygon(points.toString().trim(), "#4e79a7");
        return svg.toString();
    }

    private static String point(double x, double y) {
        return String.format(Locale.ROOT, "%.1f,%.1f ", x, y);
    }

    /**
     * One row per dispatcher, one column per sample (merged by max when there are many), colour by the value (log
     * scale); a tooltip on each cell.
     */
    static String heatMap(Timeline timeline, String what, ToIntBiFunction<Timeline.Sample, Integer> value) {
        List<Timeline.Sample> samples = timeline.samples();
        List<String> series = timeline.series();
        if (samples.isEmpty() || series.isEmpty()) {
            return "<p>No lane depth was sampled.</p>";
        }
        int columns = Math.min(MAX_COLUMNS, samples.size());
        int rows = series.size();
        int[][] cells = new int[rows][columns];
        long[] startMillis = new long[columns];
        int max = 0;
        for (int c = 0; c < columns; c++) {
            int from = c * samples.size() / columns;
            int to = Math.max(from + 1, (c + 1) * samples.size() / columns);
            startMillis[c] = samples.get(from).atMillis();
            for (int r = 0; r < rows; r++) {
                for (int s = from; s < to; s++) {
                    cells[r][c] = Math.max(cells[r][c], value.applyAsInt(samples.get(s), r));
                }
                max = Math.max(max, cells[r][c]);
            }
        }
        int labelWidth = 260;
        int rowHeight = 18;
        int plotWidth = WIDTH - labelWidth - RIGHT;
        int height = TOP + rows * rowHeight + 76;
        double cellWidth = (double) plotWidth / columns;
        double seconds = Math.max(0.001, samples.get(samples.size() - 1).atMillis() / 1000.0);
        Svg svg = new Svg(WIDTH, height, what + " heat map");
        svg.title(capitalized(what) + " heat map: per dispatcher and aggregate type, over time (log colour scale)");
        svg.verticalText(14, TOP + rows * rowHeight / 2.0, "dispatcher and aggregate type");
        for (int r = 0; r < rows; r++) {
            double y = TOP + r * rowHeight;
            svg.text(labelWidth - 6, y + rowHeight - 5, "end", shorten(series.get(r), 36));
            for (int c = 0; c < columns; c++) {
                svg.rect(
                        labelWidth + c * cellWidth,
                        y,
                        cellWidth + 0.3,
                        rowHeight - 1,
                        colour(cells[r][c], max),
                        String.format(
                                Locale.ROOT,
                                "%s at %.1f s: %s %,d",
                                series.get(r),
                                startMillis[c] / 1000.0,
                                what,
                                cells[r][c]));
            }
        }
        double axisY = TOP + rows * rowHeight;
        for (double t : ticks(seconds)) {
            double x = labelWidth + t / seconds * plotWidth;
            svg.line(x, axisY, x, axisY + 5, "#888", false);
            svg.text(x, axisY + 18, "middle", seconds(t));
        }
        svg.text(labelWidth + plotWidth / 2.0, axisY + 34, "middle", "time since the load started");
        legend(svg, labelWidth, axisY + 46, max, what);
        return svg.toString();
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
