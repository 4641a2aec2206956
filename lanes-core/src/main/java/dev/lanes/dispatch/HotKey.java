package dev.lanes.dispatch;

/**
 * An aggregate id among the most frequent in a recent window, with an estimate of how many exchanges it had. Estimates
 * come from a bounded sketch: they may over-count by at most {@code error}.
 */
public record HotKey(String id, long count, long error) {}
