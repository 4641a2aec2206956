/**
 * The {@code lanes} command line: {@code demo} (the bank end to end on the embedded defaults) and {@code bench} (the
 * lane engine's scenarios and the command path), each ending with an audit and a text, JSON and HTML report. This
 * package holds the entry point; {@code command} the commands and options, {@code bank} and {@code engine} the runs,
 * {@code run} what the runs share, {@code report} the report and its writers.
 */
@NullMarked
package dev.lanes.cli;

import org.jspecify.annotations.NullMarked;
