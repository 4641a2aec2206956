/**
 * The {@code lanes} command line: {@code demo} (the bank end to end on the embedded defaults) and {@code bench} (the
 * lane engine's scenarios and the command path), each ending with an audit and a text, JSON and HTML report.
 */
@NullMarked
package dev.lanes.cli;

import org.jspecify.annotations.NullMarked;
