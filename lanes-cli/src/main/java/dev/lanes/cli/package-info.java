/** The {@code lanes} command line: demo and load scenarios with a report. */
@NullMarked
package dev.lanes.cli;

import org.jspecify.annotations.NullMarked;
