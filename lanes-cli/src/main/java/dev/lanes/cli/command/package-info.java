/**
 * The {@code lanes} command line: the picocli commands ({@code demo}, {@code bench}), their options, converters and
 * checks (all done before anything runs), the exit codes, and the one-line error handling.
 */
@NullMarked
package dev.lanes.cli.command;

import org.jspecify.annotations.NullMarked;
