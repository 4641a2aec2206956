/**
 * A run's report as an immutable value, and its writers: text for the terminal, JSON (Jackson) and a self-contained
 * HTML page with inline SVG charts.
 */
@NullMarked
package dev.lanes.cli.report;

import org.jspecify.annotations.NullMarked;
