/** The lane engine: per-aggregate ordered, concurrent dispatch of exchanges for one named aggregate. */
@NullMarked
package dev.lanes.dispatch;

import org.jspecify.annotations.NullMarked;
