/** Stop contracts shared by every component that owns threads or subscriptions. */
@NullMarked
package dev.lanes.lifecycle;

import org.jspecify.annotations.NullMarked;
